import type { Database } from "bun:sqlite";

/**
 * The daily digest: a form's `notify_mode`, and one row per form and UTC day whose digest was
 * queued. Its primary key is what makes the digest once per form and day, whichever instance (or
 * second run) gets there first.
 */
export function up(db: Database): void {
  db.run(
    "ALTER TABLE forms ADD COLUMN notify_mode TEXT NOT NULL DEFAULT 'each' CHECK (notify_mode IN ('each', 'daily'))",
  );
  db.run(`CREATE TABLE notification_digests (
    form_id     TEXT NOT NULL REFERENCES forms(id) ON DELETE CASCADE,
    day         TEXT NOT NULL,
    submissions INTEGER NOT NULL,
    created_at  TEXT NOT NULL,
    PRIMARY KEY (form_id, day)
  ) STRICT`);
}
