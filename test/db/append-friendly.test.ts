import { expect, test } from "bun:test";
import { join } from "node:path";
import { migrate } from "../../src/db/migrate";
import { migrations } from "../../src/db/migrations";
import { openDatabase } from "../../src/db/open";
import { onSqlite } from "../helpers/engine";
import { seedOwner, startTestServer, storedData, tempDir } from "../helpers/harness";

// Upgrades of old SQLite schemas, and SQLite's query plans (EXPLAIN QUERY PLAN): SQLite only.
test.if(onSqlite)(
  "upgrading keeps a waitlist's distinct joiners: repeats of old emails do not count again, new ones do",
  async () => {
    const { dir, cleanup } = tempDir();
    try {
      const old = openDatabase(join(dir, "formsvc.db"));
      migrate(
        old,
        migrations.filter((m) => m.version <= 4),
      );
      old.run("INSERT INTO owners VALUES ('own_1', 'o@example.com', '2026-01-01T00:00:00.000Z')");
      // As version 4 left them: the waitlist's count is its distinct joiners (two emails, one without).
      old.run(
        `INSERT INTO forms (id, owner_id, name, form_type, users_joined_enabled, submission_count, users_joined_count, created_at, updated_at)
       VALUES ('frm_w', 'own_1', 'Launch', 'waitlist', 1, 4, 3, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`,
      );
      const insert = old.prepare(
        "INSERT INTO submissions (id, form_id, data, email, created_at) VALUES (?, 'frm_w', ?, ?, ?)",
      );
      for (const [i, email] of ["ann@example.com", "ann@example.com", "ben@example.com", null].entries()) {
        insert.run(`sub_${i}`, storedData({}), email, `2026-01-0${i + 2}T00:00:00.000Z`);
      }
      old.run(
        "INSERT INTO api_keys (id, owner_id, name, prefix, hash, created_at) VALUES ('key_1', 'own_1', 'k', 'fsk_', ?, '2026-01-01T00:00:00.000Z')",
        [new Bun.CryptoHasher("sha256").update("fsk_upgrade_test_key").digest("hex")],
      );
      old.close();

      const server = await startTestServer({ dir });
      try {
        const key = "fsk_upgrade_test_key";
        const join = (email: string) =>
          server.request("/api/v1/forms/submit", {
            method: "POST",
            key,
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ formId: "frm_w", data: { email } }),
          });
        expect((await join("ANN@example.com")).status).toBe(200);
        expect((await server.json("/api/v1/forms/frm_w/users-joined", { key })).body).toEqual({ usersJoined: 3 });
        expect((await join("cat@example.com")).status).toBe(200);
        expect((await server.json("/api/v1/forms/frm_w/users-joined", { key })).body).toEqual({ usersJoined: 4 });
        const page = await server.json("/api/v1/forms/frm_w/submissions?limit=3", { key });
        expect(page.body.submissions.map((s: { data: { email?: string } }) => s.data.email ?? null)).toEqual([
          "cat@example.com",
          "ANN@example.com",
          null,
        ]);
      } finally {
        await server.close();
      }
    } finally {
      cleanup();
    }
  },
);

test.if(onSqlite)(
  "newest-first pages (one state's too) and oldest-first exports walk the submissions indexes without sorting",
  async () => {
    const server = await startTestServer();
    try {
      const { formId } = await seedOwner(server);
      const plan = async (sql: string, ...params: string[]) =>
        (await server.query<{ detail: string }>(`EXPLAIN QUERY PLAN ${sql}`, ...params))
          .map((r) => r.detail)
          .join("; ");
      for (const sql of [
        "SELECT * FROM submissions WHERE form_id = ? AND status = 'inbox' ORDER BY created_at DESC, id DESC LIMIT 51",
        "SELECT * FROM submissions WHERE form_id = ? AND status = 'inbox' AND (created_at, id) < ('2026-01-01', 'sub_x') ORDER BY created_at DESC, id DESC LIMIT 51",
        "SELECT * FROM submissions WHERE form_id = ? AND status = 'spam' AND (created_at, id) > ('2026-01-01', 'sub_x') ORDER BY created_at, id LIMIT 1000",
      ]) {
        const detail = await plan(sql, formId);
        expect(detail).toContain("USING INDEX submissions_by_form");
        expect(detail).not.toContain("TEMP B-TREE");
      }
      // An inbox view of one state reads that state's range (a list of several asks each state).
      const byState = await plan(
        "SELECT * FROM submissions WHERE form_id = ? AND status = 'inbox' AND state = 'open' AND (created_at, id) < ('2026-01-01', 'sub_x') ORDER BY created_at DESC, id DESC LIMIT 51",
        formId,
      );
      expect(byState).toContain("USING INDEX submissions_by_state");
      expect(byState).not.toContain("TEMP B-TREE");
    } finally {
      await server.close();
    }
  },
);
