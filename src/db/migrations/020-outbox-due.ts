import type { Database } from "bun:sqlite";

/**
 * The outbox's two status indexes become one partial index of the rows not sent. Every claim and
 * every sent mark changes `status`: each moved the row in both `outbox_due` (status,
 * next_attempt_at) and `outbox_due_by_kind` (status, kind, next_attempt_at); now a claim moves it
 * in one, and a sent mark only takes it out. Sent rows, most of the table, are in none: every query
 * of the old two names a status other than `sent` (the kinds are a closed set, so by kind serves
 * the queries across kinds).
 */
export function up(db: Database): void {
  db.run("DROP INDEX outbox_due");
  db.run("DROP INDEX outbox_due_by_kind");
  db.run("CREATE INDEX outbox_unsent ON outbox (status, kind, next_attempt_at) WHERE status <> 'sent'");
}
