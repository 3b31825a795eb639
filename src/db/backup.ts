import { Database } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";

/** A consistent copy of the live database, safe while the server writes. */
export interface Backup {
  /** Writes the copy to `file` (folders created) and checks it; throws when the copy is not sound. */
  snapshot(file: string): Promise<void>;
}

/**
 * SQLite's backup: VACUUM INTO runs in a single read transaction, so concurrent writers neither
 * block it nor tear it; the copy then passes `PRAGMA integrity_check` or the backup fails.
 */
export function sqliteBackup(db: Database): Backup {
  return {
    async snapshot(file) {
      mkdirSync(dirname(file), { recursive: true });
      db.run("VACUUM INTO ?", [file]);
      const copy = new Database(file, { readonly: true });
      try {
        const check = copy.query<{ integrity_check: string }, []>("PRAGMA integrity_check").get()?.integrity_check;
        if (check !== "ok") throw new Error(`the copy at ${file} failed its integrity check: ${check}`);
      } finally {
        copy.close();
      }
    },
  };
}

/** Where pre-upgrade snapshots go: `backups/` beside the database file. */
export function upgradeSnapshotPath(dbPath: string, fromVersion: number, now = new Date()): string {
  const stamp = now.toISOString().replace(/[:.]/g, "-");
  return join(dirname(dbPath), "backups", `formsvc-v${fromVersion}-${stamp}.db`);
}
