import type { Database } from "bun:sqlite";

/**
 * The outbox's due rows by kind: a claim reads only the kinds its transport sends, oldest first,
 * and stops after the rows it takes. On (status, next_attempt_at) alone it read past every due row
 * of the other kinds (100,000 queued notifications with no SMTP configured, on every webhook claim).
 */
export function up(db: Database): void {
  db.run("CREATE INDEX outbox_due_by_kind ON outbox (status, kind, next_attempt_at)");
}
