import { expect, test } from "bun:test";
import { join } from "node:path";
import { migrate } from "../../src/db/migrate";
import { migrations } from "../../src/db/migrations";
import { openDatabase } from "../../src/db/open";
import { openStore } from "../../src/db/store";
import { fixedClock } from "../../src/lib/clock";
import { onSqlite } from "../helpers/engine";
import { startTestServer, tempDir } from "../helpers/harness";
import { OPERATOR } from "../../src/lib/principal";
import { submitRequest } from "../../src/modules/submissions/request";

// Migrations of old SQLite schemas: a PostgreSQL database starts at the current schema (its rollups empty).

test.if(onSqlite)("the rollups migration counts submissions stored before it", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const file = join(dir, "old.db");
    const old = openDatabase(file);
    migrate(
      old,
      migrations.filter((m) => m.version <= 2),
    );
    old.run("INSERT INTO owners VALUES ('own_1', 'o@example.com', '2026-01-01T00:00:00.000Z')");
    old.run(
      "INSERT INTO forms (id, owner_id, name, form_type, created_at, updated_at) VALUES ('frm_1', 'own_1', 'Old', 'custom', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')",
    );
    const rows: [string, string, object][] = [
      ["sub_1", "2026-03-01T10:00:00.000Z", { _meta: { country: "GB", browser: "Chrome", device: "desktop" } }],
      ["sub_2", "2026-03-01T23:59:59.999Z", { _meta: { country: "GB", browser: null, device: "mobile" } }],
      ["sub_3", "2026-03-02T00:00:00.000Z", { note: "no meta at all" }],
    ];
    for (const [id, at, data] of rows)
      old.run("INSERT INTO submissions (id, form_id, data, created_at) VALUES (?, 'frm_1', ?, ?)", [
        id,
        JSON.stringify(data),
        at,
      ]);
    old.close();

    const store = await openStore(file, { notify: () => {} });
    const counts = await store.sql.all(
      "SELECT dimension, day, value, count FROM form_daily_counts ORDER BY dimension, day, value",
    );
    await store.close();
    expect(counts).toEqual([
      { dimension: "browser", day: "2026-03-01", value: "Chrome", count: 1 },
      { dimension: "browser", day: "2026-03-01", value: "unknown", count: 1 },
      { dimension: "browser", day: "2026-03-02", value: "unknown", count: 1 },
      { dimension: "country", day: "2026-03-01", value: "GB", count: 2 },
      { dimension: "country", day: "2026-03-02", value: "ZZ", count: 1 },
      { dimension: "device", day: "2026-03-01", value: "desktop", count: 1 },
      { dimension: "device", day: "2026-03-01", value: "mobile", count: 1 },
      { dimension: "device", day: "2026-03-02", value: "unknown", count: 1 },
      { dimension: "total", day: "2026-03-01", value: "", count: 2 },
      { dimension: "total", day: "2026-03-02", value: "", count: 1 },
    ]);
  } finally {
    cleanup();
  }
});

test.if(onSqlite)(
  "after a backfill of random old rows both rollup tables equal a recount, and new submissions add onto them",
  async () => {
    const { dir, cleanup } = tempDir();
    try {
      const old = openDatabase(join(dir, "formsvc.db"));
      migrate(old, migrations.slice(0, 2));
      old.run("INSERT INTO owners VALUES ('own_1', 'o@example.com', '2025-01-01T00:00:00.000Z')");
      for (const f of ["frm_a", "frm_b"]) {
        old.run(
          "INSERT INTO forms (id, owner_id, name, form_type, created_at, updated_at) VALUES (?, 'own_1', ?, 'custom', '2025-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z')",
          [f, f],
        );
      }
      let seed = 7;
      const rand = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
      const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)]!;
      const start = Date.parse("2023-12-01T00:00:00.000Z");
      const insert = old.prepare("INSERT INTO submissions (id, form_id, data, created_at) VALUES (?, ?, ?, ?)");
      old.transaction(() => {
        for (let i = 0; i < 2000; i++) {
          const at = new Date(start + Math.floor(rand() * 500 * 86_400_000)).toISOString();
          const meta =
            rand() < 0.1
              ? undefined
              : {
                  country: pick(["GB", "US", "", null, undefined]),
                  browser: pick(["Chrome", "Firefox", "", null]),
                  device: pick(["desktop", "mobile", "", null]),
                };
          insert.run(`sub_${i}`, pick(["frm_a", "frm_b"]), JSON.stringify(meta ? { i, _meta: meta } : { i }), at);
        }
      })();
      old.close();

      const clock = fixedClock("2024-02-29T12:00:00.000Z");
      const server = await startTestServer({ dir, clock });
      try {
        const recount = (length: number) =>
          server.query(
            `SELECT form_id, dimension, k, value, count(*) AS count FROM (
             SELECT form_id, 'total' AS dimension, substr(created_at, 1, ${length}) AS k, '' AS value FROM submissions
             UNION ALL SELECT form_id, 'country', substr(created_at, 1, ${length}), ifnull(nullif(json_extract(data, '$._meta.country'), ''), 'ZZ') FROM submissions
             UNION ALL SELECT form_id, 'browser', substr(created_at, 1, ${length}), ifnull(nullif(json_extract(data, '$._meta.browser'), ''), 'unknown') FROM submissions
             UNION ALL SELECT form_id, 'device', substr(created_at, 1, ${length}), ifnull(nullif(json_extract(data, '$._meta.device'), ''), 'unknown') FROM submissions)
           GROUP BY form_id, dimension, k, value ORDER BY form_id, dimension, k, value`,
          );
        const daily = () =>
          server.query(
            "SELECT form_id, dimension, day AS k, value, count FROM form_daily_counts ORDER BY form_id, dimension, k, value",
          );
        const monthly = () =>
          server.query(
            "SELECT form_id, dimension, month AS k, value, count FROM form_monthly_counts ORDER BY form_id, dimension, k, value",
          );
        expect(await daily()).toEqual(await recount(10));
        expect(await monthly()).toEqual(await recount(7));
        const before =
          (
            await server.query(
              "SELECT count FROM form_daily_counts WHERE form_id = 'frm_a' AND dimension = 'total' AND day = '2024-02-29'",
            )
          )[0]?.count ?? 0;

        await server.services.submissions.submit(
          submitRequest({
            actor: OPERATOR,
            body: { formId: "frm_a", data: { late: true } },
            submitter: {
              userAgent: null,
              acceptLanguage: null,
              referer: null,
              origin: null,
              ip: "127.0.0.1",
              proxyCountry: "GB",
            },
          }),
        );
        expect(await daily()).toEqual(await recount(10));
        expect(await monthly()).toEqual(await recount(7));
        expect(
          (
            await server.query(
              "SELECT count FROM form_daily_counts WHERE form_id = 'frm_a' AND dimension = 'total' AND day = '2024-02-29'",
            )
          )[0].count,
        ).toBe(before + 1);
      } finally {
        await server.close();
      }
    } finally {
      cleanup();
    }
  },
);
