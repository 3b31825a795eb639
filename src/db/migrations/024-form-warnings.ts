import type { Database } from "bun:sqlite";

/** What a form's owner should know of its posts (a redirect target dropped), newest first, as JSON text. */
export function up(db: Database): void {
  db.run("ALTER TABLE forms ADD COLUMN warnings TEXT NOT NULL DEFAULT '[]'");
}
