import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "../..");
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
const lock = JSON.parse(readFileSync(join(ROOT, "package-lock.json"), "utf8"));

// The oldest Node the README promises; `npm install` on it must not print EBADENGINE warnings.
const OLDEST_NODE = "20.19.0";

describe("npm install", () => {
  test("every locked package, dev ones included, accepts the oldest Node the README names", () => {
    const refused = Object.entries<{ engines?: { node?: string } }>(lock.packages)
      .filter(([, p]) => p.engines?.node && !Bun.semver.satisfies(OLDEST_NODE, p.engines.node))
      .map(([path, p]) => `${path} wants node ${p.engines!.node}`);
    expect(refused).toEqual([]);
  });

  test("package.json and the README name that same oldest Node", () => {
    expect(Bun.semver.satisfies(OLDEST_NODE, pkg.engines.node)).toBe(true);
    expect(Bun.semver.satisfies("20.18.0", pkg.engines.node)).toBe(false);
    expect(readFileSync(join(ROOT, "README.md"), "utf8")).toContain("Node.js (20.19 or later)");
  });
});
