/**
 * The one switch between the engines the suite runs on: `FORMSVC_TEST_ENGINE=postgres` runs every
 * test against a database on the private test PostgreSQL (postgres.ts); unset or `sqlite`, against
 * a SQLite file in the test's temp folder. `npm test` runs the suite once with each.
 */
import { join } from "node:path";
import { testPostgres } from "./postgres";

export type TestEngine = "sqlite" | "postgres";

function chosenEngine(): TestEngine {
  const value = process.env.FORMSVC_TEST_ENGINE ?? "sqlite";
  if (value === "sqlite" || value === "postgres") return value;
  throw new Error(`FORMSVC_TEST_ENGINE must be sqlite or postgres, not ${JSON.stringify(value)}`);
}

/** The engine this run of the suite tests. */
export const engine: TestEngine = chosenEngine();

/** True on the SQLite pass: for `describe.if`/`test.if` around tests about SQLite itself. */
export const onSqlite = engine === "sqlite";

/** True on the PostgreSQL pass. */
export const onPostgres = engine === "postgres";

/**
 * A new, empty database for one test, where `--db` / `FORMSVC_DB` can take it: the SQLite file
 * `file` in `dir` (not created yet), or a fresh database on the test PostgreSQL (a `postgres://` URL).
 */
export async function testDatabase(dir: string, file = "formsvc.db"): Promise<string> {
  if (engine === "postgres") return (await testPostgres()).newDatabase();
  return join(dir, file);
}
