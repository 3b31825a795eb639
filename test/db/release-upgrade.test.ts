/**
 * An upgrade from the last release keeps everything: a database as release 27's users left it
 * (test/fixtures/release-27: owners with passwords and sessions, forms, submissions with a file,
 * spam lessons, keys of each kind, a webhook and its deliveries) is put back at its schema version,
 * the current server starts on it (running every migration since), and each key and session makes
 * the reads the old server answered: the same statuses, and every value it showed still there
 * (fields added since are fine). How to make the next release's fixture: make.ts's header.
 */
import { SQL } from "bun";
import { expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { migrate } from "../../src/db/migrate";
import { migrations } from "../../src/db/migrations";
import { openDatabase } from "../../src/db/open";
import { migratePostgres } from "../../src/db/postgres/migrate";
import { postgresSql } from "../../src/db/postgres/sql";
import type { Sql } from "../../src/db/sql";
import { sqliteSql } from "../../src/db/sqlite-sql";
import { fixedClock } from "../../src/lib/clock";
import { engine, testDatabase } from "../helpers/engine";
import { startTestServer, tempDir } from "../helpers/harness";
import { type Answers, type Caller, differences, releaseConfig, replay, type Rows } from "../helpers/release-reads";

interface Fixture {
  version: number;
  /** When the old server answered: the replay's clock stands there (sessions' age, analytics' days, links' expiry). */
  at: string;
  callers: Caller[];
  rows: Rows;
  /** Each uploaded file's bytes (base64), by its key in the files folder. */
  files: Record<string, string>;
  answers: Answers;
}

/** A database at `version`, of the engine under test, holding `rows` as they were: the migrations' own rows (settings) give way to them. */
async function databaseAt(dir: string, { version, rows }: Fixture): Promise<string> {
  const db = await testDatabase(dir);
  const older = migrations.filter((m) => m.version <= version);
  let sql: Sql;
  if (engine === "postgres") {
    sql = postgresSql(new SQL({ url: db, max: 1 }));
    await migratePostgres(sql, older);
  } else {
    const file = openDatabase(db);
    migrate(file, older);
    sql = sqliteSql(file);
  }
  try {
    await sql.transaction(async () => {
      for (const table of Object.keys(rows).reverse()) await sql.run(`DELETE FROM ${table}`);
      for (const [table, list] of Object.entries(rows))
        for (const row of list) {
          const columns = Object.keys(row);
          await sql.run(
            `INSERT INTO ${table} (${columns.join(", ")}) VALUES (${columns.map((_, i) => `?${i + 1}`).join(", ")})`,
            Object.values(row) as (string | number | null)[],
          );
        }
      // PostgreSQL numbers a rowid from its own counter, which must go on past the ids put back.
      if (engine === "postgres")
        for (const { table, column } of await sql.all<{ table: string; column: string }>(
          "SELECT table_name AS table, column_name AS column FROM information_schema.columns WHERE table_schema = current_schema() AND is_identity = 'YES'",
        ))
          await sql.get(
            `SELECT setval(pg_get_serial_sequence('${table}', '${column}'), coalesce(max(${column}), 0) + 1, false) FROM ${table}`,
          );
    });
  } finally {
    await sql.close();
  }
  return db;
}

// One folder per release whose databases must upgrade (test/fixtures/release-NN, made by its make.ts).
for (const release of ["release-27"]) {
  const fixture: Fixture = JSON.parse(
    readFileSync(join(import.meta.dir, "../fixtures", release, "fixture.json"), "utf8"),
  );
  test(`a database made by ${release} (schema ${fixture.version}) upgrades keeping every row, answer and key's access`, async () => {
    const { dir, cleanup } = tempDir();
    try {
      const db = await databaseAt(dir, fixture);
      const config = releaseConfig(dir);
      for (const [key, bytes] of Object.entries(fixture.files)) {
        mkdirSync(dirname(join(config.files, key)), { recursive: true });
        writeFileSync(join(config.files, key), Buffer.from(bytes, "base64"));
      }
      const server = await startTestServer({ dir, db, clock: fixedClock(fixture.at), config });
      try {
        const [{ version }] = await server.query("SELECT max(version) AS version FROM schema_migrations");
        expect(version).toBe(migrations.at(-1)!.version);
        const lost: string[] = [];
        for (const [table, list] of Object.entries(fixture.rows)) {
          const [{ n }] = await server
            .query(`SELECT count(*) AS n FROM ${table}`)
            .catch(() => [{ n: `no table (a migration that replaces it on purpose says here where its rows went)` }]);
          if (typeof n !== "number" || n < list.length) lost.push(`${table}: ${list.length} rows, now ${n}`);
        }
        const changed = differences(fixture.answers, await replay(server, fixture.callers, fixture.rows));
        expect({ lost, changed }).toEqual({ lost: [], changed: [] });
      } finally {
        await server.close();
      }
    } finally {
      cleanup();
    }
  });
}
