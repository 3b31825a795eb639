import { beforeEach, describe, expect, test } from "bun:test";
import { fixedClock } from "../../src/lib/clock";
import { onSqlite } from "../helpers/engine";
import { useServer } from "../helpers/fixture";

describe("rate limiting", () => {
  const clock = fixedClock("2026-03-01T12:00:00.000Z");
  const server = useServer({ config: { rateLimit: 3, rateWindow: 2 }, rateClock: clock });
  const a = server.seed("a@example.com");
  const b = server.seed("b@example.com");

  test("refuses with 429, Retry-After and the headers once the bucket is empty, and serves again at X-RateLimit-Reset", async () => {
    const remaining: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await server.request(`/api/v1/forms/${a.formId}`, { key: a.key });
      expect(res.status).toBe(200);
      expect(res.headers.get("x-ratelimit-limit")).toBe("3");
      remaining.push(res.headers.get("x-ratelimit-remaining")!);
      await res.text();
    }
    expect(remaining).toEqual(["2", "1", "0"]);
    const refused = await server.request(`/api/v1/forms/${a.formId}`, { key: a.key });
    expect(refused.status).toBe(429);
    // Three tokens over 2 s: the next one in 2/3 s, rounded up; all of them 2 s from now.
    expect(refused.headers.get("retry-after")).toBe("1");
    expect((await refused.json()).code).toBe("RATE_LIMITED");
    const reset = Number(refused.headers.get("x-ratelimit-reset"));
    expect(reset).toBe(clock.now() / 1000 + 2);

    // Key b has its own bucket.
    expect((await server.request(`/api/v1/forms/${b.formId}`, { key: b.key })).status).toBe(200);

    clock.set(reset * 1000);
    const again = await server.request(`/api/v1/forms/${a.formId}`, { key: a.key });
    expect(again.status).toBe(200);
    expect(again.headers.get("x-ratelimit-remaining")).toBe("2");
  });

  test("buckets requests without a valid key by client IP, apart from the keys", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++)
      statuses.push((await server.request("/api/v1/forms/list", { key: "fsk_invalid" })).status);
    expect(statuses).toEqual([401, 401, 401, 429]);
    expect((await server.request(`/api/v1/forms/${b.formId}`, { key: b.key })).status).toBe(200);
    // The health probe from the same address still answers: it reads the bucket without taking from it.
    const health = await server.request("/healthz");
    expect([health.status, health.headers.get("x-ratelimit-remaining")]).toEqual([200, "0"]);
    expect((await server.request("/api/v1/forms/list", { key: "fsk_invalid" })).status).toBe(429);
  });
});

describe("rate limiting by client address", () => {
  // Two tokens per minute (one back every 30 s); each table holds at most 8 buckets.
  const BOUND = 8;
  const clock = fixedClock("2026-03-01T12:00:00.000Z");
  const server = useServer({
    config: { rateLimit: 2, rateWindow: 60, trustProxy: true },
    rateClock: clock,
    rateMaxBuckets: BOUND,
  });
  const owner = server.seed("owner@example.com");
  // A whole window later every bucket is full again: each test starts from an empty table.
  beforeEach(() => clock.advance(60_000));

  /** A keyless request presented as coming from `address`: 401 when it got a token, 429 when not. */
  const from = async (address: string) => {
    const res = await server.request("/api/v1/forms/list", { headers: { "x-forwarded-for": address } });
    await res.arrayBuffer();
    return { status: res.status, remaining: res.headers.get("x-ratelimit-remaining") };
  };
  const withKey = async (key: string, address: string) => {
    const res = await server.request("/api/v1/forms/list", { key, headers: { "x-forwarded-for": address } });
    await res.arrayBuffer();
    return res.status;
  };

  test("a flood of distinct addresses past the bound leaves another key's and another address's emptied buckets as they were", async () => {
    expect([
      await withKey(owner.key, "192.0.2.1"),
      await withKey(owner.key, "192.0.2.1"),
      await withKey(owner.key, "192.0.2.1"),
    ]).toEqual([200, 200, 429]);
    expect([
      (await from("192.0.2.99")).status,
      (await from("192.0.2.99")).status,
      (await from("192.0.2.99")).status,
    ]).toEqual([401, 401, 429]);

    for (let i = 0; i < 5 * BOUND; i++) await from(`203.0.113.${i}`);
    expect(await withKey(owner.key, "192.0.2.1")).toBe(429);
    expect((await from("192.0.2.99")).status).toBe(429);

    // Half a window on, the flood's buckets are full again and make room for a second wave; the
    // emptied ones have exactly the one token their own refill gives them, not a fresh quota.
    clock.advance(30_000);
    for (let i = 0; i < 5 * BOUND; i++) await from(`198.51.100.${i}`);
    expect([await withKey(owner.key, "192.0.2.1"), await withKey(owner.key, "192.0.2.1")]).toEqual([200, 429]);
    expect([await from("192.0.2.99"), await from("192.0.2.99")]).toEqual([
      { status: 401, remaining: "0" },
      { status: 429, remaining: "0" },
    ]);
  });

  // The bound on buckets held in memory (one process per SQLite file); on PostgreSQL every bucket is a row of the shared table.
  test.if(onSqlite)(
    "new addresses share one overflow bucket while the table is full of buckets still refilling, and a key keeps its own",
    async () => {
      for (let i = 1; i <= BOUND; i++) expect(await from(`203.0.113.${i}`)).toEqual({ status: 401, remaining: "1" });
      // No fresh quota per newcomer: the next three addresses share two tokens.
      expect(await from("203.0.113.101")).toEqual({ status: 401, remaining: "1" });
      expect(await from("203.0.113.102")).toEqual({ status: 401, remaining: "0" });
      expect(await from("203.0.113.103")).toEqual({ status: 429, remaining: "0" });
      // The addresses already held keep their own buckets, and keys live in a table of their own.
      expect(await from("203.0.113.1")).toEqual({ status: 401, remaining: "0" });
      expect([await withKey(owner.key, "203.0.113.104"), await withKey(owner.key, "203.0.113.104")]).toEqual([
        200, 200,
      ]);

      // Once buckets have refilled there is room again: a newcomer gets a bucket of its own.
      clock.advance(30_000);
      expect(await from("203.0.113.103")).toEqual({ status: 401, remaining: "1" });
      expect(await from("203.0.113.103")).toEqual({ status: 401, remaining: "0" });
    },
  );

  // Each request in order: its address, then the status and X-RateLimit-Remaining it gets.
  test.each([
    {
      name: "two addresses in one IPv6 /64 share a bucket, addresses in different /64s do not",
      requests: [
        ["2001:db8:1:2::1", 401, "1"],
        ["2001:db8:1:2:ffff:ffff:ffff:9", 401, "0"],
        ["2001:DB8:0001:0002::abc", 429, "0"],
        ["2001:db8:1:3::1", 401, "1"],
        ["2001:db8:2:2::1", 401, "1"],
      ],
    },
    {
      name: "an IPv4-mapped IPv6 address shares its IPv4 address's bucket, in dotted and in hex form",
      requests: [
        ["192.0.2.4", 401, "1"],
        ["::ffff:192.0.2.4", 401, "0"],
        ["::ffff:c000:204", 429, "0"],
        ["192.0.2.5", 401, "1"],
      ],
    },
    {
      name: "addresses that cannot be read share one bucket, apart from every real address",
      requests: [
        ["not-an-address", 401, "1"],
        ["999.1.1.1", 401, "0"],
        ["2001:db8::zz", 429, "0"],
        ["192.0.2.6", 401, "1"],
      ],
    },
  ] as { name: string; requests: [string, number, string][] }[])("$name", async ({ requests }) => {
    for (const [address, status, remaining] of requests)
      expect([address, await from(address)]).toEqual([address, { status, remaining }]);
  });
});
