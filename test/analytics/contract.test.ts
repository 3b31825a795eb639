import { beforeAll, describe, expect, test } from "bun:test";
import { OPERATOR } from "../../src/lib/principal";
import { fixedClock } from "../../src/lib/clock";
import { useServer } from "../helpers/fixture";
import { seedForm } from "../helpers/harness";
import { submitRequest } from "../../src/modules/submissions/request";

const DAY = 86_400_000;
const clock = fixedClock("2026-11-22T12:00:00.000Z");
const server = useServer({
  clock,
  config: { rateLimit: 1_000_000, trustProxy: true, clientIpHeader: "CF-Connecting-IP" },
});
const owner = server.seed("owner@example.com");

const CHROME =
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36";
const IPHONE =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1";
const FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0";
const IPAD =
  "Mozilla/5.0 (iPad; CPU OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1";
const CURL = "curl/8.5.0";
const AGENTS = [CHROME, IPHONE, FIREFOX, IPAD, CURL, null];
const COUNTRIES = ["US", "GB", "DE", "FR", "JP", "BR", "IN", "CA", "AU", "NL", "ES", "SE", null];

const analytics = (formId: string, query = "") =>
  server.json(`/api/v1/forms/${formId}/analytics${query}`, { key: owner.key });
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** A small seeded PRNG (mulberry32), so a failure can be replayed. */
function prng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

const newForm = async (name: string) => (await seedForm(server, "owner@example.com", { name })).id;

/** Every submission of a form, read page by page through the list endpoint. */
async function listAll(formId: string): Promise<any[]> {
  const seen: any[] = [];
  let cursor: string | null = null;
  do {
    const { status, body }: { status: number; body: any } = await server.json(
      `/api/v1/forms/${formId}/submissions?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
      { key: owner.key },
    );
    expect(status).toBe(200);
    seen.push(...body.submissions);
    cursor = body.nextCursor;
  } while (cursor);
  return seen;
}

/** What the analytics answer must be for `items` in [from, to], computed the slow way. */
function expected(items: any[], from: string, to: string) {
  const inRange = items.filter((s) => s.createdAt.slice(0, 10) >= from && s.createdAt.slice(0, 10) <= to);
  const top = (pick: (m: any) => string, name: string) => {
    const counts = new Map<string, number>();
    for (const s of inRange) counts.set(pick(s.data._meta), (counts.get(pick(s.data._meta)) ?? 0) + 1);
    return [...counts]
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, 10)
      .map(([value, count]) => ({ [name]: value, count }));
  };
  const series: { date: string; count: number }[] = [];
  for (let d = Date.parse(`${from}T00:00:00.000Z`); day(d) <= to; d += DAY) {
    series.push({ date: day(d), count: inRange.filter((s) => s.createdAt.startsWith(day(d))).length });
  }
  return {
    totalSubmissions: inRange.length,
    submissionsOverTime: series,
    topCountries: top((m) => m.country || "ZZ", "country"),
    topBrowsers: top((m) => m.browser || "unknown", "browser"),
    topDevices: top((m) => m.device || "unknown", "device"),
  };
}

describe("a seeded random mixed load", () => {
  const forms: string[] = [];
  const TODAY = "2026-11-22T12:00:00.000Z";

  beforeAll(async () => {
    for (let i = 0; i < 3; i++) forms.push(await newForm(`mixed ${i}`));
    const rand = prng(20261122);
    const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)]!;
    // ~420 days back, across a year boundary and the end of February; some submissions exactly at midnight.
    const start = Date.parse("2025-10-01T00:00:00.000Z");
    for (let burst = 0; burst < 120; burst++) {
      let at = start + Math.floor(rand() * 418) * DAY;
      const r = rand();
      at += r < 0.2 ? 0 : r < 0.4 ? DAY - 1 : Math.floor(rand() * DAY);
      clock.set(at);
      // A burst shares one instant, so it commits in one batch spanning several forms.
      const jobs: Promise<unknown>[] = [];
      for (let n = 1 + Math.floor(rand() * 6); n > 0; n--) {
        const formId = pick(forms);
        const userAgent = pick(AGENTS);
        const country = pick(COUNTRIES);
        if (rand() < 0.5) {
          const headers: Record<string, string> = { "content-type": "application/json" };
          if (userAgent) headers["user-agent"] = userAgent;
          if (country) headers["cf-ipcountry"] = country;
          jobs.push(
            server
              .request("/api/v1/forms/submit", {
                method: "POST",
                key: owner.key,
                headers,
                body: JSON.stringify({ formId, data: { burst, n } }),
              })
              .then((res) => {
                expect(res.status).toBe(200);
              }),
          );
        } else {
          jobs.push(
            server.services.submissions.submit(
              submitRequest({
                actor: OPERATOR,
                body: { formId, data: { burst, n } },
                submitter: {
                  userAgent,
                  acceptLanguage: null,
                  referer: null,
                  origin: null,
                  ip: "127.0.0.1",
                  proxyCountry: country,
                },
              }),
            ),
          );
        }
      }
      await Promise.all(jobs);
    }
    clock.set(TODAY);
  });

  test("leaves the daily and monthly rollups equal to a recount of the raw submissions", async () => {
    const recount = (length: number) =>
      server.query(
        `SELECT form_id, dimension, k, value, count(*) AS count FROM (
           SELECT form_id, 'total' AS dimension, substr(created_at, 1, ${length}) AS k, '' AS value FROM submissions
           UNION ALL SELECT form_id, 'country', substr(created_at, 1, ${length}), coalesce(nullif(json_extract(data, '$._meta.country'), ''), 'ZZ') FROM submissions
           UNION ALL SELECT form_id, 'browser', substr(created_at, 1, ${length}), coalesce(nullif(json_extract(data, '$._meta.browser'), ''), 'unknown') FROM submissions
           UNION ALL SELECT form_id, 'device', substr(created_at, 1, ${length}), coalesce(nullif(json_extract(data, '$._meta.device'), ''), 'unknown') FROM submissions)
         WHERE form_id IN (?, ?, ?) GROUP BY form_id, dimension, k, value ORDER BY form_id, dimension, k, value`,
        ...forms,
      );
    await server.services.foldTallies(); // on PostgreSQL, the batches' deltas into the rows
    const daily = await server.query(
      "SELECT form_id, dimension, day AS k, value, count FROM form_daily_counts WHERE form_id IN (?, ?, ?) ORDER BY form_id, dimension, k, value",
      ...forms,
    );
    const monthly = await server.query(
      "SELECT form_id, dimension, month AS k, value, count FROM form_monthly_counts WHERE form_id IN (?, ?, ?) ORDER BY form_id, dimension, k, value",
      ...forms,
    );
    expect(daily.length).toBeGreaterThan(100);
    expect(daily).toEqual(await recount(10));
    expect(monthly).toEqual(await recount(7));
  });

  test("answers, for every kind of range, exactly what the listed submissions of that range add up to", async () => {
    const ranges: [string, string, string][] = [
      ["?period=year", "2025-11-23", "2026-11-22"],
      ["?period=month", "2026-10-24", "2026-11-22"],
      ["?period=week", "2026-11-16", "2026-11-22"],
      ["?period=day", "2026-11-22", "2026-11-22"],
      ["?startDate=2025-10-01&endDate=2026-11-22", "2025-10-01", "2026-11-22"],
      ["?startDate=2025-12-17&endDate=2026-03-02", "2025-12-17", "2026-03-02"],
      ["?startDate=2026-02-01&endDate=2026-02-28", "2026-02-01", "2026-02-28"],
      ["?startDate=2026-01-31&endDate=2026-03-01", "2026-01-31", "2026-03-01"],
      ["?startDate=2026-05-15", "2026-05-15", "2026-11-22"],
      ["?endDate=2026-01-05&period=week", "2025-12-30", "2026-01-05"],
      ["?endDate=2026-03-10", "2026-02-09", "2026-03-10"],
      ["?endDate=2026-06-30&period=year", "2025-07-01", "2026-06-30"],
    ];
    for (const formId of forms) {
      const items = await listAll(formId);
      expect(items.length).toBeGreaterThan(50);
      for (const [query, from, to] of ranges) {
        const { status, body } = await analytics(formId, query);
        expect([query, status]).toEqual([query, 200]);
        expect(body.period).toBe(query.includes("Date") ? "custom" : query.slice("?period=".length));
        const { period: _, ...rest } = body;
        expect([query, rest]).toEqual([query, expected(items, from, to)]);
        expect(body.submissionsOverTime.reduce((n: number, d: any) => n + d.count, 0)).toBe(body.totalSubmissions);
      }
    }
  });
});

describe("today", () => {
  test("turns over at UTC midnight, and periods early in January reach back into December", async () => {
    const formId = await newForm("new year");
    clock.set("2027-01-02T23:59:59.999Z");
    await server.services.submissions.submit(
      submitRequest({
        actor: OPERATOR,
        body: { formId, data: {} },
        submitter: {
          userAgent: CHROME,
          acceptLanguage: null,
          referer: null,
          origin: null,
          ip: "127.0.0.1",
          proxyCountry: "GB",
        },
      }),
    );
    const before = await analytics(formId, "?period=day");
    expect(before.body.submissionsOverTime).toEqual([{ date: "2027-01-02", count: 1 }]);

    clock.advance(1);
    const after = await analytics(formId, "?period=day");
    expect(after.body.submissionsOverTime).toEqual([{ date: "2027-01-03", count: 0 }]);
    expect(after.body.totalSubmissions).toBe(0);
    expect(after.body.topCountries).toEqual([]);

    const week = await analytics(formId, "?period=week");
    expect(week.body.submissionsOverTime.map((d: any) => d.date)).toEqual([
      "2026-12-28",
      "2026-12-29",
      "2026-12-30",
      "2026-12-31",
      "2027-01-01",
      "2027-01-02",
      "2027-01-03",
    ]);
    expect(week.body.totalSubmissions).toBe(1);
    const month = await analytics(formId);
    expect(month.body.submissionsOverTime[0].date).toBe("2026-12-05");
    expect(month.body.submissionsOverTime.length).toBe(30);
    clock.set("2026-11-22T12:00:00.000Z");
  });

  test("a year ending in a leap year counts February 29 as one of its 365 days", async () => {
    const formId = await newForm("leap");
    const { body } = await analytics(formId, "?endDate=2024-12-31&period=year");
    expect(body.submissionsOverTime.length).toBe(365);
    expect(body.submissionsOverTime[0].date).toBe("2024-01-02");
    expect(body.submissionsOverTime.some((d: any) => d.date === "2024-02-29")).toBe(true);

    clock.set("2025-02-28T00:00:00.000Z");
    const year = await analytics(formId, "?period=year");
    expect(year.body.submissionsOverTime[0].date).toBe("2024-03-01");
    expect(year.body.submissionsOverTime.at(-1).date).toBe("2025-02-28");
    clock.set("2026-11-22T12:00:00.000Z");
  });
});

describe("malformed input", () => {
  test("every impossible date, unknown period, reversed or oversized range is a 400 with an error message", async () => {
    const formId = await newForm("malformed");
    const longest = Date.parse("2021-06-01T00:00:00.000Z") + 1829 * DAY;
    const bad = [
      "?period=decade",
      "?period=",
      "?period=Day",
      "?period=MONTH",
      "?period=day%20",
      "?period=7",
      "?startDate=",
      "?endDate=",
      "?startDate=2026-02-29",
      "?endDate=2026-02-29",
      "?startDate=2026-02-30",
      "?startDate=2026-04-31",
      "?startDate=2026-13-01",
      "?startDate=2026-00-10",
      "?startDate=2026-01-00",
      "?startDate=2026-01-32",
      "?startDate=2026-1-01",
      "?startDate=2026-01-1",
      "?startDate=26-01-01",
      "?startDate=+02026-01-01",
      "?startDate=2026/01/01",
      "?startDate=20260101",
      "?startDate=2026-01-01T00:00:00Z",
      "?startDate=%202026-01-01",
      "?startDate=2026-01-01%20",
      "?startDate=abcd-ef-gh",
      "?endDate=1900-02-29",
      "?startDate=2026-11-10&endDate=2026-11-01",
      "?startDate=2026-11-23",
      "?startDate=2026-01-01&period=decade",
      "?endDate=2026-01-01&period=fortnight",
      `?startDate=2021-06-01&endDate=${day(longest + DAY)}`,
      "?startDate=2020-01-01",
      // Days before year 0000 have no YYYY-MM-DD form.
      "?endDate=0000-01-01",
      "?endDate=0000-01-05&period=week",
    ];
    for (const q of bad) {
      const { status, body } = await analytics(formId, q);
      expect([q, status]).toEqual([q, 400]);
      expect([q, typeof body.error]).toEqual([q, "string"]);
    }
    // The edges that are allowed: exactly 1,830 days, a single day, today as the start, a leap day.
    for (const q of [
      `?startDate=2021-06-01&endDate=${day(longest)}`,
      "?startDate=2026-11-01&endDate=2026-11-01",
      "?startDate=2026-11-22",
      "?startDate=2024-02-29&endDate=2024-02-29",
      "?endDate=2000-02-29",
      "?startDate=0000-01-01&endDate=0000-01-31",
    ]) {
      const { status } = await analytics(formId, q);
      expect([q, status]).toEqual([q, 200]);
    }
    expect(
      (await analytics(formId, `?startDate=2021-06-01&endDate=${day(longest)}`)).body.submissionsOverTime.length,
    ).toBe(1830);
  });
});
