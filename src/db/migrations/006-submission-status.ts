import type { Database } from "bun:sqlite";

/**
 * A status per submission: `inbox`, or `spam` (stored but counted nowhere). Every list reads one
 * status of one form, so the status joins the per-form keyset index after the form id; adding the
 * column with a default rewrites no row, the index is rebuilt (seconds per million rows).
 */
export function up(db: Database): void {
  db.run("ALTER TABLE submissions ADD COLUMN status TEXT NOT NULL DEFAULT 'inbox' CHECK (status IN ('inbox', 'spam'))");
  db.run("DROP INDEX submissions_by_form");
  db.run("CREATE INDEX submissions_by_form ON submissions (form_id, status, created_at, id)");
}
