import type { Step } from "../portable";

// The outbox as 013 made it, less the CHECK on `kind`.
const OUTBOX = `(
    id              INTEGER PRIMARY KEY,
    kind            TEXT NOT NULL,
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
const COLUMNS =
  "id, kind, form_id, submission_id, webhook_id, message_id, recipient, reply_to, form_name, data, payload, " +
  "submitted_at, created_at, queued_at, status, attempts, next_attempt_at, last_status, last_error, sent_at, lease_until";

/** The digests and alerts queued as `notification` take their own kinds (the same text on both engines). */
const RELABEL = [
  `UPDATE outbox SET kind = 'digest' WHERE kind = 'notification' AND payload LIKE '{"digest":%'`,
  `UPDATE outbox SET kind = CASE WHEN form_id IS NULL THEN 'backup_alert' ELSE 'webhook_alert' END
   WHERE kind = 'notification' AND payload LIKE '{"alert":%'`,
];

/**
 * Message kinds are checked in code (outbox/kinds.ts), not by a CHECK that took a table rebuild for
 * each new kind: this is the last such rebuild on SQLite, ids and attempts kept (PostgreSQL drops the
 * constraint). Digests and alerts, which rode as `notification` with `payload.digest` or
 * `payload.alert`, get kinds of their own: an alert on a form is a webhook's, one on no form a
 * failed backup's.
 */
export const steps: Step[] = [
  {
    sqlite: [
      `CREATE TABLE outbox_new ${OUTBOX}`,
      `INSERT INTO outbox_new (${COLUMNS}) SELECT ${COLUMNS} FROM outbox`,
      // Dropping the outbox would cascade to its attempts (foreign keys are on): they wait aside.
      "CREATE TABLE outbox_attempts_aside AS SELECT * FROM outbox_attempts",
      "DROP TABLE outbox_attempts",
      "DROP TABLE outbox",
      "ALTER TABLE outbox_new RENAME TO outbox",
      "CREATE INDEX outbox_unsent ON outbox (status, kind, next_attempt_at) WHERE status <> 'sent'",
      "CREATE INDEX outbox_by_form ON outbox (form_id)",
      "CREATE INDEX outbox_by_webhook ON outbox (webhook_id, id) WHERE webhook_id IS NOT NULL",
      "CREATE UNIQUE INDEX outbox_by_message ON outbox (message_id) WHERE message_id IS NOT NULL",
      "CREATE INDEX outbox_by_submission ON outbox (submission_id)",
      `CREATE TABLE outbox_attempts (
        outbox_id   INTEGER NOT NULL REFERENCES outbox(id) ON DELETE CASCADE,
        at          TEXT NOT NULL,
        status_code INTEGER,
        error       TEXT,
        duration_ms REAL NOT NULL
      ) STRICT`,
      "INSERT INTO outbox_attempts SELECT outbox_id, at, status_code, error, duration_ms FROM outbox_attempts_aside",
      "DROP TABLE outbox_attempts_aside",
      "CREATE INDEX outbox_attempts_by_row ON outbox_attempts (outbox_id, at)",
    ],
    postgres: ["ALTER TABLE outbox DROP CONSTRAINT outbox_kind_check"],
  },
  ...RELABEL,
];
