import type { Step } from "../portable";

/**
 * Save and resume (the form setting `partialSubmissions`): what a visitor has typed so far, kept in a
 * table of its own rather than as submissions, so nothing that counts, indexes, notifies, analyses or
 * exports submissions can see one by accident. A partial is found by its id and proved by its resume
 * token, of which only the SHA-256 is kept; `email` is the address it was mailed to, or else the one
 * typed, for erasure. It goes with its form (ON DELETE CASCADE), when finished, and 30 days after its
 * last save.
 */
export const steps: Step[] = [
  "ALTER TABLE forms ADD COLUMN partial_submissions INTEGER NOT NULL DEFAULT 0",
  `CREATE TABLE partials (
    id         TEXT PRIMARY KEY,
    form_id    TEXT NOT NULL REFERENCES forms(id) ON DELETE CASCADE,
    token_hash TEXT NOT NULL,
    data       TEXT NOT NULL,
    email      TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  ) STRICT`,
  "CREATE INDEX partials_by_form ON partials (form_id, updated_at, id)",
  "CREATE INDEX partials_by_email ON partials (email) WHERE email IS NOT NULL",
  "CREATE INDEX partials_by_age ON partials (updated_at)",
];
