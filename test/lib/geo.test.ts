import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { countryLookup } from "../../src/lib/geo";
import { tempDir } from "../helpers/harness";

const GEO = join(import.meta.dir, "../../src/lib/geo.ts");
const ROOT = join(import.meta.dir, "../..");
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

  test.each([
    "10.0.0.1",
    "192.168.1.1",
    "172.16.5.4",
    "127.0.0.1",
    "169.254.1.1",
    "::1",
    "fc00::1",
    "fe80::1%eth0",
    "2001:db8::1",
    "0.0.0.0",
  ])("answers null for the private or reserved address %p", (ip) => {
    expect(country(ip)).toBeNull();
  });

  test.each(["garbage", "", "unknown", "999.1.1.1", "1.2.3", "1.2.3.4, 5.6.7.8"])(
    "answers null for the malformed input %p",
    (ip) => {
      expect(country(ip)).toBeNull();
    },
  );

  test("never throws, whatever it is handed", () => {
    expect(country("8".repeat(100_000))).toBeNull();
    for (const junk of [undefined, null, 42, {}, [], Symbol("s")])
      expect(country(junk as unknown as string)).toBeNull();
  });

  test("loads the embedded country data in a few MB, whatever data folder the environment names, and leaves no staging folder behind", () => {
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
        const full = require("geoip-country").lookup("81.2.69.142");
        console.log(JSON.stringify({ found, addedMb: (after - before) / 1048576, keys: Object.keys(full) }));`;
      // geoip-country would read its data from these folders, which do not exist, if formsvc let it.
      const elsewhere = join(tmp.dir, "missing");
      const env = {
        ...process.env,
        TMPDIR: tmp.dir,
        GEOIP_DATADIR: elsewhere,
        GEODATADIR: elsewhere,
        npm_config_geoip_datadir: elsewhere,
      };
      const res = Bun.spawnSync([process.execPath, "-e", script], { env, stdout: "pipe", stderr: "pipe" });
      expect(res.stderr.toString()).toBe("");
      const out = JSON.parse(res.stdout.toString());
      expect(out.found).toBe("GB");
      // Country data only: no city, region or coordinates in what the library knows.
      expect(out.keys).toContain("country");
      expect(out.keys).not.toContain("city");
      expect(out.keys).not.toContain("latitude");
      expect(out.addedMb).toBeLessThan(32);
      expect(readdirSync(tmp.dir)).toEqual([]);
    } finally {
      tmp.cleanup();
    }
  });

  test("the API docs name the pinned geoip-country version and the date of its data", () => {
    const version: string = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).dependencies["geoip-country"];
    // geoip-country's versions end in the data's timestamp: 5.0.YYYYMMDDhhmm.
    const stamp = /^\d+\.\d+\.(\d{4})(\d{2})(\d{2})\d{4}$/.exec(version);
    expect(stamp).not.toBeNull();
    const [, y, m, d] = stamp!;
    expect(readFileSync(join(ROOT, "docs/api.md"), "utf8")).toContain(
      `\`geoip-country\` package: ${version}, data of ${y}-${m}-${d}`,
    );
  });
});
