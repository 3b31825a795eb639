import { AppError } from "../lib/errors";
import { httpOrigin } from "../lib/origin";

/** Methods that change nothing; every other one changes state and needs a same-origin proof with a session. */
export const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * The origin this server is reached at, as a browser writes it in `Origin`: FORMSVC_PUBLIC_URL's
 * when it is set; else the request's own `Host` with the scheme it arrived with, which is `https`
 * only when the socket's peer is a trusted proxy and says so in `X-Forwarded-Proto` (formsvc itself speaks plain http).
 * The Host header is the browser's own word for where it sent the request, so another site cannot
 * choose it; a proxy that rewrites Host needs FORMSVC_PUBLIC_URL.
 */
export function serverOrigin(request: Request, publicOrigin: string | null, viaProxy: boolean): string | null {
  if (publicOrigin) return publicOrigin;
  // A Host header no URL can carry (Bun then hands over a URL that does not parse) names no origin.
  const url = URL.parse(request.url);
  if (url === null) return null;
  const forwarded = viaProxy
    ? request.headers.get("x-forwarded-proto")?.split(",")[0]?.trim().toLowerCase()
    : undefined;
  const scheme = forwarded === "https" || forwarded === "http" ? `${forwarded}:` : url.protocol;
  return httpOrigin(`${scheme}//${url.host}`);
}

/**
 * Refuses (403 CSRF) a request whose `Origin` is not the server's own. Browsers send `Origin` with
 * every request that is not a GET or HEAD, so a page of another site (or a sibling subdomain, which
 * SameSite=Lax lets through) cannot pass, and formsvc's own pages always do.
 */
export function requireSameOrigin(request: Request, own: string | null): void {
  const sent = request.headers.get("origin");
  if (sent !== null && own !== null && httpOrigin(sent) === own) return;
  const expected = own ?? "this server's origin";
  throw new AppError(
    "CSRF",
    sent === null
      ? `this request must carry an Origin header equal to ${expected}: logging in, and what a login session changes, must come from formsvc's own pages`
      : `this request comes from another origin than ${expected}; logging in, and what a login session changes, must come from formsvc's own pages`,
  );
}
