import type { Database } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";

/**
 * A consistent copy of the live database (VACUUM INTO: a single read transaction, so
 * concurrent writers neither block it nor tear it).
 */
export function vacuumInto(db: Database, file: string): void {
  mkdirSync(dirname(file), { recursive: true });
  db.run("VACUUM INTO ?", [file]);
}

/** Where pre-upgrade snapshots go: `backups/` beside the database file. */
export function upgradeSnapshotPath(dbPath: string, fromVersion: number, now = new Date()): string {
  const stamp = now.toISOString().replace(/[:.]/g, "-");
  return join(dirname(dbPath), "backups", `formsvc-v${fromVersion}-${stamp}.db`);
}
