// What a Location header may point to: an absolute http(s) URL as browsers read it (WHATWG), whose host
// is a host name, an IPv4 or an IPv6 address. The WHATWG parser alone lets through hosts such as
// `a"b.example` (only a few code points are forbidden in a host), which make the header no URI at all.

// Sent as given: no space or control character may be dropped or trimmed away by the parser unseen.
const RAW = /^https?:\/\/[^\u0000-\u0020\u007f]+$/i;
// A host name once parsed (IDN labels are punycode by then): LDH labels of 1 to 63, an optional final dot.
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const IPV4 = /^(?:\d{1,3}\.){3}\d{1,3}$/;
// Outside the host, what RFC 3986 allows: anything else is percent-encoded in the header.
const NOT_URI = /[^A-Za-z0-9\-._~:/?@!$&'()*+,;=%]|%(?![0-9A-Fa-f]{2})/g;

const validHost = (host: string): boolean => {
  if (host.startsWith("[")) return true; // an IPv6 address, which the parser has checked and serialised
  if (IPV4.test(host)) return true; // the parser's serialisation of any IPv4 form (0x7f.1 is 127.0.0.1)
  const name = host.endsWith(".") ? host.slice(0, -1) : host;
  return name.length > 0 && name.length <= 253 && name.split(".").every((label) => LABEL.test(label));
};

const encode = (part: string) => part.replace(NOT_URI, (c) => (c === "%" ? "%25" : encodeURIComponent(c)));

/**
 * The URL to put in a Location header for `value` (punycode host, percent-encoded path, query and
 * fragment: a valid RFC 3986 URI), or null when `value` is no absolute http(s) URL with a valid host (or when it carries userinfo).
 */
export function locationUrl(value: string): string | null {
  if (!RAW.test(value)) return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if ((url.protocol !== "http:" && url.protocol !== "https:") || !validHost(url.hostname)) return null;
  // RFC 9110 (4.2.4): an http(s) URI in a header field carries no userinfo.
  if (url.username !== "" || url.password !== "") return null;
  const [path = "", ...fragment] = `${url.pathname}${url.search}${url.hash}`.split("#");
  // A second `#` is data of the fragment, which RFC 3986 has no room for unencoded.
  return `${url.origin}${encode(path)}${fragment.length ? `#${encode(fragment.join("%23"))}` : ""}`;
}

/** Whether `value` is an absolute http(s) URL with a valid host, without userinfo: fit for a Location header once locationUrl has normalised it. */
export const isLocationUrl = (value: string): boolean => locationUrl(value) !== null;

// The same as JSON Schema patterns (ECMA-262 and Python alike: no \d, no flags), a little stricter than
// the checks above, so that what the OpenAPI document allows the server takes: an ASCII host name
// whose last label starts with a letter (else WHATWG reads it as IPv4), a dotted IPv4, or an IPv6
// address in hexadecimal (Bun's URL refuses some with an IPv4 tail). Only a punycode label (xn--)
// that does not decode passes the pattern and fails the check; the settings' descriptions say so.
const OCTET = "(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])";
const IPV4_PATTERN = `(?:${OCTET}\\.){3}${OCTET}`;
const H = "[0-9A-Fa-f]{1,4}";
const IPV6_PATTERN = `\\[(?:(?:${H}:){7}${H}|(?:${H}:){1,7}:|(?:${H}:){1,6}:${H}|(?:${H}:){1,5}(?::${H}){1,2}|(?:${H}:){1,4}(?::${H}){1,3}|(?:${H}:){1,3}(?::${H}){1,4}|(?:${H}:){1,2}(?::${H}){1,5}|${H}:(?::${H}){1,6}|:(?:(?::${H}){1,7}|:))\\]`;
const LABEL_PATTERN = "[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?";
const LAST_LABEL = "[A-Za-z](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?";
const NAME_PATTERN = `(?=[^:/?#]{1,253}(?:[:/?#]|$))(?:${LABEL_PATTERN}\\.)*${LAST_LABEL}\\.?`;
const PORT_PATTERN = "(?::(?:6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[0-9]{1,4}))?";
const AUTHORITY = `https?://(?:${NAME_PATTERN}|${IPV4_PATTERN}|${IPV6_PATTERN})${PORT_PATTERN}`;

/** A URL isLocationUrl takes, as a JSON Schema pattern: scheme and host as above, then any path, query and fragment without spaces. */
export const LOCATION_URL_PATTERN = `^${AUTHORITY}(?:[/?#][^\\u0000-\\u0020\\u007f]*)?$`;

/** An origin parseOriginSetting takes, as a JSON Schema pattern: scheme, host and port, a trailing slash at most. */
export const ORIGIN_PATTERN = `^ *${AUTHORITY}/? *$`;
