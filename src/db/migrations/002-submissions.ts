import type { Database } from "bun:sqlite";

/** Submissions, and the idempotency keys that make submit safe to retry. */
export function up(db: Database): void {
  // `seq` is the insertion order (rowid): cheap to append, and a high-water mark for anything that catches up.
  db.run(`CREATE TABLE submissions (
    seq        INTEGER PRIMARY KEY,
    id         TEXT NOT NULL,
    form_id    TEXT NOT NULL REFERENCES forms(id) ON DELETE CASCADE,
    data       TEXT NOT NULL,
    email      TEXT,
    created_at TEXT NOT NULL
  ) STRICT`);
  // Keyset pages of one form, newest first; also serves ON DELETE CASCADE from forms.
  db.run("CREATE INDEX submissions_by_form ON submissions (form_id, created_at DESC, id DESC)");
  // Distinct waitlist joiners: "has this form seen this email before?"
  db.run("CREATE INDEX submissions_by_email ON submissions (form_id, email) WHERE email IS NOT NULL");

  db.run(`CREATE TABLE idempotency_keys (
    form_id    TEXT NOT NULL REFERENCES forms(id) ON DELETE CASCADE,
    key        TEXT NOT NULL,
    response   TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (form_id, key)
  ) STRICT, WITHOUT ROWID`);
  db.run("CREATE INDEX idempotency_keys_by_age ON idempotency_keys (created_at)");
}
