import type { Database } from "bun:sqlite";

/** The IANA time zone an owner reads times in: emails write their times in it. */
export function up(db: Database): void {
  db.run("ALTER TABLE owners ADD COLUMN time_zone TEXT NOT NULL DEFAULT 'UTC'");
}
