import { fieldToken, type SearchDocument, type SearchQuery, type Term } from "../lib/search-text";
import type { Database } from "bun:sqlite";
import type { Sql, SqlValue } from "./sql";

/**
 * The submissions' full-text index, each engine's own (migration 33): SQLite's FTS5 table
 * `submission_search` (contentless: the text is the submission's, not copied; rowid = the
 * submission's seq), PostgreSQL's table of the same name (a tsvector per seq, GIN-indexed). Both
 * hold the same tokens, cut and folded once in JS (lib/search-text.ts); both are asked the same
 * query, translated here from its parsed terms, so they find the same submissions.
 *
 * SQLite's tokenizer is `ascii` with `_` a token character: it splits only at the spaces written
 * between tokens (every character past ASCII is a token character), so FTS5 keeps each token as
 * JS cut it. `unicode61` would cut them again by its own Unicode 6.1 tables (a letter added since
 * would split a word that PostgreSQL keeps whole). PostgreSQL's tsvector is written as a literal,
 * with positions, for the same reason: no parser, locale or dictionary of its own comes into it.
 *
 * A field's tokens are tokens of their own (lib/search-text.ts `fieldToken`): FTS5 keeps them in a
 * second column, in the same order as the plain ones, so a phrase in a field is a phrase there;
 * PostgreSQL puts each at its plain token's position.
 */
export interface FullText {
  /** Indexes these submissions (by id); `replace`: ones the index may hold already, whose entries it replaces. */
  index(docs: { id: string; doc: SearchDocument }[], replace?: boolean): Promise<void>;
  /** The FROM of a search: the index joined to `submissions s`. */
  readonly from: string;
  /** The expression giving a match's seq, for ORDER BY and paging. */
  readonly seq: string;
  /** The WHERE condition matching one parameter, and that parameter for a query. */
  readonly where: string;
  expression(query: SearchQuery): SqlValue;
}

// PostgreSQL keeps at most 256 positions of one lexeme; later ones are left out on both engines' behalf of the phrase.
const MAX_POSITIONS = 256;

const quoted = (tokens: string[]) => `"${tokens.join(" ")}"`;

/** A term as FTS5's syntax: a phrase of quoted tokens (made of letters, digits, marks and `_` only) in one column. */
function fts5Term(term: Term): string {
  const tokens = term.field === null ? term.tokens : term.tokens.map((t) => fieldToken(term.field!, t));
  return `${term.field === null ? "words" : "fielded"} : ${quoted(tokens)}${term.prefix ? " *" : ""}`;
}

/** A term as a tsquery: lexemes in quotes, `<->` between a phrase's, `:*` on a prefix. */
function tsTerm(term: Term): string {
  const tokens = term.field === null ? term.tokens : term.tokens.map((t) => fieldToken(term.field!, t));
  const phrase = tokens.map((t, i) => `'${t}'${term.prefix && i === tokens.length - 1 ? ":*" : ""}`).join(" <-> ");
  return tokens.length > 1 ? `(${phrase})` : phrase;
}

/** A document as a tsvector's text: each lexeme with its positions (1-based). */
function tsvectorOf(doc: SearchDocument): string {
  const positions = new Map<string, number[]>();
  const add = (lexeme: string, at: number) => {
    const list = positions.get(lexeme);
    if (!list) positions.set(lexeme, [at]);
    else if (list.length < MAX_POSITIONS) list.push(at);
  };
  doc.tokens.forEach((token, i) => {
    add(token, i + 1);
    add(fieldToken(doc.fields[i]!, token), i + 1);
  });
  return [...positions].map(([lexeme, at]) => `'${lexeme}':${at.join(",")}`).join(" ");
}

export function fullText(sql: Sql): FullText {
  const rows = (docs: { id: string; doc: SearchDocument }[], text: (doc: SearchDocument) => Record<string, string>) =>
    JSON.stringify(docs.map(({ id, doc }) => ({ id, ...text(doc) })));
  if (sql.engine === "postgres")
    return {
      async index(docs) {
        if (docs.length === 0) return;
        await sql.run(
          `INSERT INTO submission_search (seq, words)
           SELECT s.seq, CAST(r.words AS tsvector) FROM json_to_recordset(CAST(CAST(? AS TEXT) AS json)) AS r(id text, words text)
           JOIN submissions s ON s.id = r.id
           ON CONFLICT (seq) DO UPDATE SET words = excluded.words`,
          [rows(docs, (doc) => ({ words: tsvectorOf(doc) }))],
        );
      },
      from: "submission_search x JOIN submissions s ON s.seq = x.seq",
      seq: "x.seq",
      where: "x.words @@ CAST(? AS tsquery)",
      expression: (query) => query.terms.map((t) => (t.negated ? `!${tsTerm(t)}` : tsTerm(t))).join(" & "),
    };
  return {
    async index(docs, replace = false) {
      if (docs.length === 0) return;
      const json = rows(docs, (doc) => ({
        words: doc.tokens.join(" "),
        fielded: doc.tokens.map((t, i) => fieldToken(doc.fields[i]!, t)).join(" "),
      }));
      // Contentless: a row is replaced by deleting it first.
      if (replace)
        await sql.run(
          `DELETE FROM submission_search WHERE rowid IN
         (SELECT s.seq FROM json_each(?) j JOIN submissions s ON s.id = j.value ->> 'id')`,
          [json],
        );
      await sql.run(
        `INSERT INTO submission_search (rowid, words, fielded)
         SELECT s.seq, j.value ->> 'words', j.value ->> 'fielded' FROM json_each(?) j JOIN submissions s ON s.id = j.value ->> 'id'`,
        [json],
      );
    },
    from: "submission_search JOIN submissions s ON s.seq = submission_search.rowid",
    seq: "submission_search.rowid",
    where: "submission_search MATCH ?",
    expression(query) {
      const positive = query.terms.filter((t) => !t.negated).map(fts5Term);
      const negative = query.terms.filter((t) => t.negated).map(fts5Term);
      const found = `(${positive.join(" AND ")})`;
      return negative.length ? `${found} NOT (${negative.join(" OR ")})` : found;
    },
  };
}

/** SQLite: merges the index's segments into one, leaving out what deletions marked (their words with them). */
export const mergeSearchIndex = (db: Database): void =>
  void db.run("INSERT INTO submission_search (submission_search) VALUES ('optimize')");
