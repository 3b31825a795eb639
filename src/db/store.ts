import type { Database } from "bun:sqlite";
import { isPostgresUrl } from "../config";
import { sqliteBackup, upgradeSnapshotPath, type Backup } from "./backup";
import { sqliteChangeFeed, type ChangeFeed } from "./change-feed";
import { currentVersion, migrate, pendingMigrations } from "./migrate";
import { openDatabase } from "./open";
import { openPostgresStore } from "./postgres/store";
import { sqliteShredder, type Shredder } from "./shred";
import type { Buckets } from "../lib/token-bucket";
import type { Sql } from "./sql";
import { sqliteSql } from "./sqlite-sql";
import { walSync } from "./wal-sync";

/** One database and what the engine holding it offers beside statements. */
export interface Store {
  readonly sql: Sql;
  /** Tells caches that another process committed. */
  readonly changes: ChangeFeed;
  readonly backup: Backup;
  readonly shredder: Shredder;
  /** Answers at once while the database is reachable (health checks). */
  ping(): Promise<void>;
  /**
   * Runs a scheduled job unless another process on the same database is running it now (several
   * instances on one PostgreSQL database run each job once); resolves with whether it ran.
   */
  runAlone(name: string, fn: () => Promise<void>): Promise<boolean>;
  /**
   * Rate-limit buckets every instance on the database shares; undefined where one process serves
   * the database (SQLite), which keeps them in memory.
   */
  readonly sharedBuckets?: (table: string, capacity: number, windowSeconds: number, now: () => number) => Buckets;
  /** Ends the store's use: flushes what the engine keeps in memory, then closes its connections. */
  close(): Promise<void>;
}

export interface StoreOptions {
  /**
   * `server`: the long-running process. Its event loop serves everyone, so no statement may wait
   * inside the engine for another process's write lock: writes that find it taken fail at once as
   * busy and are tried again on a timer (group-commit.ts, busy.ts). `command`: a CLI command waits.
   */
  role?: "server" | "command";
  notify?: (message: string) => void;
}

/**
 * Opens the database and brings its schema up to date; every command goes through here.
 * Before migrating a database that already holds data, it writes a snapshot, so an upgrade
 * that goes wrong can be undone by putting the old file back with the old binary.
 */
export async function openStore(location: string, opts: StoreOptions = {}): Promise<Store> {
  if (isPostgresUrl(location)) return openPostgresStore(location, opts);
  const { role = "command", notify = (m) => process.stderr.write(`${m}\n`) } = opts;
  const db = openDatabase(location, notify);
  try {
    const from = currentVersion(db);
    if (from > 0 && location !== ":memory:" && pendingMigrations(db).length > 0) {
      const snapshot = upgradeSnapshotPath(location, from);
      await sqliteBackup(db).snapshot(snapshot);
      notify(`formsvc: upgrading the database schema from version ${from}; snapshot written to ${snapshot}`);
    }
    migrate(db);
  } catch (e) {
    db.close();
    throw e;
  }
  if (role !== "server" || location === ":memory:") return sqliteStore(db);
  db.run("PRAGMA busy_timeout = 0");
  // FULL's sync of the log after each commit, made off the event loop (wal-sync.ts): no less durable.
  db.run("PRAGMA synchronous = NORMAL");
  return sqliteStore(db, walSync(location));
}

function sqliteStore(db: Database, log?: ReturnType<typeof walSync>): Store {
  const sql = sqliteSql(db, log?.sync);
  const ping = db.query("SELECT 1");
  return {
    sql,
    changes: sqliteChangeFeed(db),
    backup: sqliteBackup(db),
    shredder: sqliteShredder(db),
    ping: async () => void ping.get(),
    // One server per file: nothing else runs its jobs.
    runAlone: async (_name, fn) => (await fn(), true),
    async close() {
      // Leaves a lone database file behind, the write-ahead log folded into it (after any open transaction).
      await sql.get("PRAGMA wal_checkpoint(TRUNCATE)").catch(() => {});
      await sql.close();
      await log?.close();
    },
  };
}
