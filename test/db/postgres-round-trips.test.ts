import { SQL } from "bun";
import { describe, expect, test } from "bun:test";
import { postgresChangeFeed } from "../../src/db/change-feed";
import { openPostgresStore } from "../../src/db/postgres/store";
import { sharedTokenBuckets } from "../../src/db/shared-buckets";
import { postgresSql } from "../../src/db/postgres/sql";
import { onPostgres } from "../helpers/engine";
import { testPostgres } from "../helpers/postgres";

/** A migrated database, and two processes' change feeds on it (pools of their own), each counting its caches' resets. */
async function twoProcesses() {
  const url = await (await testPostgres()).newDatabase();
  await (await openPostgresStore(url)).close();
  const open = () => {
    const pool = new SQL({ url, max: 2 });
    const changes = postgresChangeFeed(pool);
    const proc = { pool, changes, sql: postgresSql(pool, changes), resets: 0 };
    changes.onChange(() => (proc.resets += 1));
    return proc;
  };
  const [a, b] = [open(), open()];
  await a.sql.run("CREATE TABLE notes (id INTEGER PRIMARY KEY)");
  return { a, b, close: () => Promise.all([a.pool.close(), b.pool.close()]) };
}

/** Resolves in the next event-loop turn: the change feed looks once per turn. */
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe.if(onPostgres)("round trips on PostgreSQL", () => {
  test("a transaction's commit moves the change feed in its COMMIT's round trip, and another process's next look resets its caches", async () => {
    const { a, b, close } = await twoProcesses();
    try {
      await b.changes.sync();
      await nextTurn();
      const resets = b.resets;
      await a.sql.transaction(() => a.sql.run("INSERT INTO notes (id) VALUES (1)"));
      await b.changes.sync();
      expect(b.resets).toBe(resets + 1);
      // The publishing process's own move resets nothing of its own.
      await a.changes.sync();
      await nextTurn();
      const own = a.resets;
      await a.sql.transaction(() => a.sql.run("INSERT INTO notes (id) VALUES (2)"));
      await a.changes.sync();
      expect(a.resets).toBe(own);
    } finally {
      await close();
    }
  });

  test("a transaction whose failed statement was caught is reported as failed, and wrote nothing", async () => {
    const { a, close } = await twoProcesses();
    try {
      const outcome = await a.sql
        .transaction(async () => {
          await a.sql.run("INSERT INTO notes (id) VALUES (1)");
          await a.sql.run("INSERT INTO notes (id) VALUES (1)").catch(() => {});
        })
        .then(
          () => "committed",
          (e: Error) => e.message,
        );
      expect(outcome).toMatch(/rolled back/);
      expect(await a.sql.all("SELECT id FROM notes")).toEqual([]);
    } finally {
      await close();
    }
  });

  test("a rate-limit take sent in a turn carries that turn's look: the caches reset after another process's commit, with no look of its own", async () => {
    const { a, b, close } = await twoProcesses();
    try {
      const buckets = sharedTokenBuckets(b.sql, "test", 10, 60, Date.now, b.changes.carry);
      await b.changes.sync();
      await nextTurn();
      const resets = b.resets;
      await a.sql.transaction(() => a.sql.run("INSERT INTO notes (id) VALUES (1)"));
      const take = buckets.take("key_1");
      // The take's statement holds this turn's look: a later statement of the turn may not take it.
      expect(b.changes.carry()).toBeNull();
      const synced = b.changes.sync();
      expect(synced).toBeInstanceOf(Promise);
      await synced;
      expect((await take).allowed).toBe(true);
      expect(b.resets).toBe(resets + 1);
    } finally {
      await close();
    }
  });

  test("a carried look that fails fails the turn's sync with its error, and nothing else when no request waits for it", async () => {
    const { b, close } = await twoProcesses();
    try {
      const unhandled: unknown[] = [];
      const onUnhandled = (e: unknown) => unhandled.push(e);
      process.on("unhandledRejection", onUnhandled);
      try {
        const cases = [{ synced: true }, { synced: false }];
        for (const c of cases) {
          await nextTurn();
          const look = b.changes.carry()!;
          expect(look).not.toBeNull();
          const synced = c.synced ? b.changes.sync() : undefined;
          look.fail(new Error("connection lost"));
          if (synced) await expect(synced).rejects.toThrow("connection lost");
          await nextTurn();
        }
        // The next turn looks again, by itself.
        await nextTurn();
        await b.changes.sync();
        expect(unhandled).toEqual([]);
      } finally {
        process.off("unhandledRejection", onUnhandled);
      }
    } finally {
      await close();
    }
  });
});
