import type { Database } from "bun:sqlite";

/**
 * Drops `outbox_due` (status, next_attempt_at): `outbox_due_by_kind` serves every query it served
 * (each names a status, and the kinds are a closed set), and every claim and sent mark changes
 * `status`, so each moved the row in both indexes.
 */
export function up(db: Database): void {
  db.run("DROP INDEX outbox_due");
}
