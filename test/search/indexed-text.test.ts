import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { MAX_DOCUMENT_TOKENS, indexedText, indexedTokens } from "../../src/modules/search/document";

// SQLite is handed each submission as one text (document.ts `indexedText`): FTS5's ascii tokenizer,
// as migration 36 makes the table, must cut it into exactly the tokens PostgreSQL is handed.
const db = new Database(":memory:");
db.run(
  "CREATE VIRTUAL TABLE submission_search USING fts5(words, content='', contentless_delete=1, tokenize='ascii', prefix='2 3')",
);
db.run("CREATE VIRTUAL TABLE terms USING fts5vocab(submission_search, 'instance')");

/** The tokens FTS5 holds of one text, in order. */
function indexedBySqlite(text: string): string[] {
  db.run("DELETE FROM submission_search");
  db.run("INSERT INTO submission_search (rowid, words) VALUES (1, ?)", [text]);
  return db
    .query<{ term: string }, []>("SELECT term FROM terms ORDER BY offset")
    .all()
    .map((r) => r.term);
}

const CASES: Record<string, [string, string[]][]> = {
  "plain ASCII": [["message", ["Hello, World! I'd like 2 widgets (blue/red) -- ASAP.", "hans@example.com"]]],
  "mixed case and digits": [["n", ["42", "ABCdef123 x9Y"]]],
  "a 64-letter word and a longer one": [["k", [`${"a".repeat(64)} ${"b".repeat(65)} kept`]]],
  "punctuation only, and empty": [["p", ["!!! ... ---", ""]]],
  "NUL and control characters": [["c", ["one\u0000two\tthree\nfour\u0001five"]]],
  "accents, other scripts, beside ASCII": [
    ["name", ["Hans Müller", "José Núñez"]],
    ["message", ["東京都に住んでいます", "Große Straße 5", "plain ascii after"]],
  ],
  "over the most tokens a document holds": [["long", ["a b ".repeat(MAX_DOCUMENT_TOKENS), "tail words"]]],
  "just under it": [["long", ["x ".repeat(MAX_DOCUMENT_TOKENS - 3), "last one"]]],
};

for (const [name, fields] of Object.entries(CASES))
  test(`FTS5 cuts the text it is handed into the tokens PostgreSQL gets: ${name}`, () => {
    expect(indexedBySqlite(indexedText(fields))).toEqual(indexedTokens(fields));
  });
