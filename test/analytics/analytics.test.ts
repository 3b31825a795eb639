import { beforeAll, describe, expect, test } from "bun:test";
import { OPERATOR } from "../../src/lib/principal";
import { fixedClock } from "../../src/lib/clock";
import { daysBetween, splitRange } from "../../src/modules/analytics/service";
import type { SubmitterInfo } from "../../src/modules/submissions/meta";
import { useServer } from "../helpers/fixture";
import { seedForm, seedKey } from "../helpers/harness";
import { submitRequest } from "../../src/modules/submissions/request";

const clock = fixedClock("2026-11-22T12:00:00.000Z");
const server = useServer({ clock });
const owner = server.seed("owner@example.com");

const CHROME =
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36";
const IPHONE =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1";

/** Stores a submission at `at` through the same service the submit endpoint uses. */
async function submitAt(formId: string, at: string, who: Partial<SubmitterInfo> = {}) {
  clock.set(at);
  await server.services.submissions.submit(
    submitRequest({
      actor: OPERATOR,
      body: { formId, data: { at } },
      submitter: {
        userAgent: CHROME,
        acceptLanguage: null,
        referer: null,
        origin: null,
        ip: "127.0.0.1",
        proxyCountry: "GB",
        ...who,
      },
    }),
  );
}

const analytics = (formId: string, query = "", key = owner.key) =>
  server.json(`/api/v1/forms/${formId}/analytics${query}`, { key });

async function newForm(name: string) {
  return (await seedForm(server, "owner@example.com", { name })).id;
}

describe("periods", () => {
  test("each period covers the last 1, 7, 30 or 365 UTC days ending today, month by default", async () => {
    const formId = await newForm("periods");
    clock.set("2026-11-22T12:00:00.000Z");
    for (const [period, days, first] of [
      ["day", 1, "2026-11-22"],
      ["week", 7, "2026-11-16"],
      ["month", 30, "2026-10-24"],
      ["year", 365, "2025-11-23"],
    ] as const) {
      const { status, body } = await analytics(formId, `?period=${period}`);
      expect(status).toBe(200);
      expect(body.period).toBe(period);
      expect(body.submissionsOverTime.length).toBe(days);
      expect(body.submissionsOverTime[0].date).toBe(first);
      expect(body.submissionsOverTime.at(-1).date).toBe("2026-11-22");
    }
    const { body } = await analytics(formId);
    expect(body.period).toBe("month");
    expect(body.submissionsOverTime.length).toBe(30);
  });

  test("a submission at 23:59:59.999Z and one at 00:00:00.000Z land on consecutive days", async () => {
    const formId = await newForm("boundaries");
    await submitAt(formId, "2026-11-20T23:59:59.999Z");
    await submitAt(formId, "2026-11-21T00:00:00.000Z");
    await submitAt(formId, "2026-11-21T00:00:00.000Z");
    clock.set("2026-11-22T08:00:00.000Z");
    const { body } = await analytics(formId, "?period=week");
    const byDay = Object.fromEntries(body.submissionsOverTime.map((d: any) => [d.date, d.count]));
    expect(byDay["2026-11-20"]).toBe(1);
    expect(byDay["2026-11-21"]).toBe(2);
    expect(byDay["2026-11-22"]).toBe(0);
    expect(body.totalSubmissions).toBe(3);
  });
});

describe("custom ranges", () => {
  let formId: string;
  beforeAll(async () => {
    formId = await newForm("custom");
    for (const at of [
      "2023-12-31T23:00:00.000Z",
      "2024-01-01T01:00:00.000Z",
      "2024-02-29T10:00:00.000Z",
      "2024-03-01T10:00:00.000Z",
      "2026-11-01T10:00:00.000Z",
    ])
      await submitAt(formId, at);
    clock.set("2026-11-22T12:00:00.000Z");
  });

  test("both dates give that inclusive range across a year boundary, zero-filled", async () => {
    const { status, body } = await analytics(formId, "?startDate=2023-12-30&endDate=2024-01-02");
    expect(status).toBe(200);
    expect(body.period).toBe("custom");
    expect(body.submissionsOverTime).toEqual([
      { date: "2023-12-30", count: 0 },
      { date: "2023-12-31", count: 1 },
      { date: "2024-01-01", count: 1 },
      { date: "2024-01-02", count: 0 },
    ]);
    expect(body.totalSubmissions).toBe(2);
  });

  test("a leap day is a real date and counts across the month boundary", async () => {
    const { body } = await analytics(formId, "?startDate=2024-02-28&endDate=2024-03-01");
    expect(body.submissionsOverTime.map((d: any) => [d.date, d.count])).toEqual([
      ["2024-02-28", 0],
      ["2024-02-29", 1],
      ["2024-03-01", 1],
    ]);
  });

  test("only a start date runs to today", async () => {
    const { body } = await analytics(formId, "?startDate=2026-11-01");
    expect(body.period).toBe("custom");
    expect(body.submissionsOverTime.length).toBe(22);
    expect(body.submissionsOverTime.at(-1).date).toBe("2026-11-22");
    expect(body.totalSubmissions).toBe(1);
  });

  test("only an end date takes the period's length ending there", async () => {
    const week = await analytics(formId, "?endDate=2024-03-01&period=week");
    expect(week.body.period).toBe("custom");
    expect(week.body.submissionsOverTime.map((d: any) => d.date)).toEqual([
      "2024-02-24",
      "2024-02-25",
      "2024-02-26",
      "2024-02-27",
      "2024-02-28",
      "2024-02-29",
      "2024-03-01",
    ]);
    const month = await analytics(formId, "?endDate=2024-03-01");
    expect(month.body.submissionsOverTime.length).toBe(30);
    expect(month.body.submissionsOverTime[0].date).toBe("2024-02-01");
  });

  test("rejects malformed and impossible input with a 400", async () => {
    for (const q of [
      "?period=decade",
      "?period=",
      // Names every object has: none is a period.
      "?period=__proto__",
      "?period=constructor",
      "?period=toString",
      "?startDate=2026-02-29",
      "?startDate=2026-13-01",
      "?startDate=2026-1-01",
      "?endDate=20260101",
      "?startDate=2026-11-10&endDate=2026-11-01",
      "?startDate=2020-01-01&endDate=2026-01-01",
      "?startDate=abc",
    ]) {
      const { status, body } = await analytics(formId, q);
      expect([q, status]).toEqual([q, 400]);
      expect(typeof body.error).toBe("string");
    }
    expect((await analytics(formId, "?startDate=2021-06-01&endDate=2026-06-04")).status).toBe(200);
  });
});

describe("top lists", () => {
  test("hold at most 10 entries, count descending then name ascending, unknowns grouped", async () => {
    const formId = await newForm("tops");
    const countries = ["AA", "BB", "CC", "DD", "EE", "FF", "GG", "HH", "II", "JJ", "KK", "LL"];
    let at = Date.parse("2026-11-10T00:00:00.000Z");
    const next = () => new Date((at += 60_000)).toISOString();
    // LL three times, KK twice, the rest once: ties broken by name.
    for (const c of [...countries, "LL", "LL", "KK"]) await submitAt(formId, next(), { proxyCountry: c });
    await submitAt(formId, next(), { proxyCountry: null, ip: "10.0.0.1", userAgent: null });
    await submitAt(formId, next(), { proxyCountry: null, ip: "10.0.0.1", userAgent: IPHONE });
    clock.set("2026-11-22T12:00:00.000Z");
    const { body } = await analytics(formId);
    expect(body.topCountries.length).toBe(10);
    expect(body.topCountries.slice(0, 4)).toEqual([
      { country: "LL", count: 3 },
      { country: "KK", count: 2 },
      { country: "ZZ", count: 2 },
      { country: "AA", count: 1 },
    ]);
    expect(body.topBrowsers).toEqual([
      { browser: "Chrome", count: 15 },
      { browser: "Mobile Safari", count: 1 },
      { browser: "unknown", count: 1 },
    ]);
    expect(body.topDevices).toEqual([
      { device: "desktop", count: 15 },
      { device: "mobile", count: 1 },
      { device: "unknown", count: 1 },
    ]);
    expect(body.totalSubmissions).toBe(17);
  });
});

describe("rollups", () => {
  test("agree with a recount of the raw submissions after a random mixed load", async () => {
    const formId = await newForm("random");
    let seed = 42;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const start = Date.parse("2026-01-01T00:00:00.000Z");
    const batch: Promise<unknown>[] = [];
    for (let i = 0; i < 300; i++) {
      clock.set(start + Math.floor(rand() * 320 * 86_400_000));
      const who = {
        proxyCountry: ["US", "GB", "DE", null][Math.floor(rand() * 4)]!,
        ip: "10.1.1.1",
        userAgent: [CHROME, IPHONE, null][Math.floor(rand() * 3)]!,
      };
      batch.push(
        server.services.submissions.submit(
          submitRequest({
            actor: OPERATOR,
            body: { formId, data: { i } },
            submitter: { acceptLanguage: null, referer: null, origin: null, ...who },
          }),
        ),
      );
      if (batch.length === 25) await Promise.all(batch.splice(0));
    }
    await Promise.all(batch);
    // On PostgreSQL the batches appended deltas: the rows hold them once folded.
    await server.services.foldTallies();
    const rollup = await server.query<{ dimension: string; day: string; value: string; count: number }>(
      "SELECT dimension, day, value, count FROM form_daily_counts WHERE form_id = ? ORDER BY dimension, day, value",
      formId,
    );
    const recount = await server.query<{ dimension: string; day: string; value: string; count: number }>(
      `SELECT dimension, day, value, count(*) AS count FROM (
         SELECT 'total' AS dimension, substr(created_at, 1, 10) AS day, '' AS value FROM submissions WHERE form_id = ?1
         UNION ALL SELECT 'country', substr(created_at, 1, 10), json_extract(data, '$._meta.country') FROM submissions WHERE form_id = ?1
         UNION ALL SELECT 'browser', substr(created_at, 1, 10), coalesce(json_extract(data, '$._meta.browser'), 'unknown') FROM submissions WHERE form_id = ?1
         UNION ALL SELECT 'device', substr(created_at, 1, 10), json_extract(data, '$._meta.device') FROM submissions WHERE form_id = ?1)
       GROUP BY dimension, day, value ORDER BY dimension, day, value`,
      formId,
    );
    expect(rollup).toEqual(recount);

    const monthly = await server.query(
      "SELECT dimension, month, value, count FROM form_monthly_counts WHERE form_id = ? ORDER BY dimension, month, value",
      formId,
    );
    const monthlyRecount = await server.query(
      `SELECT dimension, substr(day, 1, 7) AS month, value, sum(count) AS count FROM form_daily_counts WHERE form_id = ?
       GROUP BY dimension, month, value ORDER BY dimension, month, value`,
      formId,
    );
    expect(monthly).toEqual(monthlyRecount);

    clock.set("2026-11-22T12:00:00.000Z");
    // A range with ragged edges: days at both ends, whole months between.
    const { body } = await analytics(formId, "?startDate=2026-01-17&endDate=2026-10-09");
    const inRange = "form_id = ?1 AND substr(created_at, 1, 10) BETWEEN '2026-01-17' AND '2026-10-09'";
    const expected = (
      await server.query<{ n: number }>(`SELECT count(*) AS n FROM submissions WHERE ${inRange}`, formId)
    )[0]!.n;
    expect(body.totalSubmissions).toBe(expected);
    expect(body.submissionsOverTime.reduce((n: number, d: any) => n + d.count, 0)).toBe(expected);
    const countries = await server.query(
      `SELECT json_extract(data, '$._meta.country') AS country, count(*) AS count FROM submissions WHERE ${inRange}
       GROUP BY country ORDER BY count DESC, country ASC LIMIT 10`,
      formId,
    );
    expect(body.topCountries).toEqual(countries);
  });

  test("disappear with their form", async () => {
    const formId = await newForm("doomed");
    await submitAt(formId, "2026-11-20T10:00:00.000Z");
    await server.services.foldTallies();
    expect((await server.query("SELECT count(*) AS n FROM form_daily_counts WHERE form_id = ?", formId))[0].n).toBe(4);
    await server.services.forms.deleteForm(OPERATOR, formId);
    expect((await server.query("SELECT count(*) AS n FROM form_daily_counts WHERE form_id = ?", formId))[0].n).toBe(0);
    expect((await server.query("SELECT count(*) AS n FROM form_monthly_counts WHERE form_id = ?", formId))[0].n).toBe(
      0,
    );
  });
});

describe("splitting a range", () => {
  const day = (d: string) => Date.parse(`${d}T00:00:00.000Z`);
  test("reads ragged edges as days and whole months as months", () => {
    expect(splitRange(day("2026-01-17"), day("2026-10-09"))).toEqual({
      headDays: ["2026-01-17", "2026-01-31"],
      months: ["2026-02", "2026-09"],
      tailDays: ["2026-10-01", "2026-10-09"],
    });
    expect(splitRange(day("2024-02-01"), day("2024-02-29"))).toEqual({
      headDays: ["9", "0"],
      months: ["2024-02", "2024-02"],
      tailDays: ["9", "0"],
    });
    expect(splitRange(day("2026-11-16"), day("2026-11-22"))).toEqual({
      headDays: ["2026-11-16", "2026-11-22"],
      months: ["9", "0"],
      tailDays: ["9", "0"],
    });
    expect(splitRange(day("2025-12-31"), day("2026-01-31"))).toEqual({
      headDays: ["2025-12-31", "2025-12-31"],
      months: ["2026-01", "2026-01"],
      tailDays: ["9", "0"],
    });
    // Years 0–99 are years, not 1900–1999.
    expect(splitRange(day("0050-01-10"), day("0050-03-05"))).toEqual({
      headDays: ["0050-01-10", "0050-01-31"],
      months: ["0050-02", "0050-02"],
      tailDays: ["0050-03-01", "0050-03-05"],
    });
    expect(splitRange(day("0099-12-31"), day("0100-02-01"))).toEqual({
      headDays: ["0099-12-31", "0099-12-31"],
      months: ["0100-01", "0100-01"],
      tailDays: ["0100-02-01", "0100-02-01"],
    });
  });
});

describe("access", () => {
  test("answers 404 for an unknown form and 403 for another owner's, after 401 and 400", async () => {
    const other = (await seedKey(server, "other@example.com")).key;
    expect((await analytics("frm_missing")).status).toBe(404);
    expect((await analytics(owner.formId, "", other)).status).toBe(403);
    expect((await analytics(owner.formId, "?period=bad", other)).status).toBe(400);
    expect((await server.json(`/api/v1/forms/${owner.formId}/analytics?period=bad`)).status).toBe(401);
  });
});

describe("the days of a range", () => {
  const day = (d: string) => Date.parse(`${d}T00:00:00.000Z`);
  const oneByOne = (from: number, to: number) =>
    Array.from({ length: (to - from) / 86_400_000 + 1 }, (_, i) =>
      new Date(from + i * 86_400_000).toISOString().slice(0, 10),
    );

  test("are every UTC day from the first to the last, across month ends, leap days and years", () => {
    expect(daysBetween(day("2024-02-27"), day("2024-03-02"))).toEqual([
      "2024-02-27",
      "2024-02-28",
      "2024-02-29",
      "2024-03-01",
      "2024-03-02",
    ]);
    expect(daysBetween(day("2026-11-22"), day("2026-11-22"))).toEqual(["2026-11-22"]);
    for (const [from, to] of [
      ["2023-12-30", "2029-01-02"],
      ["0000-01-01", "0001-03-01"],
      ["2025-11-23", "2026-11-22"],
    ] as const) {
      expect(daysBetween(day(from), day(to))).toEqual(oneByOne(day(from), day(to)));
    }
  });
});
