import ipaddr from "ipaddr.js";

/** The one bucket name for every address that cannot be read. */
export const UNKNOWN_ADDRESS = "unknown";

// "[2001:db8::1]:443" and "203.0.113.7:51234": some proxies (Azure's, for one) put the port into
// X-Forwarded-For; without stripping it every client behind them would share the unknown bucket.
const BRACKETED = /^\[([^\]]+)\](?::\d{1,5})?$/;
const IPV4_WITH_PORT = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/;

/**
 * The rate-limit bucket a client address belongs to, the same for every spelling of it: an IPv4
 * address as itself (dotted decimal), an IPv4-mapped IPv6 address as its IPv4 address, any other
 * IPv6 address as its /64 prefix (`2001:db8:0:1::/64`), anything else as `unknown`. Never throws.
 */
export function addressBucket(address: string): string {
  const trimmed = address.trim();
  const host = BRACKETED.exec(trimmed)?.[1] ?? IPV4_WITH_PORT.exec(trimmed)?.[1] ?? trimmed;
  // Only the plain dotted form: inet_aton's "127.1" or "0x7f000001" come from no socket or proxy,
  // only from someone typing a header, and octal octets ("010" = 8) would surprise a reader of logs.
  if (ipaddr.IPv4.isValidFourPartDecimal(host)) return ipaddr.IPv4.parse(host).toString();
  if (!ipaddr.IPv6.isValid(host)) return UNKNOWN_ADDRESS;
  const v6 = ipaddr.IPv6.parse(host);
  // A dual-stack socket reports IPv4 clients as ::ffff:a.b.c.d: the same client as a.b.c.d.
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().toString();
  // One host is routinely given a whole /64 (SLAAC, privacy addresses), so the /64 is the smallest
  // unit that costs a client something to multiply. The zone (%eth0) names our interface, not the client.
  return `${new ipaddr.IPv6([...v6.parts.slice(0, 4), 0, 0, 0, 0]).toRFC5952String()}/64`;
}
