import type * as UA from "ua-parser-js";
import type * as UAExtensions from "ua-parser-js/extensions";
import { memoize } from "../../lib/lru";

/** What the server records about a submitter. The raw IP is used for the country and then forgotten. */
export interface SubmissionMeta {
  browser: string | null;
  browserVersion: string | null;
  os: string | null;
  osVersion: string | null;
  device: Device;
  country: string;
  language: string | null;
  referrer: string | null;
}

export const DEVICES = ["desktop", "mobile", "tablet", "smarttv", "wearable", "console", "bot", "unknown"] as const;
export type Device = (typeof DEVICES)[number];

/** The request facts `_meta` and the submit checks are made from; plain values, no HTTP objects. */
export interface SubmitterInfo {
  userAgent: string | null;
  acceptLanguage: string | null;
  referer: string | null;
  /** The `Origin` header, as sent (`null` from opaque origins). */
  origin: string | null;
  ip: string;
  proxyCountry: string | null;
}

// The device types the parser names that we keep as they are; "desktop" it never names.
const PARSED_DEVICES = new Set<string>(["mobile", "tablet", "smarttv", "wearable", "console"]);
const BOT_TYPES = new Set<string>(["crawler", "fetcher"]);
const MAX_UA_LENGTH = 512;

type Agent = Pick<SubmissionMeta, "browser" | "browserVersion" | "os" | "osVersion" | "device">;

// The parser and its bot list load on the first submission, not at start (idle memory).
let parser: { UAParser: typeof UA.UAParser; Bots: typeof UAExtensions.Bots } | undefined;

// Parsing one User-Agent costs tens of microseconds; real traffic repeats a few hundred of them.
const parseAgent = memoize<Agent>(2048, (ua) => {
  if (!ua) return { browser: null, browserVersion: null, os: null, osVersion: null, device: "unknown" };
  parser ??= { UAParser: require("ua-parser-js").UAParser, Bots: require("ua-parser-js/extensions").Bots };
  const r = new parser.UAParser(ua, parser.Bots).getResult();
  const type = r.browser.type as string | undefined;
  let device: Device;
  if (type && BOT_TYPES.has(type)) device = "bot";
  else if (type)
    device = "unknown"; // command-line tools and HTTP libraries are no one's device
  else if (r.device.type) device = PARSED_DEVICES.has(r.device.type) ? (r.device.type as Device) : "unknown";
  // Browsers name no device type on desktops; a User-Agent with no browser and no OS in it is no evidence of one.
  else device = r.browser.name || r.os.name ? "desktop" : "unknown";
  return {
    browser: r.browser.name ?? null,
    browserVersion: r.browser.version ?? null,
    os: r.os.name ?? null,
    osVersion: r.os.version ?? null,
    device,
  };
});

/**
 * The primary subtag, lower-cased, of the Accept-Language entry with the highest weight (the first
 * of equals; `*` and q=0 never), among `known` when given (the languages a page is written in).
 */
export function primaryLanguage(header: string | null, known?: ReadonlySet<string>): string | null {
  if (!header) return null;
  let best: string | null = null;
  let bestWeight = 0;
  for (const entry of header.split(",", 32)) {
    const [range = "", ...params] = entry.split(";");
    const tag = range.trim().split("-")[0]!.toLowerCase();
    if (!/^[a-z]{1,8}$/.test(tag) || (known && !known.has(tag))) continue;
    const q = params.map((p) => p.trim()).find((p) => /^q=/i.test(p));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    if (weight > bestWeight) [best, bestWeight] = [tag, weight];
  }
  return best;
}

/** Only the origin of the referring page: paths and queries can hold personal data. */
function refererOrigin(header: string | null): string | null {
  if (!header) return null;
  try {
    const url = new URL(header);
    return url.protocol === "http:" || url.protocol === "https:" ? url.origin : null;
  } catch {
    return null;
  }
}

/** Builds `_meta`; `countryOf` maps an IP to ISO 3166-1 alpha-2 (null when unknown). */
export function buildMeta(info: SubmitterInfo, countryOf: (ip: string) => string | null): SubmissionMeta {
  return {
    ...parseAgent(info.userAgent?.slice(0, MAX_UA_LENGTH) ?? ""),
    country: info.proxyCountry ?? countryOf(info.ip) ?? "ZZ",
    language: primaryLanguage(info.acceptLanguage),
    referrer: refererOrigin(info.referer),
  };
}
