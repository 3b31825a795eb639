import type { Database } from "bun:sqlite";
import { migrations as all, type Migration } from "./migrations";

const ensureTable = (db: Database) =>
  db.run(
    "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)",
  );

/** The newest migration this database has applied; 0 for a new database. */
export function currentVersion(db: Database): number {
  ensureTable(db);
  return db.query<{ v: number | null }, []>("SELECT max(version) AS v FROM schema_migrations").get()?.v ?? 0;
}

/** Migrations this database has not applied yet, by version (not by "newer than the newest"). */
export function pendingMigrations(db: Database, migrations: Migration[] = all): Migration[] {
  ensureTable(db);
  const applied = new Set(
    db
      .query<{ version: number }, []>("SELECT version FROM schema_migrations")
      .all()
      .map((r) => r.version),
  );
  return migrations.filter((m) => !applied.has(m.version));
}

/**
 * Applies pending migrations, all in one IMMEDIATE transaction: a second process starting
 * at the same moment waits, then finds nothing left to do. Returns what was applied.
 */
export function migrate(db: Database, migrations: Migration[] = all): Migration[] {
  ensureTable(db);
  if (pendingMigrations(db, migrations).length === 0) return [];
  return db
    .transaction(() => {
      const pending = pendingMigrations(db, migrations);
      for (const m of pending) {
        m.up(db);
        db.run("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)", [
          m.version,
          m.name,
          new Date().toISOString(),
        ]);
      }
      return pending;
    })
    .immediate();
}
