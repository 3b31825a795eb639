import type { Database } from "bun:sqlite";

/**
 * The owner notification's settings (recipients, template, sender's display name) and the
 * recipients' confirmation links. A recipient's confirmed state is kept in the form's `recipients`
 * list; a link waiting to be opened is a row here, found by its token's hash.
 */
export function up(db: Database): void {
  db.run("ALTER TABLE forms ADD COLUMN recipients TEXT NOT NULL DEFAULT '[]'");
  db.run("ALTER TABLE forms ADD COLUMN notification_template TEXT");
  db.run("ALTER TABLE forms ADD COLUMN from_name TEXT");
  db.run(`CREATE TABLE recipient_confirmations (
    form_id    TEXT NOT NULL REFERENCES forms(id) ON DELETE CASCADE,
    email      TEXT NOT NULL,
    token_hash TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    PRIMARY KEY (form_id, email)
  ) STRICT`);
}
