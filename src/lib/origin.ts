/**
 * The origin (`https://host[:port]`, default port dropped, host lower-cased and punycoded) of an
 * absolute http(s) URL, or null for anything else, `null` origins and opaque ones included.
 */
export function httpOrigin(value: string | null | undefined): string | null {
  if (!value || value.length > 2048) return null;
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:" ? url.origin : null;
  } catch {
    return null;
  }
}

/**
 * The origin a post came from, as a browser tells it: its `Origin`, else its `Referer`'s. `Origin: null`
 * (a sandboxed or file: page) is an origin of its own, matching none: null, without a look at `Referer`.
 */
export function postOrigin(origin: string | null, referer: string | null): string | null {
  return origin !== null ? httpOrigin(origin) : httpOrigin(referer);
}

/** An allowed-origin setting as written by a person: a bare origin, a trailing slash tolerated; null when it is anything more or less. */
export function parseOriginSetting(value: string): string | null {
  const origin = httpOrigin(value.trim());
  if (!origin) return null;
  const url = new URL(value.trim());
  return url.pathname === "/" && !url.search && !url.hash && !url.username && !url.password ? origin : null;
}
