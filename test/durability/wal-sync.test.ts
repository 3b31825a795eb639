import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { join } from "node:path";
import { openDatabase } from "../../src/db/open";
import { sqliteSql } from "../../src/db/sqlite-sql";
import { openStore } from "../../src/db/store";
import { walSync } from "../../src/db/wal-sync";
import { onSqlite } from "../helpers/engine";
import { tempDir } from "../helpers/harness";

// The server's SQLite connection commits with synchronous = NORMAL and answers a writer only after
// its own sync of the write-ahead log (wal-sync.ts): FULL's durability, off the event loop.

/** A sync that finishes when the test says so, counting how often it was asked for. */
function heldSync() {
  const held: (() => void)[] = [];
  return {
    calls: () => held.length,
    sync: () => new Promise<void>((resolve) => held.push(resolve)),
    release: () => held.splice(0).forEach((r) => r()),
  };
}

const settled = async (p: Promise<unknown>) => {
  let done = false;
  void p.then(
    () => (done = true),
    () => (done = true),
  );
  for (let i = 0; i < 5; i++) await Promise.resolve();
  await Bun.sleep(5);
  return done;
};

test.if(onSqlite)(
  "a committed transaction and a write outside one are answered only after the log's sync; reads never wait for one",
  async () => {
    const { dir, cleanup } = tempDir();
    try {
      const db = openDatabase(join(dir, "t.db"));
      db.run("CREATE TABLE t (v TEXT)");
      const barrier = heldSync();
      const sql = sqliteSql(db, barrier.sync);

      const tx = sql.transaction(async () => {
        await sql.run("INSERT INTO t VALUES ('a')");
        return "done";
      });
      expect(await settled(tx)).toBe(false);
      expect(barrier.calls()).toBe(1);
      // Committed already: another statement runs while the sync is on the disk.
      expect(await sql.get<{ n: number }>("SELECT count(*) AS n FROM t")).toEqual({ n: 1 });
      barrier.release();
      expect(await tx).toBe("done");

      const update = sql.all("UPDATE t SET v = 'b' RETURNING v");
      expect(await settled(update)).toBe(false);
      barrier.release();
      expect(await update).toEqual([{ v: "b" }]);

      // Nothing changed: nothing to wait for.
      expect(await sql.run("UPDATE t SET v = 'c' WHERE v = 'zzz'")).toBe(0);
      expect(await sql.transaction(async () => sql.all("SELECT v FROM t"))).toEqual([{ v: "b" }]);
      const failed = sql.transaction(async () => {
        await sql.run("INSERT INTO t VALUES ('rolled back')");
        throw new Error("no");
      });
      await expect(failed).rejects.toThrow("no");
      expect(barrier.calls()).toBe(0);
      await sql.close();
    } finally {
      cleanup();
    }
  },
);

test.if(onSqlite)(
  "a lazy transaction (the outbox's claims and sent marks) is answered at COMMIT without a sync; the next writer's sync covers it, or one of its own within 200 ms",
  async () => {
    const { dir, cleanup } = tempDir();
    try {
      const db = openDatabase(join(dir, "t.db"));
      db.run("CREATE TABLE t (v TEXT)");
      const barrier = heldSync();
      const sql = sqliteSql(db, barrier.sync);

      const lazy = sql.transaction(async () => sql.run("INSERT INTO t VALUES ('lazy')"), { lazy: true });
      expect(await settled(lazy)).toBe(true);
      expect(await lazy).toBe(1);
      expect(barrier.calls()).toBe(0);
      // Its changes are not waited for again by a read, nor by a transaction that writes nothing.
      expect(await settled(sql.get("SELECT count(*) AS n FROM t"))).toBe(true);
      expect(await settled(sql.transaction(async () => sql.all("SELECT v FROM t")))).toBe(true);
      expect(barrier.calls()).toBe(0);
      // The next writer waits for a sync, which makes the whole log durable, the lazy commit with it.
      const durable = sql.transaction(async () => sql.run("INSERT INTO t VALUES ('durable')"));
      expect(await settled(durable)).toBe(false);
      expect(barrier.calls()).toBe(1);
      barrier.release();
      await durable;
      expect(await sql.all("SELECT v FROM t ORDER BY v")).toEqual([{ v: "durable" }, { v: "lazy" }]);
      // With no writer after it, a lazy commit gets a sync of its own within 200 ms, waited for by no one.
      await sql.transaction(async () => sql.run("INSERT INTO t VALUES ('alone')"), { lazy: true });
      expect(barrier.calls()).toBe(0);
      await Bun.sleep(300);
      expect(barrier.calls()).toBe(1);
      barrier.release();
      await sql.close();
    } finally {
      cleanup();
    }
  },
);

test.if(onSqlite)(
  "the log's sync coalesces: callers during one sync share the next, which starts after it",
  async () => {
    const { dir, cleanup } = tempDir();
    try {
      const file = join(dir, "t.db");
      const db = new Database(file);
      db.run("PRAGMA journal_mode = WAL");
      db.run("CREATE TABLE t (v TEXT)");
      const log = walSync(file);
      const first = log.sync();
      const [second, third] = [log.sync(), log.sync()];
      expect(second).toBe(third);
      expect(second).not.toBe(first);
      await Promise.all([first, second]);
      // Idle again: a new call starts its own.
      const fourth = log.sync();
      expect(fourth).not.toBe(second);
      await fourth;
      await log.close();
      db.close();
    } finally {
      cleanup();
    }
  },
);

test.if(onSqlite)(
  "the server's connection commits with synchronous = NORMAL (its sync is its own); commands keep FULL",
  async () => {
    const { dir, cleanup } = tempDir();
    try {
      const file = join(dir, "formsvc.db");
      const server = await openStore(file, { role: "server" });
      expect(await server.sql.get("PRAGMA synchronous")).toEqual({ synchronous: 1 });
      await server.sql.run("INSERT INTO settings (key, value) VALUES ('wal-sync-test', 'x')");
      const command = await openStore(file, { role: "command" });
      expect(await command.sql.get("PRAGMA synchronous")).toEqual({ synchronous: 2 });
      expect(await command.sql.get("SELECT value FROM settings WHERE key = 'wal-sync-test'")).toEqual({ value: "x" });
      await command.close();
      await server.close();
    } finally {
      cleanup();
    }
  },
);
