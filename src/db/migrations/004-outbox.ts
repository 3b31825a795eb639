import type { Database } from "bun:sqlite";

/**
 * Owner notifications waiting to be mailed. A row holds everything its message needs, so a
 * later edit of the form cannot change a notification that was already queued.
 */
export function up(db: Database): void {
  db.run(`CREATE TABLE outbox (
    id              INTEGER PRIMARY KEY,
    form_id         TEXT NOT NULL REFERENCES forms(id) ON DELETE CASCADE,
    submission_id   TEXT NOT NULL,
    recipient       TEXT NOT NULL,
    reply_to        TEXT,
    form_name       TEXT NOT NULL,
    data            TEXT NOT NULL,
    submitted_at    TEXT NOT NULL,
    queued_at       TEXT NOT NULL,
    status          TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sending', 'sent', 'failed')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at TEXT NOT NULL,
    last_error      TEXT,
    sent_at         TEXT
  ) STRICT`);
  db.run("CREATE INDEX outbox_due ON outbox (status, next_attempt_at)");
  db.run("CREATE INDEX outbox_by_form ON outbox (form_id)");
}
