import ipaddr from "ipaddr.js";
import { memoize } from "./lru";

/** Where a request came from, as far as we may believe it. */
export interface ClientOrigin {
  ip: string;
  /** Country given by a trusted proxy (Cloudflare's CF-IPCountry), if any. */
  proxyCountry: string | null;
  /** The socket's peer is a trusted proxy, so its forwarding headers (X-Forwarded-Proto too) may be read. */
  viaProxy: boolean;
}

/** Loopback and the private ranges: the proxies FORMSVC_TRUST_PROXY=true trusts. */
export const LOCAL_PROXY_RANGES = [
  "127.0.0.0/8",
  "::1/128",
  "10.0.0.0/8",
  "172.16.0.0/12",
  "192.168.0.0/16",
  "fc00::/7",
] as const;

/** The header a trusted proxy names the client in (FORMSVC_CLIENT_IP_HEADER). */
export const CLIENT_IP_HEADERS = ["X-Forwarded-For", "CF-Connecting-IP"] as const;
export type ClientIpHeader = (typeof CLIENT_IP_HEADERS)[number];

/** Which peers are proxies whose forwarding headers we believe, and which header names the client. */
export interface ProxyTrust {
  trusts(address: string): boolean;
  header: ClientIpHeader;
}

type Address = ipaddr.IPv4 | ipaddr.IPv6;

// "[2001:db8::1]:443" and "203.0.113.7:51234": some proxies (Azure's) put the port into X-Forwarded-For.
const BRACKETED = /^\[([^\]]+)\](?::\d{1,5})?$/;
const IPV4_WITH_PORT = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/;

/**
 * An address as a socket or a proxy writes it (port and brackets allowed), IPv4-mapped IPv6 as its
 * IPv4 address; null for anything else. Only dotted decimal for IPv4: inet_aton's "127.1" or
 * "0x7f000001" come from no socket or proxy, only from someone typing a header.
 */
export function parseAddress(text: string): Address | null {
  const trimmed = text.trim();
  const host = BRACKETED.exec(trimmed)?.[1] ?? IPV4_WITH_PORT.exec(trimmed)?.[1] ?? trimmed;
  if (ipaddr.IPv4.isValidFourPartDecimal(host)) return ipaddr.IPv4.parse(host);
  // ipaddr.js reads "::1.2.3.4" as "::ffff:1.2.3.4"; no proxy writes an IPv4 tail but the mapped one.
  if (host.includes(".") && !/^::ffff:[\d.]+$/i.test(host)) return null;
  return ipaddr.IPv6.isValid(host) ? ipaddr.process(host) : null;
}

// Parsing an address with ipaddr.js costs microseconds, and a server sees the same few peers (its
// proxies) and a bounded set of recent clients: both answers are kept for the most recent addresses.
const MEMO_SIZE = 4096;

/** An address as `parseAddress` reads it, in its canonical text; null when it is none. */
const canonical = memoize<string | null>(MEMO_SIZE, (text) => parseAddress(text)?.toString() ?? null);

/** A ProxyTrust for address and CIDR ranges already checked by config.ts (`proxyRanges`). */
export function proxyTrust(ranges: readonly string[], header: ClientIpHeader = "X-Forwarded-For"): ProxyTrust {
  const parsed = ranges.map((r) => ipaddr.parseCIDR(r.includes("/") ? r : `${r}/${r.includes(":") ? 128 : 32}`));
  return {
    header,
    trusts: memoize(MEMO_SIZE, (address) => {
      const ip = parseAddress(address);
      return ip !== null && parsed.some((range) => range[0].kind() === ip.kind() && ip.match(range));
    }),
  };
}

/**
 * The client of a request. Forwarding headers are read only when the socket's peer is a trusted
 * proxy; from any other peer they are anyone's invention and ignored. With X-Forwarded-For, each
 * proxy appends the address it was reached from, so the entries we can believe are the rightmost
 * ones up to the first that is not one of our proxies: that one is the client. All of them
 * trusted: the leftmost. A malformed entry (or an empty one) ends the walk: nothing to its left
 * can be believed, so the last good address (the peer, when it is the rightmost) is the client.
 * With CF-Connecting-IP, Cloudflare's header names the client and CF-IPCountry its country.
 */
export function clientOrigin(headers: Headers, socketIp: string | null, trust: ProxyTrust): ClientOrigin {
  const peer = socketIp ?? "unknown";
  if (socketIp === null || !trust.trusts(socketIp)) return { ip: peer, proxyCountry: null, viaProxy: false };
  if (trust.header === "CF-Connecting-IP") {
    const named = canonical(headers.get("cf-connecting-ip") ?? "");
    const country = headers.get("cf-ipcountry")?.trim().toUpperCase() ?? "";
    // XX: unknown, T1: Tor; neither is a country.
    const proxyCountry = /^[A-Z]{2}$/.test(country) && country !== "XX" && country !== "T1" ? country : null;
    return { ip: named ?? peer, proxyCountry, viaProxy: true };
  }
  let client = peer;
  const entries = headers.get("x-forwarded-for")?.split(",") ?? [];
  for (let i = entries.length - 1; i >= 0; i--) {
    const address = canonical(entries[i]!);
    if (address === null) break;
    client = address;
    if (!trust.trusts(client)) break;
  }
  return { ip: client, proxyCountry: null, viaProxy: true };
}
