import type { Database } from "bun:sqlite";
import { currentVersion, migrate, pendingMigrations } from "./migrate";
import { openDatabase } from "./open";
import { sqliteBackup, upgradeSnapshotPath } from "./backup";

/**
 * Opens the database and brings its schema up to date; every command goes through here.
 * Before migrating a database that already holds data, it writes a snapshot, so an upgrade
 * that goes wrong can be undone by putting the old file back with the old binary.
 */
export function openStore(path: string, notify: (message: string) => void = (m) => process.stderr.write(`${m}\n`)): Database {
  const db = openDatabase(path);
  try {
    const from = currentVersion(db);
    if (from > 0 && path !== ":memory:" && pendingMigrations(db).length > 0) {
      const snapshot = upgradeSnapshotPath(path, from);
      sqliteBackup(db).snapshot(snapshot);
      notify(`formsvc: upgrading the database schema from version ${from}; snapshot written to ${snapshot}`);
    }
    migrate(db);
  } catch (e) {
    db.close();
    throw e;
  }
  return db;
}
