import { afterAll, expect, test } from "bun:test";
import { CHANGE_KINDS, writtenKinds, type ChangeKind } from "../../src/db/change-feed";
import { openStore, type Store } from "../../src/db/store";
import { testPostgres } from "../helpers/postgres";

test("a statement is classed by the tables it writes, an unknown table or a schema change moving every kind", () => {
  const cases: { sql: string; kinds: readonly ChangeKind[] }[] = [
    { sql: "SELECT * FROM api_keys WHERE hash = ?", kinds: [] },
    { sql: "SELECT * FROM forms WHERE id = ? FOR UPDATE", kinds: [] },
    { sql: "SELECT * FROM forms WHERE id = ? FOR NO KEY UPDATE", kinds: [] },
    { sql: "INSERT INTO submissions (id) VALUES (?)", kinds: ["submissions"] },
    {
      sql: "INSERT INTO form_daily_counts (form_id) VALUES (?) ON CONFLICT (form_id) DO UPDATE SET count = count + 1",
      kinds: ["submissions"],
    },
    { sql: "UPDATE api_keys SET last_used_at = ? WHERE id = ?", kinds: ["keys"] },
    { sql: "update spam_tokens set spam = spam + 1", kinds: ["spam"] },
    { sql: "DELETE FROM forms WHERE id = ?", kinds: ["forms", "submissions"] },
    { sql: "INSERT INTO audit_events (id) VALUES (?)", kinds: [] },
    {
      sql: "WITH gone AS (DELETE FROM sessions WHERE owner_id = ? RETURNING 1) SELECT count(*) FROM gone",
      kinds: ["keys"],
    },
    { sql: "DELETE FROM owners WHERE id = ?", kinds: CHANGE_KINDS },
    { sql: "INSERT INTO some_new_table (id) VALUES (?)", kinds: CHANGE_KINDS },
    { sql: "ALTER TABLE forms ADD COLUMN x integer", kinds: CHANGE_KINDS },
  ];
  for (const c of cases)
    expect({ sql: c.sql, kinds: [...writtenKinds(c.sql)].sort() }).toEqual({ sql: c.sql, kinds: [...c.kinds].sort() });
});

const stores: Store[] = [];
afterAll(async () => {
  for (const s of stores.splice(0)) await s.close();
});

test("on PostgreSQL another process's commit resets only the caches that read what it wrote, and a process's own commits none", async () => {
  const url = await (await testPostgres()).newDatabase();
  const a = await openStore(url);
  stores.push(a);
  const b = await openStore(url);
  stores.push(b);
  const reset = new Set<string>();
  const listeners: { name: string; kinds?: ChangeKind[] }[] = [
    { name: "keys", kinds: ["keys"] },
    { name: "spam", kinds: ["spam"] },
    { name: "forms", kinds: ["forms", "submissions"] },
    { name: "everything" },
  ];
  for (const l of listeners) b.changes.onChange(() => reset.add(l.name), l.kinds);
  const nextTurn = () => new Promise((r) => setImmediate(r));
  await b.changes.sync();
  await nextTurn();
  // Each statement changes no row: a transaction that ran it still publishes its kinds.
  const cases: { by: Store; sql: string; reset: string[] }[] = [
    {
      by: a,
      sql: "UPDATE form_count_deltas SET submissions = submissions WHERE false",
      reset: ["forms", "everything"],
    },
    { by: a, sql: "UPDATE api_keys SET name = name WHERE false", reset: ["keys", "everything"] },
    { by: a, sql: "UPDATE spam_filters SET spam = spam WHERE false", reset: ["spam", "everything"] },
    { by: a, sql: "UPDATE forms SET name = name WHERE false", reset: ["forms", "everything"] },
    { by: a, sql: "UPDATE owners SET email = email WHERE false", reset: ["keys", "spam", "forms", "everything"] },
    { by: a, sql: "SELECT count(*) FROM submissions", reset: [] },
    { by: b, sql: "UPDATE owners SET email = email WHERE false", reset: [] },
  ];
  for (const c of cases) {
    reset.clear();
    await c.by.sql.transaction(() => c.by.sql.run(c.sql));
    await b.changes.sync();
    await nextTurn();
    expect({ sql: c.sql, reset: [...reset].sort() }).toEqual({ sql: c.sql, reset: [...c.reset].sort() });
  }
});
