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

  test("every locked package with an install script is allowed or denied in allowScripts, so npm install warns of none", () => {
    // Named without a version: the lockfile keeps no resolved URL, and npm only pins by that URL's version.
    const unreviewed = Object.entries<{ hasInstallScript?: boolean }>(lock.packages)
      .filter(([, p]) => p.hasInstallScript)
      .map(([path]) => path.slice(path.lastIndexOf("node_modules/") + "node_modules/".length))
      .filter((name) => typeof pkg.allowScripts?.[name] !== "boolean");
    expect(unreviewed).toEqual([]);
    // bun's postinstall fetches the pinned Bun itself, and the tests need it.
    expect(pkg.allowScripts.bun).toBe(true);
  });

  test("package.json and the README name that same oldest Node", () => {
    expect(Bun.semver.satisfies(OLDEST_NODE, pkg.engines.node)).toBe(true);
    expect(Bun.semver.satisfies("20.18.0", pkg.engines.node)).toBe(false);
    expect(readFileSync(join(ROOT, "README.md"), "utf8")).toContain("Node.js (20.19 or later)");
  });
});
