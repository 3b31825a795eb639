import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { isIP } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
// A file import yields a path: into node_modules from a checkout, under /$bunfs/ inside the compiled
// binary (which embeds the file). Only the two country files are referenced, so the ~110 MB of city
// data never ends up in the binary.
import country4Path from "geoip-lite/data/geoip-country.dat" with { type: "file" };
import country6Path from "geoip-lite/data/geoip-country6.dat" with { type: "file" };

type GeoIp = typeof import("geoip-lite");

// The data is immutable and ~6.5 MB: one copy per process, however many services are built.
let loaded: GeoIp | null | undefined;

/**
 * An IP → ISO 3166-1 alpha-2 lookup over geoip-lite's country data (never its city data).
 * The lookup returns null for private, reserved, unknown or malformed addresses and never throws.
 * The data is loaded once per process, on the first lookup, so commands that never look up pay nothing.
 */
export function countryLookup(): (ip: string) => string | null {
  return (ip) => {
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
  };
}

/**
 * geoip-lite reads its data synchronously when first required, from `global.geodatadir`, and
 * prefers the city files when they sit in that folder. Its package folder holds them, and inside
 * the binary it cannot open /$bunfs/ paths (fs.openSync fails there; readFileSync works). So the
 * two country files are staged into a private temporary folder, read by geoip-lite into memory,
 * and the folder is removed again.
 */
function loadCountryData(): GeoIp | null {
  let dir: string | undefined;
  const g = globalThis as { geodatadir?: string };
  const previous = g.geodatadir;
  try {
    dir = mkdtempSync(join(tmpdir(), "formsvc-geo-"));
    writeFileSync(join(dir, "geoip-country.dat"), readFileSync(country4Path), { mode: 0o600 });
    writeFileSync(join(dir, "geoip-country6.dat"), readFileSync(country6Path), { mode: 0o600 });
    g.geodatadir = dir;
    // A require inside the function, not an import: geoip-lite must load after geodatadir is set.
    return require("geoip-lite") as GeoIp;
  } catch (e) {
    // Submissions still work without a country (stored as ZZ); say why once instead of failing them.
    process.stderr.write(`warning: country lookup disabled, geo data did not load: ${e instanceof Error ? e.message : String(e)}\n`);
    return null;
  } finally {
    if (previous === undefined) delete g.geodatadir;
    else g.geodatadir = previous;
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
  // geoip-lite maps only the dotted ::ffff:a.b.c.d form to IPv4; the hex form would be misread.
  const mapped = /^(?:0{0,4}:){0,4}(?::|0{0,4}:)ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(ip);
  if (mapped) {
    const hi = parseInt(mapped[1]!, 16);
    const lo = parseInt(mapped[2]!, 16);
    return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  }
  return ip;
}
