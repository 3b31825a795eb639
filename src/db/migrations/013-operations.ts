import type { Database } from "bun:sqlite";

const OUTBOX = `(
    id              INTEGER PRIMARY KEY,
    kind            TEXT NOT NULL CHECK (kind IN ('notification', 'autoresponse', 'confirmation', 'webhook', 'password_reset')),
    form_id         TEXT REFERENCES forms(id) ON DELETE CASCADE,
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
    sent_at         TEXT,
    lease_until     TEXT
  ) STRICT`;

/**
 * First run and password reset. `setup_tokens`: the SHA-256 of each setup link `serve` printed
 * while no owner had a password (in the database, not in memory: several instances on one
 * PostgreSQL database each print one, and any of them must accept any). `password_resets`: the
 * SHA-256 of each reset link, its owner, when it lapses and when it was used. The outbox takes
 * a new kind, `password_reset`, which belongs to no form (form_id NULL): SQLite cannot change a
 * CHECK or a NOT NULL in place, so the table is rebuilt, its attempts kept.
 */
export function up(db: Database): void {
  db.run("CREATE TABLE setup_tokens (token_hash TEXT PRIMARY KEY, expires_at TEXT NOT NULL) STRICT");
  db.run(`CREATE TABLE password_resets (
    token_hash TEXT PRIMARY KEY,
    owner_id   TEXT NOT NULL REFERENCES owners(id) ON DELETE CASCADE,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    used_at    TEXT
  ) STRICT`);
  // The per-email limit reads an owner's latest request; the owner's deletion cascades.
  db.run("CREATE INDEX password_resets_by_owner ON password_resets (owner_id, created_at)");

  const columns = (db.query("PRAGMA table_info(outbox)").all() as { name: string }[]).map((c) => c.name).join(", ");
  db.run(`CREATE TABLE outbox_new ${OUTBOX}`);
  db.run(`INSERT INTO outbox_new (${columns}) SELECT ${columns} FROM outbox`);
  // Dropping the outbox would cascade to its attempts (foreign keys are on): they wait aside.
  db.run("CREATE TABLE outbox_attempts_aside AS SELECT * FROM outbox_attempts");
  db.run("DROP TABLE outbox_attempts");
  db.run("DROP TABLE outbox");
  db.run("ALTER TABLE outbox_new RENAME TO outbox");
  db.run("CREATE INDEX outbox_due ON outbox (status, next_attempt_at)");
  db.run("CREATE INDEX outbox_by_form ON outbox (form_id)");
  db.run("CREATE INDEX outbox_by_webhook ON outbox (webhook_id, id) WHERE webhook_id IS NOT NULL");
  db.run("CREATE UNIQUE INDEX outbox_by_message ON outbox (message_id) WHERE message_id IS NOT NULL");
  db.run("CREATE INDEX outbox_by_submission ON outbox (submission_id)");
  db.run(`CREATE TABLE outbox_attempts (
    outbox_id   INTEGER NOT NULL REFERENCES outbox(id) ON DELETE CASCADE,
    at          TEXT NOT NULL,
    status_code INTEGER,
    error       TEXT,
    duration_ms REAL NOT NULL
  ) STRICT`);
  db.run(
    "INSERT INTO outbox_attempts SELECT outbox_id, at, status_code, error, duration_ms FROM outbox_attempts_aside",
  );
  db.run("DROP TABLE outbox_attempts_aside");
  db.run("CREATE INDEX outbox_attempts_by_row ON outbox_attempts (outbox_id, at)");
}
