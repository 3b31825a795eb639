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
    super(`${host === address ? address : `${host} resolves to ${address}`}, a ${range} address; only public addresses are reached (FORMSVC_WEBHOOK_ALLOW_PRIVATE=true allows internal ones)`);
    this.name = "InternalAddressError";
  }
}

/**
 * The range an address belongs to when it is not a public unicast address (loopback, private,
 * linkLocal, multicast, uniqueLocal, carrierGradeNat, reserved, 6to4, teredo, rfc6052 …), else null.
 * Classification is ipaddr.js's `range()`; an IPv4-mapped IPv6 address (::ffff:10.0.0.1) is judged
 * as the IPv4 address it carries. Only `unicast` passes: every special range, including the
 * transition ranges that embed an IPv4 address, is refused.
 */
export function internalRange(address: string): string | null {
  let ip: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    ip = ipaddr.parse(address.replace(/^\[|\]$/g, ""));
  } catch {
    return "unparseable";
  }
  if (ip.kind() === "ipv6" && (ip as ipaddr.IPv6).isIPv4MappedAddress()) ip = (ip as ipaddr.IPv6).toIPv4Address();
  const range = ip.range();
  return range === "unicast" ? null : range;
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
