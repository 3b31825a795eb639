import type { Database } from "bun:sqlite";

/**
 * The recipients' confirmation emails an owner's forms queued (each when it falls due), kept a day:
 * what their daily limits count. Apart from the forms, so that deleting one forgets nothing.
 */
export function up(db: Database): void {
  db.run(`CREATE TABLE confirmation_emails (
    owner_id TEXT NOT NULL REFERENCES owners(id) ON DELETE CASCADE,
    email    TEXT NOT NULL,
    due_at   TEXT NOT NULL
  ) STRICT`);
  db.run("CREATE INDEX confirmation_emails_by_owner ON confirmation_emails (owner_id, due_at)");
}
