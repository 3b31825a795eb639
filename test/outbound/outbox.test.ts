import { describe, expect, test } from "bun:test";
import { fixedClock } from "../../src/lib/clock";
import { OUTBOX_KEEP_MS } from "../../src/services";
import { useServer } from "../helpers/fixture";
import { cliJson } from "../helpers/harness";

const clock = fixedClock("2026-10-01T12:00:00.000Z");
// No SMTP: notifications stay queued, so the test decides what becomes of each row.
const s = useServer({ clock, config: { rateLimit: 10_000 } });
const o = s.seed("owner@example.com", { emailEnabled: true, developerNotifications: true });

const submit = (n: number) => s.submit(o.key, o.formId, { n });

describe("the outbox", () => {
  test("deletes finished rows older than 30 days, oldest first, and keeps pending ones and newer ones", async () => {
    for (let i = 0; i < 3; i++) await submit(i);
    clock.advance(OUTBOX_KEEP_MS + 60_000);
    for (let i = 3; i < 5; i++) await submit(i);
    const ids = (await s.query("SELECT id FROM outbox ORDER BY id")).map((r) => r.id);
    // Old: one sent, one failed, one still pending; new: one sent, one pending.
    await s.exec("UPDATE outbox SET status = 'sent' WHERE id IN (?, ?)", ids[0], ids[3]);
    await s.exec("UPDATE outbox SET status = 'failed' WHERE id = ?", ids[1]);
    expect(await s.services.outbox.deleteOldRows(OUTBOX_KEEP_MS)).toBe(2);
    expect(await s.query("SELECT id, status FROM outbox ORDER BY id")).toEqual([
      { id: ids[2], status: "pending" },
      { id: ids[3], status: "sent" },
      { id: ids[4], status: "pending" },
    ]);
  });

  test("outbox list shows each row's kind and last error; outbox show its attempts", async () => {
    const rows = cliJson(["outbox", "list", "--kind", "notification"], { db: s.db });
    expect(rows.length).toBeGreaterThan(0);
    expect(rows[0]).toMatchObject({ kind: "notification", lastError: null, lastStatus: null });
    expect(cliJson(["outbox", "show", String(rows[0].id)], { db: s.db })).toMatchObject({
      id: rows[0].id,
      attempts: [],
    });
  });
});
