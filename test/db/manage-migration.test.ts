import { expect, test } from "bun:test";
import { join } from "node:path";
import { migrate } from "../../src/db/migrate";
import { migrations } from "../../src/db/migrations";
import { openDatabase } from "../../src/db/open";
import { onSqlite } from "../helpers/engine";
import { seedOwner, startTestServer, storedData, tempDir } from "../helpers/harness";
import { keptCounts, recount } from "../helpers/recount";

// An upgrade of an old SQLite schema, and SQLite's query plans (EXPLAIN QUERY PLAN): SQLite only.
test.if(onSqlite)(
  "upgrading to 010 counts each waitlist joiner's submissions and marks a database that held data for one VACUUM at its first erasure",
  async () => {
    const { dir, cleanup } = tempDir();
    try {
      const old = openDatabase(join(dir, "formsvc.db"));
      migrate(
        old,
        migrations.filter((m) => m.version <= 7),
      );
      old.run("INSERT INTO owners VALUES ('own_1', 'o@example.com', '2026-01-01T00:00:00.000Z')");
      old.run(
        `INSERT INTO forms (id, owner_id, name, form_type, users_joined_enabled, submission_count, users_joined_count, created_at, updated_at)
       VALUES ('frm_w', 'own_1', 'Launch', 'waitlist', 1, 4, 3, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`,
      );
      const insert = old.prepare(
        "INSERT INTO submissions (id, form_id, data, email, created_at, status) VALUES (?, 'frm_w', ?, ?, ?, ?)",
      );
      for (const [i, [email, status]] of (
        [
          ["ann@example.com", "inbox"],
          ["ann@example.com", "inbox"],
          ["ben@example.com", "inbox"],
          [null, "inbox"],
          ["ben@example.com", "spam"],
        ] as const
      ).entries()) {
        insert.run(`sub_${i}`, storedData({ email }), email, `2026-01-0${i + 2}T00:00:00.000Z`, status);
      }
      old.run(
        "INSERT INTO waitlist_joiners (form_id, email) VALUES ('frm_w', 'ann@example.com'), ('frm_w', 'ben@example.com')",
      );
      old.run(
        "INSERT INTO api_keys (id, owner_id, name, prefix, hash, created_at) VALUES ('key_1', 'own_1', 'k', 'fsk_', ?, '2026-01-01T00:00:00.000Z')",
        [new Bun.CryptoHasher("sha256").update("fsk_upgrade_test_key").digest("hex")],
      );
      old.close();

      const server = await startTestServer({ dir });
      try {
        const key = "fsk_upgrade_test_key";
        expect(await server.query("SELECT email, submissions FROM waitlist_joiners ORDER BY email")).toEqual([
          { email: "ann@example.com", submissions: 2 },
          { email: "ben@example.com", submissions: 1 },
        ]);
        expect(await server.query("SELECT key FROM settings WHERE key = 'vacuum_before_shred'")).toEqual([
          { key: "vacuum_before_shred" },
        ]);
        expect(await server.query("SELECT retention_days FROM forms")).toEqual([{ retention_days: null }]);
        // Ann leaves with her last submission, not before.
        const joined = async () => (await server.json("/api/v1/forms/frm_w/users-joined", { key })).body.usersJoined;
        expect((await server.json("/api/v1/forms/frm_w/submissions/sub_0", { method: "DELETE", key })).status).toBe(
          200,
        );
        expect(await joined()).toBe(3);
        expect((await server.json("/api/v1/forms/frm_w/submissions/sub_1", { method: "DELETE", key })).status).toBe(
          200,
        );
        expect(await joined()).toBe(2);
        // (No rollups here: the rows were written straight to the file after migration 003 counted them.)
        const { daily: _d, monthly: _m, ...kept } = await keptCounts(server, "frm_w");
        const { daily: _rd, monthly: _rm, ...recounted } = await recount(server, "frm_w");
        expect(kept).toEqual(recounted);
      } finally {
        await server.close();
      }
    } finally {
      cleanup();
    }
  },
);

test.if(onSqlite)(
  "a new database has nothing to VACUUM, and finds a submission by id through its index, not the form's range",
  async () => {
    const server = await startTestServer();
    try {
      await seedOwner(server);
      expect((await server.query("SELECT count(*) AS n FROM settings WHERE key = 'vacuum_before_shred'"))[0].n).toBe(0);
      const plan = async (sql: string) =>
        (await server.query<{ detail: string }>(`EXPLAIN QUERY PLAN ${sql}`)).map((r) => r.detail).join("; ");
      expect(
        await plan(
          "SELECT * FROM submissions WHERE id IN (SELECT value FROM json_each('[\"sub_1\"]')) AND +form_id = 'frm_1'",
        ),
      ).toContain("USING INDEX submissions_by_id");
      // As the repository asks it now (the form is checked in code: PostgreSQL has no unary + on text).
      expect(
        await plan(
          "SELECT id, form_id, data, email, created_at, status FROM submissions WHERE id IN (SELECT value FROM json_each('[\"sub_1\"]'))",
        ),
      ).toContain("USING INDEX submissions_by_id");
      expect(await plan("SELECT * FROM submissions WHERE id = 'sub_1'")).toContain("USING INDEX submissions_by_id");
      expect(await plan("DELETE FROM outbox WHERE submission_id = 'sub_1'")).toContain(
        "USING INDEX outbox_by_submission",
      );
    } finally {
      await server.close();
    }
  },
);
