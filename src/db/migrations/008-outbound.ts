import type { Database } from "bun:sqlite";

/**
 * Outbound: one outbox for every message formsvc sends (owner notifications, autoresponses,
 * waitlist confirmations, webhooks), the attempts of each, the forms' webhooks, and double opt-in.
 *
 * The outbox is rebuilt (SQLite cannot change a CHECK or drop a NOT NULL in place): rows gain a
 * `kind`, the webhook they go to with their `message_id` (the `webhook-id`, the same across retries
 * and replays), a `payload` of what their kind needs beyond the submission (an autoresponse's
 * templates, a confirmation's token until it is sent), `created_at` (kept when a row is queued
 * again) and the last HTTP status. Each attempt is kept with its time, status code or error and
 * duration. Existing rows are owner notifications and keep their ids.
 *
 * Forms gain an autoresponse (subject and text templates), double opt-in for waitlists and where a
 * confirmed joiner is sent. A waitlist joiner's confirmation is kept per form and email, apart from
 * the joiners themselves, so a joiner who leaves the inbox (spam) and comes back is still confirmed;
 * only a hash of the token is stored. Autoresponses are throttled per form and address.
 */
export function up(db: Database): void {
  db.run(`CREATE TABLE webhooks (
    id              TEXT PRIMARY KEY,
    form_id         TEXT NOT NULL REFERENCES forms(id) ON DELETE CASCADE,
    url             TEXT NOT NULL,
    format          TEXT NOT NULL CHECK (format IN ('standard', 'slack', 'discord')),
    secret          TEXT,
    enabled         INTEGER NOT NULL DEFAULT 1,
    disabled_reason TEXT,
    created_at      TEXT NOT NULL
  ) STRICT`);
  db.run("CREATE INDEX webhooks_by_form ON webhooks (form_id, created_at)");

  db.run(`CREATE TABLE outbox_new (
    id              INTEGER PRIMARY KEY,
    kind            TEXT NOT NULL CHECK (kind IN ('notification', 'autoresponse', 'confirmation', 'webhook')),
    form_id         TEXT NOT NULL REFERENCES forms(id) ON DELETE CASCADE,
    submission_id   TEXT,
    webhook_id      TEXT REFERENCES webhooks(id) ON DELETE CASCADE,
    message_id      TEXT,
    recipient       TEXT NOT NULL,
    reply_to        TEXT,
    form_name       TEXT NOT NULL,
    data            TEXT NOT NULL,
    payload         TEXT,
    submitted_at    TEXT NOT NULL,
    created_at      TEXT NOT NULL,
    queued_at       TEXT NOT NULL,
    status          TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sending', 'sent', 'failed')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at TEXT NOT NULL,
    last_status     INTEGER,
    last_error      TEXT,
    sent_at         TEXT
  ) STRICT`);
  db.run(
    `INSERT INTO outbox_new (id, kind, form_id, submission_id, recipient, reply_to, form_name, data, submitted_at, created_at, queued_at,
       status, attempts, next_attempt_at, last_error, sent_at)
     SELECT id, 'notification', form_id, submission_id, recipient, reply_to, form_name, data, submitted_at, queued_at, queued_at,
       status, attempts, next_attempt_at, last_error, sent_at FROM outbox`,
  );
  db.run("DROP TABLE outbox");
  db.run("ALTER TABLE outbox_new RENAME TO outbox");
  // What is due, in order; also what /healthz counts (every status but `sent` is a short range of it).
  db.run("CREATE INDEX outbox_due ON outbox (status, next_attempt_at)");
  db.run("CREATE INDEX outbox_by_form ON outbox (form_id)");
  // A webhook's deliveries, newest first.
  db.run("CREATE INDEX outbox_by_webhook ON outbox (webhook_id, id) WHERE webhook_id IS NOT NULL");
  db.run("CREATE UNIQUE INDEX outbox_by_message ON outbox (message_id) WHERE message_id IS NOT NULL");

  db.run(`CREATE TABLE outbox_attempts (
    outbox_id   INTEGER NOT NULL REFERENCES outbox(id) ON DELETE CASCADE,
    at          TEXT NOT NULL,
    status_code INTEGER,
    error       TEXT,
    duration_ms REAL NOT NULL
  ) STRICT`);
  db.run("CREATE INDEX outbox_attempts_by_row ON outbox_attempts (outbox_id, at)");

  db.run("ALTER TABLE forms ADD COLUMN autoresponse_enabled INTEGER NOT NULL DEFAULT 0");
  db.run("ALTER TABLE forms ADD COLUMN autoresponse_subject TEXT NOT NULL DEFAULT ''");
  db.run("ALTER TABLE forms ADD COLUMN autoresponse_text TEXT NOT NULL DEFAULT ''");
  db.run("ALTER TABLE forms ADD COLUMN double_opt_in INTEGER NOT NULL DEFAULT 0");
  db.run("ALTER TABLE forms ADD COLUMN confirm_redirect_url TEXT");

  db.run(`CREATE TABLE autoresponse_throttle (
    form_id TEXT NOT NULL REFERENCES forms(id) ON DELETE CASCADE,
    email   TEXT NOT NULL,
    sent_at TEXT NOT NULL,
    PRIMARY KEY (form_id, email)
  ) STRICT, WITHOUT ROWID`);
  db.run("CREATE INDEX autoresponse_throttle_by_age ON autoresponse_throttle (sent_at)");

  db.run(`CREATE TABLE waitlist_confirmations (
    form_id      TEXT NOT NULL REFERENCES forms(id) ON DELETE CASCADE,
    email        TEXT NOT NULL,
    token_hash   TEXT NOT NULL UNIQUE,
    created_at   TEXT NOT NULL,
    expires_at   TEXT NOT NULL,
    confirmed_at TEXT,
    PRIMARY KEY (form_id, email)
  ) STRICT, WITHOUT ROWID`);
  db.run(
    "CREATE INDEX waitlist_confirmations_by_expiry ON waitlist_confirmations (expires_at) WHERE confirmed_at IS NULL",
  );
}
