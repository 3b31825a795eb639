/**
 * The login session's cookie. Its value is the session token itself (the server keeps only its
 * SHA-256), so it is HttpOnly (no script reads it), SameSite=Lax (other sites' subrequests and form
 * posts go without it), on the whole site (`Path=/`: the dashboard and the API share it), and
 * Secure when the server is reached over https. It is set only by login and cleared only by logout.
 */
export const SESSION_COOKIE = "formsvc_session";

/** The session token a request carries in its Cookie header (the first one of our name), or null. */
export function readSessionToken(request: Request): string | null {
  const header = request.headers.get("cookie");
  if (!header || !header.includes(SESSION_COOKIE)) return null;
  for (const pair of header.split(";")) {
    const eq = pair.indexOf("=");
    if (eq < 0 || pair.slice(0, eq).trim() !== SESSION_COOKIE) continue;
    return pair.slice(eq + 1).trim() || null;
  }
  return null;
}

const attributes = (secure: boolean) => `Path=/; HttpOnly; SameSite=Lax${secure ? "; Secure" : ""}`;

/** `Set-Cookie` for a new session; the browser keeps it `maxAgeSeconds` at most (the server ends it sooner when idle). */
export const sessionCookie = (token: string, maxAgeSeconds: number, secure: boolean) =>
  `${SESSION_COOKIE}=${token}; Max-Age=${Math.floor(maxAgeSeconds)}; ${attributes(secure)}`;

/** `Set-Cookie` that makes the browser drop the session cookie. */
export const clearedSessionCookie = (secure: boolean) => `${SESSION_COOKIE}=; Max-Age=0; ${attributes(secure)}`;
