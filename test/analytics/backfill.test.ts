import { expect, test } from "bun:test";
import { join } from "node:path";
import { migrate } from "../../src/db/migrate";
import { migrations } from "../../src/db/migrations";
import { openDatabase } from "../../src/db/open";
import { openStore } from "../../src/db/store";
import { tempDir } from "../helpers/harness";

test("the rollups migration counts submissions stored before it", () => {
  const { dir, cleanup } = tempDir();
  try {
    const file = join(dir, "old.db");
    const old = openDatabase(file);
    migrate(old, migrations.filter((m) => m.version <= 2));
    old.run("INSERT INTO owners VALUES ('own_1', 'o@example.com', '2026-01-01T00:00:00.000Z')");
    old.run("INSERT INTO forms (id, owner_id, name, form_type, created_at, updated_at) VALUES ('frm_1', 'own_1', 'Old', 'custom', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')");
    const rows: [string, string, object][] = [
      ["sub_1", "2026-03-01T10:00:00.000Z", { _meta: { country: "GB", browser: "Chrome", device: "desktop" } }],
      ["sub_2", "2026-03-01T23:59:59.999Z", { _meta: { country: "GB", browser: null, device: "mobile" } }],
      ["sub_3", "2026-03-02T00:00:00.000Z", { note: "no meta at all" }],
    ];
    for (const [id, at, data] of rows) old.run("INSERT INTO submissions (id, form_id, data, created_at) VALUES (?, 'frm_1', ?, ?)", [id, JSON.stringify(data), at]);
    old.close();

    const db = openStore(file, () => {});
    const counts = db.query("SELECT dimension, day, value, count FROM form_daily_counts ORDER BY dimension, day, value").all();
    db.close();
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
