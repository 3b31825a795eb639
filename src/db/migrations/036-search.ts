import type { Step } from "../portable";

/**
 * The submissions' full-text index, each engine's own (db/full-text.ts says what it holds and why
 * that tokenizer). SQLite: an FTS5 table without content of its own (the text is the submission's;
 * `contentless_delete` lets a row be deleted by its rowid alone), its rowid the submission's seq, and
 * a trigger that takes a submission's entry out with it however it is deleted (one by one, by
 * erasure, by retention, with its form). Positions are kept (`detail=full`): phrases need them.
 * Prefixes of 2 and 3 letters have entries of their own (`prefix`): `mul*` reads one list instead of
 * merging those of every word it begins, 100 times faster at 100,000 submissions (bench/RESULTS.md).
 * PostgreSQL: a tsvector per submission, GIN-indexed, going with its submission by cascade.
 *
 * Submissions stored before are indexed in the background, newest first (search/service.ts
 * `indexBacklog`): `search_backlog.below` is the seq below which they still wait. On SQLite, new
 * ones are indexed in batches after their commit: `indexed_to` is the seq up to which they are.
 */
export const steps: Step[] = [
  {
    sqlite: [
      `CREATE VIRTUAL TABLE submission_search USING fts5(words, content='', contentless_delete=1, tokenize='ascii', prefix='2 3')`,
      // SQLite hands a deleted seq out again when none above it is left: the marks come down to
      // the highest left, so the submission that takes it is indexed, and only once.
      `CREATE TRIGGER submissions_unsearched AFTER DELETE ON submissions BEGIN
         DELETE FROM submission_search WHERE rowid = old.seq;
         UPDATE search_backlog
           SET indexed_to = min(indexed_to, (SELECT coalesce(max(seq), 0) FROM submissions)),
               below = min(below, (SELECT coalesce(max(seq), 0) + 1 FROM submissions))
           WHERE old.seq > (SELECT coalesce(max(seq), 0) FROM submissions);
       END`,
    ],
    postgres: [
      `CREATE TABLE submission_search (
        seq   integer PRIMARY KEY REFERENCES submissions(seq) ON DELETE CASCADE,
        words tsvector NOT NULL
      )`,
      "CREATE INDEX submission_search_words ON submission_search USING gin (words)",
    ],
  },
  "CREATE TABLE search_backlog (below INTEGER NOT NULL, indexed_to INTEGER NOT NULL) STRICT",
  "INSERT INTO search_backlog (below, indexed_to) SELECT coalesce(max(seq), 0) + 1, coalesce(max(seq), 0) FROM submissions",
];
