import { describe, expect, test } from "bun:test";
import { TokenBuckets } from "../../src/lib/token-bucket";

/** Takes from `name` until refused; returns how many were allowed. */
function drain(buckets: TokenBuckets, name: string): number {
  let allowed = 0;
  while (buckets.take(name).allowed) allowed++;
  return allowed;
}

describe("TokenBuckets", () => {
  test("refill evenly over the window and report when the bucket is full again", () => {
    let now = 1_000_000;
    const buckets = new TokenBuckets(4, 2, () => now);
    for (let i = 0; i < 4; i++) expect(buckets.take("k").allowed).toBe(true);
    const refused = buckets.take("k");
    expect(refused).toMatchObject({
      allowed: false,
      remaining: 0,
      retryAfter: 1,
      reset: Math.ceil((now + 2000) / 1000),
    });
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

  test("drop a bucket once it has refilled completely, never one that is still refilling", () => {
    let now = 0;
    const buckets = new TokenBuckets(4, 4, () => now); // one token a second
    buckets.take("took-one");
    drain(buckets, "emptied");
    now = 1000; // took-one is full again; emptied holds one token
    buckets.take("newcomer");
    expect(buckets.size).toBe(2);
    // emptied kept its history: one token, not a fresh four.
    expect(drain(buckets, "emptied")).toBe(1);
    now = 10_000;
    buckets.take("later");
    expect(buckets.size).toBe(1);
  });

  test("a flood of distinct names past the bound never changes the answers another bucket gives", () => {
    let now = 0;
    const flooded = new TokenBuckets(4, 60, () => now, 100);
    const control = new TokenBuckets(4, 60, () => now, 100);
    for (const table of [flooded, control]) {
      drain(table, "key:victim");
      drain(table, "ip:victim");
    }
    let largest = 0;
    // 20,000 names over 120 s: the flood's buckets refill and get evicted while the victims' are still refilling.
    for (let i = 0; i < 20_000; i++) {
      now += 6;
      flooded.take(`ip:flood-${i}`);
      largest = Math.max(largest, flooded.size);
      if (i % 1000 === 999) {
        for (const victim of ["key:victim", "ip:victim"])
          expect([i, victim, flooded.take(victim, 0)]).toEqual([i, victim, control.take(victim, 0)]);
      }
      // Spend each victim's token the moment it comes back, in both tables alike.
      if (i % 2500 === 0)
        for (const victim of ["key:victim", "ip:victim"]) expect(flooded.take(victim)).toEqual(control.take(victim));
    }
    expect(largest).toBe(100);
    expect(flooded.take("key:victim", 0).remaining).toBe(control.take("key:victim", 0).remaining);
  });

  test("hold no more buckets than the bound, whatever the names and timing", () => {
    let now = 0;
    const buckets = new TokenBuckets(3, 10, () => now, 50);
    let largest = 0;
    for (let i = 0; i < 30_000; i++) {
      now += i % 7;
      buckets.take(`n${(i * 7919) % 4000}`, i % 3);
      largest = Math.max(largest, buckets.size);
    }
    expect(largest).toBe(50);
  });

  test("give newcomers one shared overflow bucket while every bucket held is still refilling", () => {
    let now = 0;
    const buckets = new TokenBuckets(2, 60, () => now, 3); // one token per 30 s
    for (const name of ["a", "b", "c"]) expect(buckets.take(name).remaining).toBe(1);
    // No fresh quota for each newcomer: d and e share two tokens, f finds none.
    expect(buckets.take("d")).toMatchObject({ allowed: true, remaining: 1 });
    expect(buckets.take("e")).toMatchObject({ allowed: true, remaining: 0 });
    expect(buckets.take("f")).toMatchObject({ allowed: false, remaining: 0, retryAfter: 30 });
    expect(buckets.size).toBe(3);
    // The buckets held are untouched by the newcomers: a still has its own last token.
    expect(buckets.take("a")).toMatchObject({ allowed: true, remaining: 0 });

    now = 30_000; // b and c are full again, a (emptied) is not
    expect(buckets.take("f")).toMatchObject({ allowed: true, remaining: 1 });
    expect(buckets.take("f")).toMatchObject({ allowed: true, remaining: 0 });
    expect(buckets.take("a")).toMatchObject({ allowed: true, remaining: 0 });
    expect(buckets.size).toBe(2);
  });

  test("look past an emptied oldest bucket to evict a younger one that is full, keeping the emptied one", () => {
    let now = 0;
    const buckets = new TokenBuckets(2, 60, () => now, 3); // one token per 30 s
    drain(buckets, "old");
    now = 1;
    buckets.take("x");
    buckets.take("y");
    now = 31_000; // x and y are full again; old has one token of two
    // Each newcomer gets a quota of its own (two tokens), not the shared overflow bucket's.
    expect(drain(buckets, "new-1")).toBe(2);
    expect(drain(buckets, "new-2")).toBe(2);
    expect(buckets.size).toBe(3);
    // Now everything held is refilling: the next ones share the overflow bucket.
    expect(drain(buckets, "new-3") + drain(buckets, "new-4")).toBe(2);
    expect(drain(buckets, "old")).toBe(1);
  });

  test("take no tokens away when the clock steps back", () => {
    let now = 10_000;
    const buckets = new TokenBuckets(4, 4, () => now); // one token a second
    expect(buckets.take("k").remaining).toBe(3);
    now = 5_000;
    expect(buckets.take("k")).toMatchObject({ allowed: true, remaining: 2 });
    now = 11_000;
    expect(buckets.take("k")).toMatchObject({ allowed: true, remaining: 2 });
  });
});
