/** Times and places as a person reads them in an email, rather than as ISO 8601 and country codes. */

/** The shape of an IANA name (`Europe/Berlin`, `UTC`); Intl also takes offsets like "+01:00", which are not zones. */
export const IANA_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/;

/** The canonical spelling of an IANA time zone name (`europe/berlin` → `Europe/Berlin`), or null when there is no such zone. */
export function canonicalTimeZone(name: string): string | null {
  if (!IANA_NAME.test(name)) return null;
  try {
    return new Intl.DateTimeFormat("en", { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

const formats = new Map<string, Intl.DateTimeFormat>();

/** An ISO time in a reader's zone: "Sun, 29 Nov 2026, 00:55 CET". An unknown zone reads as UTC. */
export function peopleTime(iso: string, timeZone = "UTC"): string {
  // Keyed by the name as given (stored names are canonical already): a digest asks once per item.
  let format = formats.get(timeZone);
  if (!format) {
    const zone = canonicalTimeZone(timeZone) ?? "UTC";
    format = new Intl.DateTimeFormat("en-GB", {
      weekday: "short",
      day: "numeric",
      month: "short",
      year: "numeric",
      hour: "2-digit",
      minute: "2-digit",
      timeZone: zone,
      timeZoneName: "short",
    });
    formats.set(timeZone, format);
  }
  const at = new Date(iso);
  return Number.isNaN(at.getTime()) ? iso : format.format(at);
}

const regions = new Intl.DisplayNames(["en"], { type: "region", fallback: "none" });

/** A country's English name from its ISO 3166 code, or null when it is unknown (`ZZ`, missing, not a code). */
export function countryName(code: unknown): string | null {
  if (typeof code !== "string" || !/^[A-Z]{2}$/.test(code) || code === "ZZ") return null;
  try {
    return regions.of(code) ?? null;
  } catch {
    return null;
  }
}
