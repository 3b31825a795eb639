import type { Database } from "bun:sqlite";
import { isDatabaseBusy } from "./busy";
import { mergeSearchIndex } from "./full-text";

/** Makes content deleted so far unrecoverable from the database's files; run after the deleting commit. */
export interface Shredder {
  /** Resolves once no file of the database holds deleted content; says whether it had to rewrite the whole file. */
  shred(): Promise<{ vacuumed: boolean }>;
}

/** The setting migration 010 leaves on a database that held submissions before secure_delete was on. */
const LEGACY = "vacuum_before_shred";

/**
 * SQLite: every connection runs with `secure_delete` (open.ts), so a deleted row, a deleted index
 * entry and a freed page are overwritten with zeros in the database's pages. What still holds the
 * old content is the write-ahead log (earlier versions of those pages, and stale frames past its
 * end): a TRUNCATE checkpoint copies the newest versions into the database file and cuts the log
 * to nothing. A database written before secure_delete was on still has old rows in its free space:
 * its first shred VACUUMs it, once (the whole file is rewritten; other processes' writes wait).
 * FTS5's search index keeps a deleted entry's words in its segments until they are merged: the shred
 * merges them all into one first (a rewrite of the index, seconds at a million submissions).
 * The checkpoint needs a moment without readers of older snapshots; it is retried up to `maxWaitMs`.
 */
export function sqliteShredder(db: Database, maxWaitMs = 30_000): Shredder {
  const legacy = () => db.query("SELECT 1 FROM settings WHERE key = ?").get(LEGACY) !== null;
  const checkpoint = () => db.query<{ busy: number }, []>("PRAGMA wal_checkpoint(TRUNCATE)").get()!.busy === 0;
  const attempt = (fn: () => boolean) => {
    try {
      return fn();
    } catch (e) {
      if (isDatabaseBusy(e)) return false;
      throw e;
    }
  };
  const untilDone = async (step: () => boolean, started: number) => {
    for (let wait = 10; !attempt(step); wait = Math.min(wait * 2, 500)) {
      if (performance.now() - started > maxWaitMs) {
        throw new Error(
          "the deletion is committed, but another process kept the database busy, so its files may still hold the deleted data; run the command again",
        );
      }
      await Bun.sleep(wait);
    }
  };
  return {
    async shred() {
      const started = performance.now();
      const vacuumed = legacy();
      if (vacuumed) {
        await untilDone(() => (db.run("VACUUM"), true), started);
        db.run("DELETE FROM settings WHERE key = ?", [LEGACY]);
      }
      // The search index deletes by marking: an erased submission's words stay in its segments until they are merged.
      await untilDone(() => (mergeSearchIndex(db), true), started);
      await untilDone(checkpoint, started);
      return { vacuumed };
    },
  };
}

/** For migration 010: a database that already holds submissions was written without secure_delete. */
export function markLegacyResidue(db: Database): void {
  db.run("INSERT INTO settings (key, value) SELECT ?, '1' WHERE EXISTS (SELECT 1 FROM submissions)", [LEGACY]);
}
