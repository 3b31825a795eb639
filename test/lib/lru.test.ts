import { expect, test } from "bun:test";
import { memoize } from "../../src/lib/lru";

test("memoize computes a key once while it is among the recent ones, keeps at most its size, and keeps a key in use through any churn", () => {
  const computed: string[] = [];
  const memo = memoize(8, (key) => {
    computed.push(key);
    return key === "none" ? null : key.toUpperCase();
  });
  const ask = (keys: string[]) => keys.map((k) => memo(k));
  const cases: { name: string; asked: string[]; answers: (string | null)[]; computed: string[] }[] = [
    { name: "first asks compute", asked: ["a", "b", "none"], answers: ["A", "B", null], computed: ["a", "b", "none"] },
    {
      name: "repeats do not (null kept too)",
      asked: ["a", "none", "b", "a"],
      answers: ["A", null, "B", "A"],
      computed: [],
    },
    {
      name: "a key asked between every new one stays through 20 others",
      asked: Array.from({ length: 20 }, (_, i) => [`k${i}`, "a"]).flat(),
      answers: Array.from({ length: 20 }, (_, i) => [`K${i}`, "A"]).flat(),
      computed: Array.from({ length: 20 }, (_, i) => `k${i}`),
    },
    // k19 is the newest: kept; k0 went out many keys ago: computed again.
    {
      name: "old keys are forgotten, recent ones kept",
      asked: ["k19", "k0"],
      answers: ["K19", "K0"],
      computed: ["k0"],
    },
  ];
  for (const c of cases) {
    computed.length = 0;
    expect({ case: c.name, answers: ask(c.asked), computed }).toEqual({
      case: c.name,
      answers: c.answers,
      computed: c.computed,
    });
  }
  // At most 8 keys are held: of 16 fresh keys, asking them all again recomputes at least 8.
  const fresh = Array.from({ length: 16 }, (_, i) => `f${i}`);
  ask(fresh);
  computed.length = 0;
  ask(fresh);
  expect(computed.length).toBeGreaterThanOrEqual(8);
});
