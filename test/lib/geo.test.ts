import { describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { countryLookup } from "../../src/lib/geo";
import { tempDir } from "../helpers/harness";

const GEO = join(import.meta.dir, "../../src/lib/geo.ts");
const country = countryLookup();

describe("countryLookup", () => {
  test.each([
    ["81.2.69.142", "GB"],
    ["8.8.8.8", "US"],
    ["2001:4860:4860::8888", "US"],
    ["::ffff:81.2.69.142", "GB"],
    ["::ffff:5102:458e", "GB"],
    ["[2001:4860:4860::8888]:443", "US"],
    ["81.2.69.142:51234", "GB"],
  ])("maps the public address %p to %p", (ip, expected) => {
    expect(country(ip)).toBe(expected);
  });

  test.each(["10.0.0.1", "192.168.1.1", "172.16.5.4", "127.0.0.1", "169.254.1.1", "::1", "fc00::1", "fe80::1%eth0", "2001:db8::1", "0.0.0.0"])(
    "answers null for the private or reserved address %p",
    (ip) => {
      expect(country(ip)).toBeNull();
    },
  );

  test.each(["garbage", "", "unknown", "999.1.1.1", "1.2.3", "1.2.3.4, 5.6.7.8"])("answers null for the malformed input %p", (ip) => {
    expect(country(ip)).toBeNull();
  });

  test("never throws, whatever it is handed", () => {
    expect(country("8".repeat(100_000))).toBeNull();
    for (const junk of [undefined, null, 42, {}, [], Symbol("s")]) expect(country(junk as unknown as string)).toBeNull();
  });

  test("loads the country data only, in a few MB, and leaves no staging folder behind", () => {
    // A fresh process, so the measure is of the load alone and no other test shares the module.
    const tmp = tempDir();
    try {
      const script = `
        import { countryLookup } from ${JSON.stringify(GEO)};
        Bun.gc(true);
        const before = process.memoryUsage().rss;
        const found = countryLookup()("81.2.69.142");
        Bun.gc(true);
        const after = process.memoryUsage().rss;
        const full = require("geoip-lite").lookup("81.2.69.142");
        console.log(JSON.stringify({ found, addedMb: (after - before) / 1048576, city: full.city, region: full.region }));`;
      const res = Bun.spawnSync([process.execPath, "-e", script], { env: { ...process.env, TMPDIR: tmp.dir }, stdout: "pipe", stderr: "pipe" });
      expect(res.stderr.toString()).toBe("");
      const out = JSON.parse(res.stdout.toString());
      expect(out.found).toBe("GB");
      // The country files hold no city or region; the city database would add well over 100 MB.
      expect(out.city).toBe("");
      expect(out.region).toBe("");
      expect(out.addedMb).toBeLessThan(32);
      expect(readdirSync(tmp.dir)).toEqual([]);
    } finally {
      tmp.cleanup();
    }
  });
});
