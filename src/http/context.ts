import type { TSchema } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { Elysia, ValidationError } from "elysia";
import type { ClientOrigin } from "../lib/client-ip";
import { AppError } from "../lib/errors";
import type { Principal } from "../lib/principal";
import { RIGHTS, type Right } from "../lib/rights";
import { discardBody, readJsonObject } from "./body";
import type { BodyPace } from "./body-pace";
import { corsHeaders } from "./cors";
import { requireSameOrigin, SAFE_METHODS } from "./same-origin";

const unset = (): never => {
  throw new Error("the request context is filled by the front plugin; mount it before the routes");
};

/** Marks a route in the OpenAPI document (and for the front) as open to publishable keys and to other origins. */
export const PUBLIC_ROUTE = "x-publishable-key";
/** Names, in the OpenAPI document, the right a route needs and the least role that holds it (lib/rights.ts). */
export const ROUTE_RIGHT = "x-right";
export const ROUTE_ROLE = "x-role";

/** OpenAPI security requirements: an API key from any of its three places, or the session cookie. */
const API_KEY = [{ apiKeyHeader: [] }, { apiKeyQuery: [] }, { bearer: [] }];
const SESSION = { sessionCookie: [] };

/** What a route of each kind takes: a public one no session, a session one nothing else. */
const security = { secret: [...API_KEY, SESSION], public: API_KEY, session: [SESSION] };

/** The 401 sentence: what was sent, and what to do. */
function unauthorized(need: Kind, keyGiven: boolean, sessionGiven: boolean): AppError {
  if (need === "session") {
    return new AppError(
      "UNAUTHORIZED",
      sessionGiven
        ? "the login session has expired or ended: log in again (POST /api/v1/auth/login)"
        : "no login session: log in first (POST /api/v1/auth/login)",
    );
  }
  if (keyGiven) return new AppError("UNAUTHORIZED", "API key is invalid or has been revoked");
  if (sessionGiven && need === "secret")
    return new AppError(
      "UNAUTHORIZED",
      "the login session has expired or ended: log in again, or send an API key in the X-API-Key header",
    );
  return new AppError("UNAUTHORIZED", "missing API key: send it in the X-API-Key header");
}

type Kind = "secret" | "public" | "session";

/** A route of a team's data: a secret key or a session, holding `right` in the team that owns what it reaches. */
interface Secret {
  need: "secret";
  right: Right;
}
type Need = "public" | "session" | Secret;

/** `{ auth: secret("forms.read") }`: the route needs a secret key or a session, and states the right it needs (lib/rights.ts). */
export const secret = (right: Right): Secret => ({ need: "secret", right });

/** A route that is sent no body (GET, HEAD: Bun drops one) needs no body step. */
interface NoBody {
  need: Need;
  body: "none";
}

/**
 * `{ auth: noBody(secret("forms.read")) }` for a GET route: the caller check without the `parse`
 * step, which would make Elysia's handler of the route asynchronous (a promise more per request)
 * for nothing. Any other route takes `{ auth: need }`, whose `parse` refuses a body over the limit
 * (413) even where the route takes none; the security matrix checks that every such route does.
 */
export const noBody = (need: Need): NoBody => ({ need, body: "none" });

/** What a body is read with: its limit (FORMSVC_MAX_BODY_BYTES) and the pace it must keep. */
interface BodyTaking {
  maxBodyBytes: number;
  bodyPace: BodyPace;
}

/** What the front knows of a request's caller, as the checks below read it. */
interface CallerView {
  caller: Principal | null;
  keyGiven: boolean;
  sessionGiven: boolean;
  viaSession: boolean;
  request: Request;
  set: { headers: Record<string, unknown> };
  ownOrigin: () => string | null;
}

/** What a session whose person has still to enrol a second factor (FORMSVC_REQUIRE_2FA) may reach: that, and its own sessions. */
const ENROLMENT_PATHS = new Set([
  "/api/v1/auth/me",
  "/api/v1/auth/logout",
  "/api/v1/auth/totp",
  "/api/v1/auth/totp/confirm",
  "/api/v1/auth/sessions",
  "/api/v1/auth/passkeys",
  "/api/v1/auth/passkeys/options",
]);
const enrolmentMayReach = (path: string) => ENROLMENT_PATHS.has(path) || path.startsWith("/api/v1/auth/sessions/");

/** The caller check of a route that needs `need`: 401, or the CSRF 403 of a session that changes something. */
function admit(need: Kind, { caller, keyGiven, sessionGiven, viaSession, request, set, ownOrigin }: CallerView): void {
  // Before the key check: a page's script must be able to read a 401 too.
  if (need === "public") Object.assign(set.headers, corsHeaders(request));
  const accepted =
    need === "session" ? viaSession : need === "public" ? caller !== null && !viaSession : caller !== null;
  if (!accepted) throw unauthorized(need, keyGiven, sessionGiven);
  if (viaSession && caller?.enrolmentDue && !enrolmentMayReach(new URL(request.url).pathname))
    throw new AppError(
      "SECOND_FACTOR_ENROLMENT_REQUIRED",
      "this server requires a second factor: enrol one first (a passkey: POST /api/v1/auth/passkeys/options, then /api/v1/auth/passkeys; or TOTP: POST /api/v1/auth/totp, then /api/v1/auth/totp/confirm)",
    );
  if (viaSession && !SAFE_METHODS.has(request.method)) requireSameOrigin(request, ownOrigin());
}

/**
 * A body's check against its schema as it was sent. Elysia normalizes a body before its own check,
 * and its normalizing makes a value where an object of optional fields belongs (`"files": 123`) into
 * `{}`, which then passes (it turned uploads on); a field a schema closes with `false` would be
 * dropped unseen too. Checked here first, such a body is refused with the error Elysia's check gives.
 */
function asSent(schema: TSchema): (body: Record<string, unknown>) => Record<string, unknown> {
  // A body schema that does not say it is given `additionalProperties: false`, in place, when Elysia
  // first compiles its route: this check's errors (and the next server's, in the same process) would
  // change under it.
  if (!("additionalProperties" in schema))
    throw new Error("a route's body schema must say whether it takes other fields (additionalProperties)");
  const check = TypeCompiler.Compile(schema);
  return (body) => {
    if (!check.Check(body)) throw new ValidationError("body", check, body);
    return body;
  };
}

/**
 * A route's `parse` and `body` (spread into its options): the body read as the JSON object it
 * documents (readJsonObject: 415, 413, 400) and checked against `schema` as sent, after `check`
 * (the caller's, which must come first). Elysia runs `parse` before `transform` and before any
 * schema, so this is where a body is first touched. The "json" after it is never
 * reached (the reader always answers or throws); it tells the OpenAPI generator that application/json
 * is the one type taken, where it would otherwise offer urlencoded and multipart too.
 *
 * Every hook here names the context's fields it reads in its parameter: Elysia reads a hook's source
 * to learn what a route needs, and one that hands the whole context on makes it prepare everything
 * (query, headers, cookies) for every request of the route.
 */
export function jsonBody<S extends TSchema>(
  check: (caller: CallerView) => void,
  schema: S,
): { parse: [(ctx: CallerView & BodyTaking) => Promise<Record<string, unknown>>, "json"]; body: S } {
  const checked = asSent(schema);
  return {
    parse: [
      async ({ caller, keyGiven, sessionGiven, viaSession, request, set, ownOrigin, maxBodyBytes, bodyPace }) => {
        check({ caller, keyGiven, sessionGiven, viaSession, request, set, ownOrigin });
        return checked(await readJsonObject(request, maxBodyBytes, bodyPace));
      },
      "json",
    ],
    body: schema,
  };
}

/**
 * What a route may ask of its request, typed on Elysia's context: `requestId`, the `caller`
 * behind the API key or, without a key, behind the session cookie (null without a valid one;
 * `viaSession` says which), `client()` (the client address, computed on first use),
 * `ownOrigin()` (this server's origin, see same-origin.ts), `maxBodyBytes`
 * (FORMSVC_MAX_BODY_BYTES) and `bodyPace` (how a body is taken in: body-pace.ts). The front plugin (front.ts) fills them in `onRequest`, on the context
 * object that Elysia then hands to the route, so these values are only placeholders.
 *
 * Routes declare what they need: `{ auth: "secret" }` (the API of an owner's forms: a secret key,
 * or a session, which acts as its owner's secret key; a publishable key is refused there with
 * KEY_SCOPE by the services' access check), `{ auth: "public" }` (submit and challenge: any key,
 * answered with CORS headers to other origins; never a session, so that no page, of another site
 * or not, can make a visitor's browser act as its owner there), or `{ auth: "session" }` (the
 * session's own endpoints). A request authenticated by a session that changes state must come
 * from the server's own origin (403 CSRF).
 *
 * No body is read before its caller is known. The check runs in the route's `parse`, the first
 * hook after the front, which then reads the body: a route with a `body` schema gets the JSON
 * object it documents (jsonBody), any other has a body over FORMSVC_MAX_BODY_BYTES refused (413)
 * and the rest ignored; a route that reads its own body (submit) says `parse: "none"`, which
 * Elysia keeps in place of this one, and reads it in its handler. The check runs again at
 * `transform` for GET and HEAD, which have no body and no `parse` (Bun drops a body sent with
 * them). So the order is 429 (front) -> 401 and the CSRF 403 -> 415, 413, 400 (body, then
 * schemas) -> 404 -> 403; the route receives the caller as `principal`.
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
    maxBodyBytes: 0,
    bodyPace: null as unknown as BodyPace,
  })
  .macro({
    auth: (value: Need | NoBody) => {
      const stated = typeof value === "object" && "body" in value ? value.need : value;
      const need: Kind = typeof stated === "string" ? stated : stated.need;
      const right = typeof stated === "string" ? null : stated.right;
      const detail: Record<string, unknown> = { security: security[need] };
      if (need === "public") detail[PUBLIC_ROUTE] = true;
      if (right) Object.assign(detail, { [ROUTE_RIGHT]: right, [ROUTE_ROLE]: RIGHTS[right] });
      const hooks = {
        detail,
        // A block, not `=> admit(…)`: Elysia reads an arrow that returns a call as maybe asynchronous and awaits it.
        transform: ({ caller, keyGiven, sessionGiven, viaSession, request, set, ownOrigin }: CallerView) => {
          admit(need, { caller, keyGiven, sessionGiven, viaSession, request, set, ownOrigin });
        },
        // The caller, carrying the right its route states: the services' access checks hold it to that (rights.ts `authorize`).
        resolve: right
          ? ({ caller }: { caller: Principal | null }) => ({ principal: { ...caller!, right } })
          : ({ caller }: { caller: Principal | null }) => ({ principal: caller! }),
      };
      if (typeof value === "object" && "body" in value) return hooks;
      let checked: ((body: Record<string, unknown>) => Record<string, unknown>) | null = null;
      return {
        ...hooks,
        introspect: (route: Record<string, unknown>) =>
          void (checked = route.body === undefined ? null : asSent(route.body as TSchema)),
        parse: [
          async ({
            caller,
            keyGiven,
            sessionGiven,
            viaSession,
            request,
            set,
            ownOrigin,
            maxBodyBytes,
            bodyPace,
          }: CallerView & BodyTaking) => {
            admit(need, { caller, keyGiven, sessionGiven, viaSession, request, set, ownOrigin });
            if (checked) return checked(await readJsonObject(request, maxBodyBytes, bodyPace));
            await discardBody(request, maxBodyBytes, bodyPace);
            // Not undefined: that would let Elysia's own parsers read the body after all.
            return null;
          },
          // Never reached (the hook above answers or throws): it tells the OpenAPI generator that a
          // body is application/json only. A macro's typing takes parse functions only; Elysia takes
          // a parser's name among them as a route does.
          "json",
        ] as never,
      };
    },
  });
