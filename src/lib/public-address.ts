import ipaddr from "ipaddr.js";
import { lookup } from "node:dns/promises";
import type { LookupAddress } from "node:dns";

/** Resolves a host name to every address it has (A and AAAA). */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

export const systemResolver: Resolver = (hostname) => lookup(hostname, { all: true, verbatim: true });

/** A URL refused because its host is, or resolves to, an internal address. */
export class InternalAddressError extends Error {
  constructor(
    readonly host: string,
    readonly address: string,
    readonly range: string,
  ) {
    super(
      `${host === address ? address : `${host} resolves to ${address}`}, a ${range} address; only public addresses are reached (FORMSVC_WEBHOOK_ALLOW_PRIVATE=true allows internal ones)`,
    );
    this.name = "InternalAddressError";
  }
}

/**
 * The range an address belongs to when it is not a public unicast address (loopback, private,
 * linkLocal, multicast, uniqueLocal, carrierGradeNat, reserved, 6to4, teredo, rfc6052 …), else null.
 * Classification is ipaddr.js's `range()`. Of the IPv6 forms that embed an IPv4 address, an
 * IPv4-mapped one (::ffff:10.0.0.1, what a dual-stack socket reports) is judged as the IPv4 address
 * it carries; every other one is refused whatever it carries: IPv4-compatible ::a.b.c.d (::/96,
 * deprecated, which some stacks still route to the IPv4 address), ::ffff:0:a.b.c.d (rfc6145),
 * NAT64 64:ff9b::/96 and 64:ff9b:1::/48 (rfc6052), 6to4 and Teredo. IPv4 is read as inet_aton
 * reads it ("0x7f.1" is 127.0.0.1), as the URL parser and the resolver do.
 */
export function internalRange(address: string): string | null {
  const ip = parseIp(address.replace(/^\[|\]$/g, ""));
  if (ip === null) return "unparseable";
  if (ip.kind() === "ipv4") return publicOrRange(ip.range());
  const v6 = ip as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return publicOrRange(v6.toIPv4Address().range());
  const range = v6.range();
  // ::/96 is no range of ipaddr.js's beyond :: and ::1: it calls ::7f00:1 (::127.0.0.1) unicast.
  if (range === "unicast" && v6.parts.slice(0, 6).every((p) => p === 0)) return "ipv4Compatible";
  return publicOrRange(range);
}

const publicOrRange = (range: string) => (range === "unicast" ? null : range);

/**
 * An IP address, or null. ipaddr.js reads an IPv6 address with a dotted IPv4 tail as IPv4-mapped
 * whatever precedes the tail ("::127.0.0.1" as "::ffff:127.0.0.1"), so the tail is turned into
 * its two hex groups first and the address read as written.
 */
function parseIp(text: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  const tail = /^(.*:)(\d{1,3}(?:\.\d{1,3}){3})(%.*)?$/.exec(text);
  let hex = text;
  if (tail) {
    if (!ipaddr.IPv4.isValidFourPartDecimal(tail[2]!)) return null;
    const [a, b, c, d] = ipaddr.IPv4.parse(tail[2]!).octets as [number, number, number, number];
    hex = `${tail[1]}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}${tail[3] ?? ""}`;
  }
  try {
    return ipaddr.parse(hex);
  } catch {
    return null;
  }
}

/** The URL's host as a bare name or address (IPv6 without its brackets). */
export const bareHost = (url: URL) => url.hostname.replace(/^\[|\]$/g, "");

/** Throws InternalAddressError for the first internal address among `addresses`. */
export function assertPublic(host: string, addresses: readonly { address: string }[]): void {
  for (const { address } of addresses) {
    const range = internalRange(address);
    if (range) throw new InternalAddressError(host, address, range);
  }
}

/**
 * Resolves a URL's host and checks every address it has (an address literal is checked as it is).
 * Throws InternalAddressError, or the resolver's error when the name does not resolve.
 */
export async function assertPublicUrl(url: URL, resolve: Resolver = systemResolver): Promise<void> {
  const host = bareHost(url);
  if (ipaddr.isValid(host)) return assertPublic(host, [{ address: host }]);
  const addresses = await resolve(host);
  if (addresses.length === 0) throw new Error(`${host} has no address`);
  assertPublic(host, addresses);
}

type LookupCallback = (error: Error | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for node:http(s) that resolves, checks every address, and hands the socket only the
 * addresses it checked: the connection goes to exactly what was checked, so a name that answers
 * a public address to the check and an internal one to the connect (DNS rebinding) cannot slip
 * between the two. Address literals never reach a lookup; check them with `assertPublicUrl`.
 */
export function checkedLookup(resolve: Resolver = systemResolver) {
  return (hostname: string, options: { all?: boolean } | LookupCallback, callback?: LookupCallback): void => {
    const cb = (typeof options === "function" ? options : callback)!;
    const all = typeof options === "object" && options?.all === true;
    resolve(hostname).then(
      (addresses) => {
        if (addresses.length === 0) return cb(new Error(`${hostname} has no address`), "");
        try {
          assertPublic(hostname, addresses);
        } catch (e) {
          return cb(e as Error, "");
        }
        if (all) cb(null, addresses);
        else cb(null, addresses[0]!.address, addresses[0]!.family);
      },
      (e: Error) => cb(e, ""),
    );
  };
}
