import type { Database } from "bun:sqlite";
import { formToken, type SearchQuery, type Term } from "../lib/search-text";
import type { Sql, SqlValue } from "./sql";

/**
 * The submissions' full-text index, each engine's own (migration 36): SQLite's FTS5 table
 * `submission_search` (contentless: the text is the submission's, not copied; rowid = the
 * submission's seq), PostgreSQL's table of the same name (a tsvector per seq, GIN-indexed). Both
 * hold the same tokens, cut and folded once in JS (lib/search-text.ts), in order, with their
 * positions; both are asked the same query, translated here from its parsed terms, so they find
 * the same submissions.
 *
 * SQLite's tokenizer is `ascii`: it splits only at the spaces written between tokens (every
 * character past ASCII is a token character), so FTS5 keeps each token as JS cut it. `unicode61`
 * would cut them again by its own Unicode 6.1 tables (a letter added since would split a word that
 * PostgreSQL keeps whole). PostgreSQL's tsvector is written as a literal, with positions, for the
 * same reason: no parser, locale or dictionary of its own comes into it.
 *
 * SQLite indexes new submissions after their commit, a few thousand per transaction
 * (`batched`): FTS5 writes a segment at every commit that touched it, which cost a submit more
 * than all its other writes together (bench/RESULTS.md, issue 40). Those not indexed yet are the
 * submissions past `search_backlog.indexed_to`, which a search reads beside the index (so a
 * submission is found once its submit is answered) and the indexer takes in (search/service.ts).
 * PostgreSQL's GIN index keeps its own pending list, and is written in the submit's transaction.
 *
 * Each document starts with its form's token (lib/search-text.ts `formToken`): a search within up to
 * 64 forms (one form, a small team's) asks for one of theirs beside its words, so the index reads
 * only their matches; without it, a small team's search for a frequent word read every team's.
 *
 * The index knows no fields: a term in one field is looked up as a term anywhere, and the service
 * keeps the submissions that hold it in that field (search/document.ts `matches`). Tokens of
 * their own per field cost the index and every submit twice as much (bench/RESULTS.md).
 */
export interface FullText {
  /** New submissions are indexed after their commit, in batches; until then they are past `indexed_to`. */
  readonly batched: boolean;
  /**
   * Whether `index` takes each document as one text its tokenizer cuts into the tokens (SQLite:
   * search/document.ts `indexedText`) rather than the tokens themselves (PostgreSQL).
   */
  readonly takesText: boolean;
  /**
   * Indexes these submissions, by id or, where known, seq (SQLite's are all read with theirs: it
   * indexes after the commit); `replace`: ones the index may hold already, whose entries it replaces.
   */
  index(docs: { id: string; seq?: number; words: string[] | string }[], replace?: boolean): Promise<void>;
  /** The FROM of a search: the index joined to `submissions s`. */
  readonly from: string;
  /** The expression giving a match's seq, for ORDER BY and paging. */
  readonly seq: string;
  /** The WHERE condition matching one parameter, and that parameter for a query. */
  readonly where: string;
  /**
   * The query as that parameter: every positive term, and the negated ones that hold anywhere (not
   * in one field); with `forms`, in those forms' submissions (their `formToken`s).
   */
  expression(query: SearchQuery, forms: string[] | null): SqlValue;
}

// PostgreSQL keeps at most 256 positions of one lexeme; the later ones are left out.
const MAX_POSITIONS = 256;

/** The terms the index is asked: a negated term in one field says nothing of the others, so it is the service's alone. */
const indexed = (query: SearchQuery) => query.terms.filter((t) => !(t.negated && t.field !== null));

/** A term as FTS5's syntax: a phrase of quoted tokens (letters, digits and marks only: no quote, no operator). */
const fts5Term = (term: Term) => `"${term.tokens.join(" ")}"${term.prefix ? " *" : ""}`;

/** A term as a tsquery: lexemes in quotes, `<->` between a phrase's, `:*` on a prefix. */
function tsTerm(term: Term): string {
  const phrase = term.tokens
    .map((t, i) => `'${t}'${term.prefix && i === term.tokens.length - 1 ? ":*" : ""}`)
    .join(" <-> ");
  return term.tokens.length > 1 ? `(${phrase})` : phrase;
}

// A tsvector holds at most 1 MiB (PostgreSQL refuses a larger one): a document is indexed up to the
// token where its tsvector would pass this (an entry and a length per lexeme, 2 bytes a position).
const MAX_TSVECTOR_BYTES = 1_000_000;

/** A document as a tsvector's text: each lexeme with its positions (1-based). */
function tsvectorOf(tokens: string[]): string {
  const positions = new Map<string, number[]>();
  let bytes = 8;
  for (const [i, token] of tokens.entries()) {
    const list = positions.get(token);
    bytes += list ? 2 : 10 + Buffer.byteLength(token);
    if (bytes > MAX_TSVECTOR_BYTES) break;
    if (!list) positions.set(token, [i + 1]);
    else if (list.length < MAX_POSITIONS) list.push(i + 1);
  }
  return [...positions].map(([lexeme, at]) => `'${lexeme}':${at.join(",")}`).join(" ");
}

export function fullText(sql: Sql): FullText {
  if (sql.engine === "postgres")
    return {
      batched: false,
      takesText: false,
      async index(docs) {
        if (docs.length === 0) return;
        await sql.run(
          `INSERT INTO submission_search (seq, words)
           SELECT s.seq, CAST(r.words AS tsvector) FROM json_to_recordset(CAST(CAST(? AS TEXT) AS json)) AS r(id text, words text)
           JOIN submissions s ON s.id = r.id
           ON CONFLICT (seq) DO UPDATE SET words = excluded.words`,
          [
            JSON.stringify(
              docs.map((d) => {
                if (typeof d.words === "string") throw new Error(`submission ${d.id} is indexed without its tokens`);
                return { id: d.id, words: tsvectorOf(d.words) };
              }),
            ),
          ],
        );
      },
      from: "submission_search x JOIN submissions s ON s.seq = x.seq",
      seq: "x.seq",
      where: "x.words @@ CAST(? AS tsquery)",
      expression: (query, forms) =>
        [
          ...indexed(query).map((t) => (t.negated ? `!${tsTerm(t)}` : tsTerm(t))),
          ...(forms ? [`(${forms.map((f) => `'${formToken(f)}'`).join(" | ")})`] : []),
        ].join(" & "),
    };
  return {
    batched: true,
    takesText: true,
    async index(docs, replace = false) {
      // One statement a submission: SQLite's statements cost no round trip.
      for (const { id, seq, words } of docs) {
        if (seq === undefined) throw new Error(`submission ${id} is indexed without its seq`);
        // Contentless: a row is replaced by deleting it first.
        if (replace) await sql.run("DELETE FROM submission_search WHERE rowid = ?", [seq]);
        await sql.run("INSERT INTO submission_search (rowid, words) VALUES (?, ?)", [
          seq,
          typeof words === "string" ? words : words.join(" "),
        ]);
      }
    },
    from: "submission_search JOIN submissions s ON s.seq = submission_search.rowid",
    seq: "submission_search.rowid",
    where: "submission_search MATCH ?",
    expression(query, forms) {
      const terms = indexed(query);
      const found = `(${[
        ...terms.filter((t) => !t.negated).map(fts5Term),
        ...(forms ? [`(${forms.map((f) => `"${formToken(f)}"`).join(" OR ")})`] : []),
      ].join(" AND ")})`;
      const negative = terms.filter((t) => t.negated).map(fts5Term);
      return negative.length ? `${found} NOT (${negative.join(" OR ")})` : found;
    },
  };
}

/** SQLite: merges the index's segments into one, leaving out what deletions marked (their words with them). */
export const mergeSearchIndex = (db: Database): void =>
  void db.run("INSERT INTO submission_search (submission_search) VALUES ('optimize')");
