import { SQL } from "bun";
import type { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { migrations } from "../../src/db/migrations";
import { POSTGRES_ONLY_TABLES } from "../../src/db/postgres/schema";
import { migratePostgres } from "../../src/db/postgres/migrate";
import { CHANGE_KINDS, changeSequence } from "../../src/db/change-feed";
import { migrate } from "../../src/db/migrate";
import { openDatabase } from "../../src/db/open";
import { openStore } from "../../src/db/store";
import { translateForPostgres } from "../../src/db/postgres/sql";
import { onPostgres } from "../helpers/engine";
import { tempDir } from "../helpers/harness";
import { testPostgres } from "../helpers/postgres";
import { DEMO_MIGRATION } from "../helpers/demo-migration";

// A fresh SQLite database and a fresh PostgreSQL one, each migrated by its engine's runner: the
// baseline and the migrations after it, and a test-only one written once (DEMO_MIGRATION), whose
// PostgreSQL form is derived, so every comparison below covers the derivation too.
const withDemo = [...migrations, DEMO_MIGRATION];
let lite: Database;
let pg: SQL;
let cleanup: () => void;

/** A statement as the PostgreSQL engine's Sql runs it. */
const numbered = (text: string) => translateForPostgres(text).text;

// Compares both engines' schemas, so it needs the test PostgreSQL: it runs in the PostgreSQL pass of the suite.
describe.if(onPostgres)("the PostgreSQL schema beside the SQLite one", () => {
  beforeAll(async () => {
    const dir = tempDir();
    cleanup = dir.cleanup;
    lite = openDatabase(join(dir.dir, "formsvc.db"));
    migrate(lite, withDemo);
    const url = await (await testPostgres()).newDatabase();
    const store = await openStore(url);
    await migratePostgres(store.sql, withDemo);
    await store.close();
    pg = new SQL({ url, max: 2 });
  });

  afterAll(async () => {
    lite?.close();
    await pg?.close();
    cleanup?.();
  });

  interface LiteColumn {
    name: string;
    type: string;
    notnull: number;
    dflt_value: string | null;
    pk: number;
  }

  const liteTables = () =>
    lite
      .query<{ name: string }, []>(
        "SELECT name FROM pragma_table_list WHERE schema = 'main' AND type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
      )
      .all()
      .map((r) => r.name);
  const liteColumns = (table: string) => lite.query<LiteColumn, []>(`PRAGMA table_info(${table})`).all();
  const pgColumns = (table: string) =>
    pg`SELECT column_name AS name, data_type AS type, is_nullable = 'NO' AS notnull, column_default AS dflt, is_identity = 'YES' AS identity, collation_name AS collation
       FROM information_schema.columns WHERE table_schema = 'public' AND table_name = ${table} ORDER BY ordinal_position`;

  test("both engines record the same migrations", async () => {
    const versions = await pg`SELECT version FROM schema_migrations ORDER BY version`;
    expect(versions.map((r: { version: number }) => r.version)).toEqual(withDemo.map((m) => m.version));
  });

  test("every kind of change has its sequence", async () => {
    const sequences =
      await pg`SELECT relname FROM pg_class WHERE relkind = 'S' AND relname LIKE 'formsvc_changes_%' ORDER BY relname`;
    expect(sequences.map((r: { relname: string }) => r.relname)).toEqual(CHANGE_KINDS.map(changeSequence).sort());
  });

  test("the same tables, with the same columns in the same order", async () => {
    const tables =
      await pg`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name`;
    expect(
      tables.map((t: { name: string }) => t.name).filter((t: string) => !POSTGRES_ONLY_TABLES.includes(t)),
    ).toEqual(liteTables());
    for (const table of liteTables()) {
      const names = (await pgColumns(table)).map((c: { name: string }) => c.name);
      expect({ table, columns: names }).toEqual({ table, columns: liteColumns(table).map((c) => c.name) });
    }
  });

  test("each column has its type's counterpart, its NOT NULL, its default, and text collates bytewise as in SQLite", async () => {
    const counterpart: Record<string, string> = { INTEGER: "integer", TEXT: "text", REAL: "double precision" };
    for (const table of liteTables()) {
      const theirs = liteColumns(table);
      // A single INTEGER PRIMARY KEY is SQLite's rowid; the schema_migrations version is given by the runner.
      const rowid =
        theirs.filter((c) => c.pk > 0).length === 1 &&
        theirs.some((c) => c.pk === 1 && c.type === "INTEGER") &&
        table !== "schema_migrations";
      const ours = await pgColumns(table);
      for (const [i, c] of theirs.entries()) {
        const o = ours[i];
        const expected = {
          table,
          name: c.name,
          type: counterpart[c.type],
          notnull: c.notnull === 1 || c.pk > 0,
          dflt: c.dflt_value,
          identity: rowid && c.pk === 1,
          // The runner makes schema_migrations itself before anything else, in the database's
          // collation (as every release has); its names are never compared or sorted.
          collation: c.type === "TEXT" && table !== "schema_migrations" ? "C" : null,
        };
        expect({
          table,
          name: o.name,
          type: o.type,
          notnull: o.notnull,
          dflt: o.dflt?.replace(/::text$/, "") ?? null,
          identity: o.identity,
          collation: o.collation,
        }).toEqual(expected);
      }
    }
  });

  test("the same foreign keys, with their cascades", async () => {
    const theirs = liteTables().flatMap((table) =>
      lite
        .query<{ table: string; from: string; to: string; on_delete: string }, []>(`PRAGMA foreign_key_list(${table})`)
        .all()
        .map((fk) => `${table}.${fk.from} -> ${fk.table}.${fk.to} ON DELETE ${fk.on_delete}`),
    );
    const ours = await pg`
      SELECT c.conrelid::regclass::text || '.' || a.attname || ' -> ' || c.confrelid::regclass::text || '.' || fa.attname || ' ON DELETE ' ||
             CASE c.confdeltype WHEN 'c' THEN 'CASCADE' WHEN 'a' THEN 'NO ACTION' WHEN 'n' THEN 'SET NULL' WHEN 'r' THEN 'RESTRICT' ELSE 'SET DEFAULT' END AS fk
      FROM pg_constraint c
      JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
      JOIN pg_attribute fa ON fa.attrelid = c.confrelid AND fa.attnum = c.confkey[1]
      WHERE c.contype = 'f' AND cardinality(c.conkey) = 1`;
    expect(
      ours
        .map((r: { fk: string }) => r.fk)
        .filter((fk: string) => !POSTGRES_ONLY_TABLES.includes(fk.split(".")[0]!))
        .sort(),
    ).toEqual(theirs.sort());
  });

  test("as many CHECK constraints per table", async () => {
    for (const table of liteTables()) {
      const sql = lite.query<{ sql: string }, [string]>("SELECT sql FROM sqlite_master WHERE name = ?").get(table)!.sql;
      const [ours] =
        await pg`SELECT count(*)::int AS n FROM pg_constraint WHERE contype = 'c' AND conrelid = ${table}::regclass`;
      expect({ table, checks: ours.n }).toEqual({ table, checks: sql.match(/\bCHECK \(/g)?.length ?? 0 });
    }
  });

  test("every SQLite index exists under its name with the same definition, and every automatic one as a unique index on its columns", async () => {
    const pgIndexes = new Map<string, string>(
      (await pg`SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public'`).map(
        (r: { indexname: string; indexdef: string }) => [r.indexname, r.indexdef],
      ),
    );
    // PostgreSQL's text of an index, written as SQLite's: no schema, no USING btree, no parentheses around a WHERE.
    const asSqlite = (def: string) =>
      def
        .replace(" ON public.", " ON ")
        .replace(" USING btree", "")
        .replace(/ WHERE \((.*)\)$/, " WHERE $1")
        // PostgreSQL spells a string constant in a partial index's condition with its type.
        .replace(/('[^']*')::text/g, "$1");
    for (const table of liteTables()) {
      for (const index of lite
        .query<{ name: string; unique: number; origin: string }, []>(`PRAGMA index_list(${table})`)
        .all()) {
        const columns = lite
          .query<{ name: string }, []>(`PRAGMA index_info(${index.name})`)
          .all()
          .map((c) => c.name);
        if (index.name.startsWith("sqlite_autoindex_")) {
          const name = index.origin === "pk" ? `${table}_pkey` : `${table}_${columns.join("_")}_key`;
          expect({ index: index.name, def: pgIndexes.get(name) }).toEqual({
            index: index.name,
            def: `CREATE UNIQUE INDEX ${name} ON public.${table} USING btree (${columns.join(", ")})`,
          });
        } else {
          const sql = lite
            .query<{ sql: string }, [string]>("SELECT sql FROM sqlite_master WHERE name = ?")
            .get(index.name)!.sql;
          expect({ index: index.name, def: asSqlite(pgIndexes.get(index.name) ?? "missing") }).toEqual({
            index: index.name,
            def: sql,
          });
        }
      }
    }
  });

  test("settings are seeded with the same keys as the SQLite migrations seed, each a fresh 32-byte secret", async () => {
    const theirs = lite.query<{ key: string; value: string }, []>("SELECT key, value FROM settings ORDER BY key").all();
    const ours = await pg`SELECT key, value FROM settings ORDER BY key`;
    expect(ours.map((r: { key: string }) => r.key)).toEqual(theirs.map((r) => r.key));
    for (const r of [...ours, ...theirs]) expect(r.value).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(new Set(ours.map((r: { value: string }) => r.value)).size).toBe(ours.length);
  });

  test("the same SQL text returns the same JS values from both engines, in the same order", async () => {
    const writes: [string, unknown[]][] = [
      [
        "INSERT INTO owners (id, email, created_at) VALUES (?, ?, ?)",
        ["own_1", "o@example.com", "2026-01-01T00:00:00.000Z"],
      ],
      [
        "INSERT INTO forms (id, owner_id, name, form_type, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?5)",
        ["frm_1", "own_1", "Contact", "contact", "2026-01-01T00:00:00.000Z"],
      ],
      // Ids and times that sort differently bytewise than in most languages' collations.
      ...["sub_a", "sub_B", "sub_Z", "sub_b", "sub_1"].map((id, i): [string, unknown[]] => [
        "INSERT INTO submissions (id, form_id, data, email, created_at) VALUES (?, ?, ?, ?, ?)",
        [
          id,
          "frm_1",
          JSON.stringify({ n: i }),
          i % 2 ? null : `${id}@example.com`,
          `2026-01-0${(i % 2) + 2}T00:00:00.000Z`,
        ],
      ]),
      [
        "INSERT INTO outbox (kind, form_id, submission_id, recipient, form_name, data, submitted_at, created_at, queued_at, next_attempt_at) VALUES ('notification', ?1, ?2, ?3, ?4, ?5, ?6, ?6, ?6, ?6)",
        ["frm_1", "sub_a", "o@example.com", "Contact", "{}", "2026-01-02T00:00:00.000Z"],
      ],
      [
        "INSERT INTO outbox_attempts (outbox_id, at, status_code, error, duration_ms) VALUES (?, ?, ?, ?, ?)",
        [1, "2026-01-02T00:00:01.000Z", null, "timeout", 12.5],
      ],
      [
        "INSERT INTO form_daily_counts (form_id, dimension, day, value, count) VALUES (?, 'country', ?, ?, ?)",
        ["frm_1", "2026-01-02", "de", 3],
      ],
      [
        "INSERT INTO form_daily_counts (form_id, dimension, day, value, count) VALUES (?, 'country', ?, ?, ?)",
        ["frm_1", "2026-01-02", "US", 3],
      ],
    ];
    for (const [text, params] of writes) {
      lite.query(text).run(...(params as never[]));
      await pg.unsafe(numbered(text), params);
    }
    const reads: [string, unknown[]][] = [
      ["SELECT * FROM owners", []],
      ["SELECT * FROM forms", []],
      ["SELECT * FROM submissions WHERE form_id = ? ORDER BY created_at, id", ["frm_1"]],
      [
        "SELECT id, created_at FROM submissions WHERE form_id = ?1 AND (created_at, id) > (?2, ?3) ORDER BY created_at DESC, id DESC",
        ["frm_1", "2026-01-02T00:00:00.000Z", "sub_B"],
      ],
      ["SELECT min(id) AS lo, max(id) AS hi FROM submissions", []],
      ["SELECT * FROM outbox", []],
      ["SELECT * FROM outbox_attempts", []],
      [
        "SELECT value, count FROM form_daily_counts WHERE form_id = ? GROUP BY value, count ORDER BY count DESC, value ASC",
        ["frm_1"],
      ],
      ["SELECT count(*) AS n FROM submissions WHERE email IS NOT NULL", []],
    ];
    for (const [text, params] of reads) {
      const theirs = lite.query<Record<string, unknown>, never[]>(text).all(...(params as never[]));
      // count(*) is int8, which Bun.sql returns as a string ("1"): the engine's Sql turns it into a number; here we do.
      const ours: Record<string, unknown>[] = [...(await pg.unsafe(numbered(text), params))].map(
        (row: Record<string, unknown>) => (text.includes("count(*)") ? { n: Number(row.n) } : { ...row }),
      );
      expect({ text, rows: ours }).toEqual({ text, rows: theirs });
    }
  });
});

describe.if(onPostgres)("a PostgreSQL database made by an earlier version", () => {
  test("gains the change feed's sequence per kind, and keeps the one sequence that instances of the last version still read", async () => {
    const url = await (await testPostgres()).newDatabase();
    await (await openStore(url)).close();
    // The database as version 20 left it: one sequence, and no migration 21.
    const pg = new SQL({ url, max: 1 });
    try {
      for (const kind of CHANGE_KINDS) await pg.unsafe(`DROP SEQUENCE ${changeSequence(kind)}`);
      await pg.unsafe("CREATE SEQUENCE formsvc_changes");
      await pg.unsafe("DELETE FROM schema_migrations WHERE version = 21");
      await (await openStore(url)).close();
      const sequences = (
        await pg.unsafe(
          "SELECT relname FROM pg_class WHERE relkind = 'S' AND relname LIKE 'formsvc_changes%' ORDER BY relname",
        )
      ).map((r: { relname: string }) => r.relname);
      expect(sequences).toEqual(["formsvc_changes", ...CHANGE_KINDS.map(changeSequence)].sort());
      // An instance of the last version goes on looking and publishing.
      await pg.unsafe("SELECT nextval('formsvc_changes')");
      expect((await pg.unsafe("SELECT last_value FROM formsvc_changes"))[0].last_value).toBe("1");
      expect((await pg.unsafe("SELECT max(version) AS v FROM schema_migrations"))[0].v).toBe(
        migrations.at(-1)!.version,
      );
    } finally {
      await pg.close();
    }
  });

  test("made before the forms' warnings, gains them through migration 24's derived form; one that has them runs nothing again", async () => {
    const url = await (await testPostgres()).newDatabase();
    await (await openStore(url)).close();
    const pg = new SQL({ url, max: 1 });
    const warnings = () =>
      pg.unsafe(
        "SELECT data_type AS type, collation_name AS collation, is_nullable AS nullable, column_default AS dflt FROM information_schema.columns WHERE table_name = 'forms' AND column_name = 'warnings'",
      );
    try {
      const made = [...(await warnings())];
      expect(made).toEqual([{ type: "text", collation: "C", nullable: "NO", dflt: "'[]'::text" }]);
      // The database as version 23 left it (the last baseline held 24's column; a new one is made as 23 then runs 24).
      await pg.unsafe("ALTER TABLE forms DROP COLUMN warnings");
      await pg.unsafe("DELETE FROM schema_migrations WHERE version = 24");
      await (await openStore(url)).close();
      expect([...(await warnings())]).toEqual(made);
      // At 24, nothing runs again: a second ADD COLUMN would fail the open.
      await (await openStore(url)).close();
      expect((await pg.unsafe("SELECT count(*)::int AS n FROM schema_migrations WHERE version = 24"))[0].n).toBe(1);
    } finally {
      await pg.close();
    }
  });

  test("gains the table of recipients' confirmation emails", async () => {
    const url = await (await testPostgres()).newDatabase();
    await (await openStore(url)).close();
    const pg = new SQL({ url, max: 1 });
    try {
      await pg.unsafe("DROP TABLE confirmation_emails");
      await pg.unsafe("DELETE FROM schema_migrations WHERE version = 23");
      await (await openStore(url)).close();
      expect((await pg.unsafe("SELECT count(*)::int AS n FROM confirmation_emails"))[0].n).toBe(0);
    } finally {
      await pg.close();
    }
  });
});
