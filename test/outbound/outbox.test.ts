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

  // Each case: the rows' (kind, status, next_attempt_at), and the oldest due time the backlog reports.
  const dueCases: { name: string; rows: [string, string, string][]; oldest: string | null }[] = [
    {
      name: "the earliest pending row of any kind",
      rows: [
        ["notification", "pending", "2026-10-01T10:00:00.000Z"],
        ["autoresponse", "pending", "2026-10-01T09:00:00.000Z"],
        ["password_reset", "pending", "2026-10-01T11:00:00.000Z"],
        ["notification", "pending", "2026-10-01T09:30:00.000Z"],
      ],
      oldest: "2026-10-01T09:00:00.000Z",
    },
    {
      name: "rows being sent, sent or failed do not count",
      rows: [
        ["notification", "sending", "2026-10-01T08:00:00.000Z"],
        ["autoresponse", "sent", "2026-10-01T07:00:00.000Z"],
        ["webhook", "failed", "2026-10-01T06:00:00.000Z"],
        ["confirmation", "pending", "2026-10-01T09:45:00.000Z"],
      ],
      oldest: "2026-10-01T09:45:00.000Z",
    },
    {
      name: "none when nothing is pending",
      rows: [
        ["notification", "sent", "2026-10-01T08:00:00.000Z"],
        ["notification", "failed", "2026-10-01T07:00:00.000Z"],
        ["autoresponse", "sending", "2026-10-01T07:00:00.000Z"],
        ["webhook", "sent", "2026-10-01T06:00:00.000Z"],
      ],
      oldest: null,
    },
  ];
  for (const c of dueCases)
    test(`the backlog's oldest due time: ${c.name}`, async () => {
      await s.exec("DELETE FROM outbox");
      for (let i = 0; i < c.rows.length; i++) await submit(100 + i);
      const ids = (await s.query("SELECT id FROM outbox ORDER BY id")).map((r) => r.id);
      expect(ids).toHaveLength(c.rows.length);
      for (const [i, [kind, status, at]] of c.rows.entries())
        await s.exec(
          "UPDATE outbox SET kind = ?, status = ?, next_attempt_at = ? WHERE id = ?",
          kind,
          status,
          at,
          ids[i],
        );
      expect(await s.services.outbox.oldestDue()).toBe(c.oldest);
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
