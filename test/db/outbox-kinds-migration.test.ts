import { SQL } from "bun";
import { expect, test } from "bun:test";
import { join } from "node:path";
import { migrate } from "../../src/db/migrate";
import { migrations } from "../../src/db/migrations";
import { openDatabase } from "../../src/db/open";
import { openStore } from "../../src/db/store";
import { onPostgres, onSqlite } from "../helpers/engine";
import { cliJson, startTestServer, tempDir } from "../helpers/harness";
import { testPostgres } from "../helpers/postgres";

const AT = "2026-01-01T00:00:00.000Z";
// Rows as version 25 queued them: digests and alerts rode as `notification`, told apart by their payload.
const OLD_ROWS: [id: number, kind: string, formId: string | null, payload: string | null][] = [
  [1, "notification", "frm_1", '{"subject":"Hello"}'],
  [2, "notification", "frm_1", '{"digest":{"day":"2025-12-31","total":1,"ids":["sub_1"],"inbox":null,"labels":[]}}'],
  [3, "notification", "frm_1", '{"alert":"the webhook wh_1 answered 410 Gone"}'],
  [4, "notification", null, '{"alert":"disk full","subject":"formsvc: a scheduled backup failed"}'],
  [7, "password_reset", null, '{"token":"t"}'],
  [9, "notification", "frm_1", null],
];
const NEW_KINDS = [
  { id: 1, kind: "notification" },
  { id: 2, kind: "digest" },
  { id: 3, kind: "webhook_alert" },
  { id: 4, kind: "backup_alert" },
  { id: 7, kind: "password_reset" },
  { id: 9, kind: "notification" },
];
const INSERT_ROW =
  "INSERT INTO outbox (id, kind, form_id, recipient, form_name, data, payload, submitted_at, created_at, queued_at, next_attempt_at) VALUES (?1, ?2, ?3, 'o@example.com', 'Contact', '{}', ?4, ?5, ?5, ?5, ?5)";
const INSERT_OWNER = `INSERT INTO owners (id, email, created_at) VALUES ('own_1', 'o@example.com', '${AT}')`;
const INSERT_FORM = `INSERT INTO forms (id, owner_id, name, form_type, created_at, updated_at) VALUES ('frm_1', 'own_1', 'Contact', 'contact', '${AT}', '${AT}')`;

test.if(onSqlite)(
  "upgrading to 026 gives digests and alerts their own kinds, keeps every row, id, attempt and index, and takes a kind no CHECK knows",
  async () => {
    const { dir, cleanup } = tempDir();
    try {
      const old = openDatabase(join(dir, "formsvc.db"));
      migrate(
        old,
        migrations.filter((m) => m.version <= 25),
      );
      old.run(INSERT_OWNER);
      old.run(INSERT_FORM);
      for (const r of OLD_ROWS) old.run(INSERT_ROW, [...r, AT]);
      old.run(`INSERT INTO outbox_attempts VALUES (3, '${AT}', 503, 'down', 1.5)`);
      const indexes = () =>
        old
          .query("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name LIKE 'outbox%' ORDER BY name")
          .all();
      const before = indexes();
      old.close();

      const server = await startTestServer({ dir });
      try {
        expect(await server.query("SELECT id, kind FROM outbox ORDER BY id")).toEqual(NEW_KINDS);
        expect(await server.query("SELECT outbox_id, status_code, error FROM outbox_attempts")).toEqual([
          { outbox_id: 3, status_code: 503, error: "down" },
        ]);
        expect(
          await server.query(
            "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name LIKE 'outbox%' ORDER BY name",
          ),
        ).toEqual(before);
        // The kind is the code's to check: the table takes any, and the next id follows the kept ones.
        await server.exec(
          `INSERT INTO outbox (kind, recipient, form_name, data, submitted_at, created_at, queued_at, next_attempt_at)
           VALUES ('some_future_kind', 'o@example.com', '', '{}', ?1, ?1, ?1, ?1)`,
          AT,
        );
        expect(await server.query("SELECT max(id) AS id FROM outbox")).toEqual([{ id: 10 }]);
      } finally {
        await server.close();
      }
      expect(cliJson(["outbox", "list", "--kind", "backup_alert"], { db: join(dir, "formsvc.db") })).toMatchObject([
        { id: 4, kind: "backup_alert", formId: null },
      ]);
    } finally {
      cleanup();
    }
  },
);

test.if(onPostgres)(
  "upgrading a PostgreSQL database to 026 drops the kind's CHECK and gives digests and alerts their own kinds",
  async () => {
    const url = await (await testPostgres()).newDatabase();
    await (await openStore(url)).close();
    // The database as version 25 left it: the CHECK on the kind, and digests and alerts as notifications.
    const pg = new SQL({ url, max: 1 });
    try {
      await pg.unsafe(
        "ALTER TABLE outbox ADD CONSTRAINT outbox_kind_check CHECK (kind IN ('notification', 'autoresponse', 'confirmation', 'webhook', 'password_reset'))",
      );
      await pg.unsafe("DELETE FROM schema_migrations WHERE version = 26");
      await pg.unsafe(INSERT_OWNER);
      await pg.unsafe(INSERT_FORM);
      for (const r of OLD_ROWS) await pg.unsafe(INSERT_ROW.replace(/\?(\d)/g, "$$$1"), [...r, AT]);
      await (await openStore(url)).close();
      expect([...(await pg.unsafe("SELECT id, kind FROM outbox ORDER BY id"))]).toEqual(NEW_KINDS);
      expect([
        ...(await pg.unsafe("SELECT conname FROM pg_constraint WHERE conrelid = 'outbox'::regclass AND contype = 'c'")),
      ]).toEqual([{ conname: "outbox_status_check" }]);
    } finally {
      await pg.close();
    }
  },
);
