import { SQL } from "bun";
import { expect, test } from "bun:test";
import { join } from "node:path";
import { migrate } from "../../src/db/migrate";
import { migrations } from "../../src/db/migrations";
import { openDatabase } from "../../src/db/open";
import { migratePostgres } from "../../src/db/postgres/migrate";
import { postgresSql } from "../../src/db/postgres/sql";
import { openStore } from "../../src/db/store";
import { onPostgres, onSqlite } from "../helpers/engine";
import { startTestServer, tempDir } from "../helpers/harness";
import { testPostgres } from "../helpers/postgres";

const AT = "2026-01-01T00:00:00.000Z";
const listed = (...r: [string, boolean][]) => JSON.stringify(r.map(([email, confirmed]) => ({ email, confirmed })));
// Forms as version 27 kept them, by whom their notifications reached then.
const FORMS: [id: string, recipients: string][] = [
  // others, confirmed: not the owner
  ["frm_others", listed(["team@example.com", true], ["late@example.com", false])],
  // none confirmed yet: the owner
  ["frm_waiting", listed(["team@example.com", false])],
  // the owner among them
  ["frm_listed", listed(["team@example.com", true], ["o@example.com", true])],
  // no list: the owner
  ["frm_plain", "[]"],
];
const INSERT_OWNER = `INSERT INTO owners (id, email, created_at) VALUES ('own_1', 'o@example.com', '${AT}')`;
const insertForm = (id: string, recipients: string) =>
  `INSERT INTO forms (id, owner_id, name, form_type, created_at, updated_at, recipients) VALUES ('${id}', 'own_1', 'Contact', 'contact', '${AT}', '${AT}', '${recipients}')`;
// The owner stays out of the one form whose notifications left them out, and hears of the others by default.
const KEPT_OUT = [{ form_id: "frm_others", owner_id: "own_1", notify: 0 }];

test.if(onSqlite)(
  "upgrading to 028 keeps an owner out of the notifications of a form whose confirmed recipients left them out",
  async () => {
    const { dir, cleanup } = tempDir();
    try {
      const old = openDatabase(join(dir, "formsvc.db"));
      migrate(
        old,
        migrations.filter((m) => m.version <= 27),
      );
      old.run(INSERT_OWNER);
      for (const [id, recipients] of FORMS) old.run(insertForm(id, recipients));
      old.close();
      const server = await startTestServer({ dir });
      try {
        expect(await server.query("SELECT form_id, owner_id, notify FROM member_notifications")).toEqual(KEPT_OUT);
      } finally {
        await server.close();
      }
    } finally {
      cleanup();
    }
  },
);

test.if(onPostgres)(
  "upgrading a PostgreSQL database to 028 keeps an owner out of the notifications of a form whose confirmed recipients left them out",
  async () => {
    const url = await (await testPostgres()).newDatabase();
    const pg = new SQL({ url, max: 1 });
    try {
      await migratePostgres(
        postgresSql(pg),
        migrations.filter((m) => m.version <= 27),
      );
      await pg.unsafe(INSERT_OWNER);
      for (const [id, recipients] of FORMS) await pg.unsafe(insertForm(id, recipients));
      await (await openStore(url)).close();
      expect([...(await pg.unsafe("SELECT form_id, owner_id, notify FROM member_notifications"))]).toEqual(KEPT_OUT);
    } finally {
      await pg.close();
    }
  },
);
