import type { Database } from "bun:sqlite";

/**
 * What several instances on one database share (PostgreSQL; SQLite gets the same schema, so both
 * engines name a schema by one version). An outbox row being sent carries a lease: until
 * `lease_until` no other sender takes it, after it (its sender died mid-send) it goes back to the
 * queue. Failed logins are counted in the database, so five failures for one email are five
 * whichever instance saw them; a row per failure, deleted once it is older than the window.
 */
export function up(db: Database): void {
  db.run("ALTER TABLE outbox ADD COLUMN lease_until TEXT");
  db.run(`CREATE TABLE login_failures (
    id    TEXT PRIMARY KEY,
    scope TEXT NOT NULL CHECK (scope IN ('email', 'address')),
    name  TEXT NOT NULL,
    at    TEXT NOT NULL
  ) STRICT`);
  db.run("CREATE INDEX login_failures_by_name ON login_failures (scope, name, at)");
  db.run("CREATE INDEX login_failures_by_age ON login_failures (at)");
}
