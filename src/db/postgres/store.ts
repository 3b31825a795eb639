import { SQL } from "bun";
import { redactPassword } from "../../config";
import { postgresChangeFeed } from "../change-feed";
import { sharedTokenBuckets } from "../shared-buckets";
import type { Store, StoreOptions } from "../store";
import { migratePostgres } from "./migrate";
import { postgresSql } from "./sql";

/** What `formsvc backup` says on PostgreSQL: the database has its own tools for a consistent copy. */
const PG_DUMP_HINT =
  'formsvc backup copies a SQLite file; this database is on PostgreSQL, whose own pg_dump makes a consistent copy while formsvc runs: pg_dump --format=custom --file=formsvc.dump "$FORMSVC_DB" (restore with pg_restore --dbname=URL formsvc.dump)';

// Tables that hold submitted data or copies of it: what an erasure must clean of dead rows.
const ERASED_TABLES = [
  "submissions",
  "waitlist_joiners",
  "waitlist_confirmations",
  "autoresponse_throttle",
  "outbox",
  "outbox_attempts",
  "submission_search",
];

/**
 * A store on PostgreSQL: a pool of connections through Bun's built-in client, the schema brought
 * up to date under an advisory lock, so that instances starting together do not race.
 */
export async function openPostgresStore(url: string, opts: StoreOptions = {}): Promise<Store> {
  const pool = new SQL(url, {
    max: opts.role === "server" ? 16 : 4,
    idleTimeout: 30,
    connectionTimeout: 10,
    // An acknowledgement follows a commit on disk, whatever the database's default says. (Writes to
    // the UNLOGGED rate_buckets alone write no WAL, so they commit without waiting for it.)
    connection: { synchronous_commit: "on", application_name: "formsvc" },
  });
  const changes = postgresChangeFeed(pool);
  const sql = postgresSql(pool, changes);
  try {
    await migratePostgres(sql);
  } catch (e) {
    await pool.close();
    throw new Error(`the PostgreSQL database at ${redactPassword(url)} could not be opened: ${(e as Error).message}`);
  }
  return {
    sql,
    changes,
    backup: {
      async snapshot() {
        throw new Error(PG_DUMP_HINT);
      },
    },
    // PostgreSQL keeps a deleted row in its table's pages until VACUUM reclaims them; unlike SQLite's
    // secure_delete it does not zero them, and its WAL archives and base backups (the operator's own)
    // keep history. VACUUM is what this database can do: the dead rows leave the tables.
    shredder: {
      async shred() {
        for (const table of ERASED_TABLES) await sql.run(`VACUUM ${table}`);
        // `vacuumed` says whether the whole database had to be rewritten (SQLite's one-time VACUUM); this VACUUM rewrites nothing.
        return { vacuumed: false };
      },
    },
    ping: async () => void (await sql.get("SELECT 1")),
    sharedBuckets: (table, capacity, windowSeconds, now) =>
      sharedTokenBuckets(sql, table, capacity, windowSeconds, now, changes.carry),
    async runAlone(name, fn) {
      // A session lock, held on one reserved connection while the job runs; released with it if this process dies.
      const conn = await pool.reserve();
      try {
        const [{ ok }] = await conn.unsafe("SELECT pg_try_advisory_lock(hashtext($1)) AS ok", [`formsvc:job:${name}`]);
        if (!ok) return false;
        try {
          await fn();
        } finally {
          await conn.unsafe("SELECT pg_advisory_unlock(hashtext($1))", [`formsvc:job:${name}`]);
        }
        return true;
      } finally {
        await conn.release();
      }
    },
    close: () => sql.close(),
  };
}
