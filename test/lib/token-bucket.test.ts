import { describe, expect, test } from "bun:test";
import { TokenBuckets } from "../../src/lib/token-bucket";

describe("TokenBuckets", () => {
  test("refill evenly over the window and report when the bucket is full again", () => {
    let now = 1_000_000;
    const buckets = new TokenBuckets(4, 2, () => now);
    for (let i = 0; i < 4; i++) expect(buckets.take("k").allowed).toBe(true);
    const refused = buckets.take("k");
    expect(refused).toMatchObject({ allowed: false, remaining: 0, retryAfter: 1, reset: Math.ceil((now + 2000) / 1000) });
    now += 500; // one token back (4 per 2 s)
    expect(buckets.take("k")).toMatchObject({ allowed: true, remaining: 0 });
  });

  test("forget buckets that have refilled, so memory stays bounded under many callers", () => {
    let now = 0;
    const buckets = new TokenBuckets(10, 1, () => now);
    for (let i = 0; i < 5000; i++) buckets.take(`ip:${i}`);
    expect(buckets.size).toBe(5000);
    now += 1500;
    buckets.take("someone-new");
    expect(buckets.size).toBe(1);
  });

  test("never hold more than their cap of buckets", () => {
    const buckets = new TokenBuckets(10, 60, () => 0, 100);
    for (let i = 0; i < 1000; i++) buckets.take(`ip:${i}`);
    expect(buckets.size).toBeLessThanOrEqual(100);
  });
});
