import { SQL } from "bun";
import { describe, expect, test } from "bun:test";
import { onPostgres } from "../helpers/engine";
import { testPostgres } from "../helpers/postgres";

// The cluster the PostgreSQL pass of the suite runs on; the SQLite pass starts none.
describe.if(onPostgres)("the test PostgreSQL", () => {
  test("each newDatabase() is a separate, empty database on the private cluster", async () => {
    const pg = await testPostgres();
    const [urlA, urlB] = await Promise.all([pg.newDatabase(), pg.newDatabase()]);
    expect(urlA).toMatch(/^postgres:\/\/[^:]+:[^@]+@127\.0\.0\.1:\d+\/\w+$/);
    expect(urlB).not.toBe(urlA);
    const a = new SQL({ url: urlA!, max: 1 });
    const b = new SQL({ url: urlB!, max: 1 });
    try {
      const [dbA] = await a`SELECT current_database() AS name`;
      const [dbB] = await b`SELECT current_database() AS name`;
      expect(dbA.name).not.toBe(dbB.name);
      expect(await b`SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'`).toEqual([{ n: 0 }]);
      await a`CREATE TABLE only_in_a (id int)`;
      expect(await b`SELECT to_regclass('only_in_a') AS t`).toEqual([{ t: null }]);
      expect(await a`SELECT to_regclass('only_in_a')::text AS t`).toEqual([{ t: "only_in_a" }]);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  test("a committed row is read by a second connection", async () => {
    const pg = await testPostgres();
    const url = await pg.newDatabase();
    const writer = new SQL({ url, max: 1 });
    const reader = new SQL({ url, max: 1 });
    try {
      await writer`CREATE TABLE notes (id int PRIMARY KEY, body text NOT NULL)`;
      await writer.begin(async (tx) => {
        await tx`INSERT INTO notes VALUES (1, 'committed')`;
        // Not visible to another connection before the commit.
        expect(await reader`SELECT count(*)::int AS n FROM notes`).toEqual([{ n: 0 }]);
      });
      expect(await reader`SELECT id, body FROM notes`).toEqual([{ id: 1, body: "committed" }]);
      const [[w], [r]] = await Promise.all([
        writer`SELECT pg_backend_pid() AS pid`,
        reader`SELECT pg_backend_pid() AS pid`,
      ]);
      expect(r.pid).not.toBe(w.pid);
    } finally {
      await Promise.all([writer.close(), reader.close()]);
    }
  });

  test('the cluster listens on loopback only, keeps fsync on, and sorts bytewise where COLLATE "C" asks for it', async () => {
    const pg = await testPostgres();
    const admin = new SQL({ url: pg.adminUrl, max: 1 });
    try {
      expect(await admin`SELECT current_setting('listen_addresses') AS l, current_setting('fsync') AS f`).toEqual([
        { l: "127.0.0.1", f: "on" },
      ]);
      expect(await admin`SELECT 'a' < 'B' COLLATE "C" AS lower_first`).toEqual([{ lower_first: false }]);
    } finally {
      await admin.close();
    }
  });
});
