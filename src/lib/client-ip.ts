/** Where a request came from, as far as we may believe it. */
export interface ClientOrigin {
  ip: string;
  /** Country given by a trusted proxy (Cloudflare's CF-IPCountry), if any. */
  proxyCountry: string | null;
}

/**
 * The socket address, or with `trustProxy` the first address of X-Forwarded-For
 * (else CF-Connecting-IP). Proxy headers are ignored unless trusted: anyone can send them.
 */
export function clientOrigin(headers: Headers, socketIp: string | null, trustProxy: boolean): ClientOrigin {
  const fallback = socketIp ?? "unknown";
  if (!trustProxy) return { ip: fallback, proxyCountry: null };
  const forwarded = headers.get("x-forwarded-for")?.split(",")[0]?.trim();
  const ip = forwarded || headers.get("cf-connecting-ip")?.trim() || fallback;
  const country = headers.get("cf-ipcountry")?.trim().toUpperCase() ?? "";
  return { ip, proxyCountry: /^[A-Z]{2}$/.test(country) && country !== "XX" && country !== "T1" ? country : null };
}
