import type { ClientOrigin } from "../lib/client-ip";

/**
 * The login session's cookie. Its value is the session token itself (the server keeps only its
 * SHA-256), so it is HttpOnly (no script reads it), SameSite=Lax (other sites' subrequests and form
 * posts go without it), on the whole site (`Path=/`: the dashboard and the API share it), and
 * Secure when the server is reached over https. It is set only by login and cleared only by logout.
 */
export const SESSION_COOKIE = "formsvc_session";

/**
 * The cookie's name: over https `__Host-formsvc_session`, which a browser keeps only when it is
 * Secure, on `Path=/` and without `Domain`, so no sibling subdomain can set or overwrite it (a
 * planted session would log a visitor into the planter's account). Over https only that name is
 * read: accepting the old one as well would let a sibling subdomain plant it; a session opened
 * before the change just needs one more login.
 */
export const sessionCookieName = (secure: boolean) => (secure ? `__Host-${SESSION_COOKIE}` : SESSION_COOKIE);

/** The session token a request carries in its Cookie header (the first one of the name the server sets), or null. */
export function readSessionToken(request: Request, secure: boolean): string | null {
  const name = sessionCookieName(secure);
  const header = request.headers.get("cookie");
  if (!header || !header.includes(name)) return null;
  for (const pair of header.split(";")) {
    const eq = pair.indexOf("=");
    if (eq < 0 || pair.slice(0, eq).trim() !== name) continue;
    return pair.slice(eq + 1).trim() || null;
  }
  return null;
}

const attributes = (secure: boolean) => `Path=/; HttpOnly; SameSite=Lax${secure ? "; Secure" : ""}`;

/** `Set-Cookie` for a new session; the browser keeps it `maxAgeSeconds` at most (the server ends it sooner when idle). */
export const sessionCookie = (token: string, maxAgeSeconds: number, secure: boolean) =>
  `${sessionCookieName(secure)}=${token}; Max-Age=${Math.floor(maxAgeSeconds)}; ${attributes(secure)}`;

/** `Set-Cookie` that makes the browser drop the session cookie. */
export const clearedSessionCookie = (secure: boolean) =>
  `${sessionCookieName(secure)}=; Max-Age=0; ${attributes(secure)}`;

/** What a new session keeps of the request that opens it, for its person's list of sessions: the User-Agent and the client address (as the rate limits see it). */
export const sessionOrigin = (request: Request, client: () => ClientOrigin) => ({
  userAgent: request.headers.get("user-agent"),
  address: client().ip,
});
