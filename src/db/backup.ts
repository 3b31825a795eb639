import { Database } from "bun:sqlite";
import { dirname, join } from "node:path";
import { createPrivateFile } from "./open";

/** A consistent copy of the live database, safe while the server writes. */
export interface Backup {
  /** Writes the copy to `file` (folders created) and checks it; throws when the copy is not sound. */
  snapshot(file: string): Promise<void>;
}

/**
 * SQLite's backup: VACUUM INTO runs in a single read transaction, so concurrent writers neither
 * block it nor tear it; the copy then passes `PRAGMA integrity_check` or the backup fails. The
 * copy holds everything the database does, so it is its owner's only (0600, new folders 0700):
 * VACUUM INTO fills the empty file made for it, which keeps that mode.
 */
export function sqliteBackup(db: Database): Backup {
  return {
    async snapshot(file) {
      createPrivateFile(file);
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
