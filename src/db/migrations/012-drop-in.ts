import type { Database } from "bun:sqlite";

/**
 * The drop-in forms' settings. `public_endpoint` is 0 for the forms that exist now (their owners
 * never chose to publish them at /f/); a new form is given 1 by the settings table's default.
 */
export function up(db: Database): void {
  db.run("ALTER TABLE forms ADD COLUMN public_endpoint INTEGER NOT NULL DEFAULT 0");
  db.run("ALTER TABLE forms ADD COLUMN fields TEXT");
  db.run("ALTER TABLE forms ADD COLUMN allow_extra_fields INTEGER NOT NULL DEFAULT 0");
  db.run("ALTER TABLE forms ADD COLUMN paused INTEGER NOT NULL DEFAULT 0");
  db.run("ALTER TABLE forms ADD COLUMN closes_at TEXT");
  db.run("ALTER TABLE forms ADD COLUMN max_submissions INTEGER CHECK (max_submissions IS NULL OR max_submissions > 0)");
  db.run("ALTER TABLE forms ADD COLUMN success_url TEXT");
  db.run("ALTER TABLE forms ADD COLUMN error_url TEXT");
}
