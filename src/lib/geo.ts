import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { isIP } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { memoize } from "./lru";
// A file import yields a path: into node_modules from a checkout, under /$bunfs/ inside the compiled
// binary (which embeds the file).
import country4Path from "geoip-country/data/geoip-country.dat" with { type: "file" };
import country6Path from "geoip-country/data/geoip-country6.dat" with { type: "file" };

/** What formsvc uses of geoip-country (@types/geoip-country describes another version's API). */
interface GeoIpCountry {
  lookup(ip: string): { country?: string } | null;
}

// The data is immutable and ~8 MB: one copy per process, however many services are built.
let loaded: GeoIpCountry | null | undefined;

/**
 * An IP → ISO 3166-1 alpha-2 lookup over geoip-country's data (MaxMind GeoLite2 Country).
 * The lookup returns null for private, reserved, unknown or malformed addresses and never throws.
 * The data is loaded once per process, on the first lookup, so commands that never look up pay nothing.
 */
export function countryLookup(): (ip: string) => string | null {
  // A lookup is a binary search over the ranges after normalizing the text: microseconds, and a form's
  // visitors come back (a page and its retries, an office behind one address).
  return memoize<string | null>(4096, (ip) => {
    loaded ??= loadCountryData();
    if (!loaded) return null;
    const address = normalize(ip);
    if (!address) return null;
    try {
      const country = loaded.lookup(address)?.country;
      return country && /^[A-Z]{2}$/.test(country) ? country : null;
    } catch {
      return null;
    }
  });
}

/**
 * geoip-country reads its two data files synchronously when first required, from the folder named by
 * `global.geoip_datadir` (which it prefers to the GEOIP_DATADIR/GEODATADIR environment variables and
 * its package folder). Inside the binary it cannot open /$bunfs/ paths (fs.openSync fails there;
 * readFileSync works), so the files are staged into a private temporary folder, read by geoip-country
 * into memory, and the folder is removed again.
 */
function loadCountryData(): GeoIpCountry | null {
  let dir: string | undefined;
  const g = globalThis as { geoip_datadir?: string };
  const previous = g.geoip_datadir;
  try {
    dir = mkdtempSync(join(tmpdir(), "formsvc-geo-"));
    writeFileSync(join(dir, "geoip-country.dat"), readFileSync(country4Path), { mode: 0o600 });
    writeFileSync(join(dir, "geoip-country6.dat"), readFileSync(country6Path), { mode: 0o600 });
    g.geoip_datadir = dir;
    // A require inside the function, not an import: geoip-country must load after geoip_datadir is set.
    return require("geoip-country") as GeoIpCountry;
  } catch (e) {
    // Submissions still work without a country (stored as ZZ); say why once instead of failing them.
    process.stderr.write(
      `warning: country lookup disabled, geo data did not load: ${e instanceof Error ? e.message : String(e)}\n`,
    );
    return null;
  } finally {
    if (previous === undefined) delete g.geoip_datadir;
    else g.geoip_datadir = previous;
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
}

/** A bare IPv4 or IPv6 address from what a socket or proxy header gives: brackets, ports and zones removed. */
function normalize(raw: unknown): string | null {
  if (typeof raw !== "string" || raw.length > 64) return null;
  let ip = raw.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(ip); // [2001:db8::1]:443
  if (bracketed) ip = bracketed[1]!;
  else if (/^[\d.]+:\d+$/.test(ip)) ip = ip.slice(0, ip.lastIndexOf(":")); // 1.2.3.4:5678
  ip = ip.replace(/%.*$/, ""); // fe80::1%eth0
  const version = isIP(ip);
  if (version === 4) return ip;
  if (version !== 6) return null;
  // geoip-country maps only the dotted ::ffff:a.b.c.d form to IPv4; the hex form would be misread.
  const mapped = /^(?:0{0,4}:){0,4}(?::|0{0,4}:)ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(ip);
  if (mapped) {
    const hi = parseInt(mapped[1]!, 16);
    const lo = parseInt(mapped[2]!, 16);
    return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  }
  return ip;
}
