import { Elysia } from "elysia";
import type { ClientOrigin } from "../lib/client-ip";
import { AppError } from "../lib/errors";
import type { Principal } from "../lib/principal";
import { corsHeaders } from "./cors";
import { requireSameOrigin, SAFE_METHODS } from "./same-origin";

const unset = (): never => {
  throw new Error("the request context is filled by the front plugin; mount it before the routes");
};

/** Marks a route in the OpenAPI document (and for the front) as open to publishable keys and to other origins. */
export const PUBLIC_ROUTE = "x-publishable-key";

/** OpenAPI security requirements: an API key from any of its three places, or the session cookie. */
const API_KEY = [{ apiKeyHeader: [] }, { apiKeyQuery: [] }, { bearer: [] }];
const SESSION = { sessionCookie: [] };

/** What a route of each kind takes: a public one no session, a session one nothing else. */
const security = { secret: [...API_KEY, SESSION], public: API_KEY, session: [SESSION] };

/** The 401 sentence: what was sent, and what to do. */
function unauthorized(need: "secret" | "public" | "session", keyGiven: boolean, sessionGiven: boolean): AppError {
  if (need === "session") {
    return new AppError("UNAUTHORIZED", sessionGiven ? "the login session has expired or ended: log in again (POST /api/v1/auth/login)" : "no login session: log in first (POST /api/v1/auth/login)");
  }
  if (keyGiven) return new AppError("UNAUTHORIZED", "API key is invalid or has been revoked");
  if (sessionGiven && need === "secret") return new AppError("UNAUTHORIZED", "the login session has expired or ended: log in again, or send an API key in the X-API-Key header");
  return new AppError("UNAUTHORIZED", "missing API key: send it in the X-API-Key header");
}

/**
 * What a route may ask of its request, typed on Elysia's context: `requestId`, the `caller`
 * behind the API key or, without a key, behind the session cookie (null without a valid one;
 * `viaSession` says which), `client()` (the client address, computed on first use) and
 * `ownOrigin()` (this server's origin, see same-origin.ts). The front plugin (front.ts) fills
 * them in `onRequest`, on the context object that Elysia then hands to the route, so these
 * values are only placeholders.
 *
 * Routes declare what they need: `{ auth: "secret" }` (the API of an owner's forms: a secret key,
 * or a session, which acts as its owner's secret key; a publishable key is refused there with
 * KEY_SCOPE by the services' access check), `{ auth: "public" }` (submit and challenge: any key,
 * answered with CORS headers to other origins; never a session, so that no page, of another site
 * or not, can make a visitor's browser act as its owner there), or `{ auth: "session" }` (the
 * session's own endpoints). A request authenticated by a session that changes state must come
 * from the server's own origin (403 CSRF). The check runs at `transform`, before parameters are
 * validated, so the order is 429 (front) -> 401 and the CSRF 403 (here) -> 400 (schemas) -> 404
 * -> 403; the route receives the caller as `principal`.
 */
export const requestContext = new Elysia({ name: "request-context" })
  .decorate({
    requestId: "",
    startedAt: 0,
    caller: null as Principal | null,
    keyGiven: false,
    sessionGiven: false,
    viaSession: false,
    client: unset as () => ClientOrigin,
    ownOrigin: unset as () => string | null,
  })
  .macro({
    auth: (need: "secret" | "public" | "session") => ({
      detail: { security: security[need], ...(need === "public" ? { [PUBLIC_ROUTE]: true } : {}) } as Record<string, unknown>,
      transform({ caller, keyGiven, sessionGiven, viaSession, request, set, ownOrigin }) {
        // Before the key check: a page's script must be able to read a 401 too.
        if (need === "public") Object.assign(set.headers, corsHeaders(request));
        const accepted = need === "session" ? viaSession : need === "public" ? caller !== null && !viaSession : caller !== null;
        if (!accepted) throw unauthorized(need, keyGiven, sessionGiven);
        if (viaSession && !SAFE_METHODS.has(request.method)) requireSameOrigin(request, ownOrigin());
      },
      resolve: ({ caller }) => ({ principal: caller! }),
    }),
  });
