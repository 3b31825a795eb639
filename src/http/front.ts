import { Elysia, ParseError, ValidationError } from "elysia";
import { clientOrigin, type ClientOrigin, type ProxyTrust } from "../lib/client-ip";
import { AppError } from "../lib/errors";
import type { Logger } from "../lib/log";
import type { Principal } from "../lib/principal";
import { readApiKey } from "./api-key";
import type { BodyPace } from "./body-pace";
import { PUBLIC_ROUTE, requestContext } from "./context";
import { corsHeaders, preflightHeaders } from "./cors";
import { toErrorResponse } from "./errors";
import type { HttpMetrics } from "./metrics";
import { methodsFor } from "./methods";
import { createRateLimits, type RateLimitSettings } from "./rate-limits";
import { serverOrigin } from "./same-origin";
import { readSessionToken } from "./session-cookie";

export interface FrontDeps extends RateLimitSettings {
  /** The caller behind an API key, or null for an unknown or revoked one (at once when it is known without a wait). */
  authenticate(secret: string): Principal | null | Promise<Principal | null>;
  /** The owner behind a login session's token (as its secret key), or null for an unknown, ended or expired one. */
  authenticateSession(token: string): Promise<Principal | null>;
  /** FORMSVC_PUBLIC_URL's origin: the one requests made with a session must come from (null: the request's own). */
  publicOrigin: string | null;
  /** The socket address of a request (Bun's server knows it). */
  socketAddress(request: Request): string | null;
  /** The served routes, read once on the first 405 or OPTIONS. */
  routes(): Parameters<typeof methodsFor>[0];
  /** The proxies whose forwarding headers are read (FORMSVC_TRUSTED_PROXIES, FORMSVC_CLIENT_IP_HEADER). */
  proxies: ProxyTrust;
  /** FORMSVC_MAX_BODY_BYTES: the largest body any route reads (context.ts). */
  maxBodyBytes: number;
  /** How bodies are taken in, and how a refusal is answered while one is still coming. */
  bodyPace: BodyPace;
  metrics: HttpMetrics;
  log: Logger;
  /** Whether a drop-in post's form exists and takes public posts (only such a form gets buckets of its own). */
  isPublicForm(formId: string): Promise<boolean>;
  /** Answers a drop-in post refused before its route ran (a 429), as the route answers its own refusals: JSON or a page. */
  dropInFailure?(
    answering: {
      request: Request;
      set: { status?: number | string; headers: Record<string, unknown> };
      requestId: string;
    },
    error: unknown,
  ): Promise<unknown>;
}

// The path of a drop-in post's URL (`/f/{formId}`, its save route `/f/{formId}/partial`, an edit link's
// `/f/{formId}/edit/{submissionId}` or `/f/{formId}/edit-link`; a trailing slash, a query), read before
// routing: saves and edits take from a post's bucket.
const DROP_IN = /^https?:\/\/[^/]+\/f\/([^/?#]+)(?:\/partial|\/edit\/[^/?#]+|\/edit-link)?\/?(?:[?#]|$)/;

/**
 * The form id of a drop-in post (`POST /f/{formId}`), read before routing, decoded as the router
 * decodes it (`/f/%66rm_…` is `frm_…`: the same form, the same bucket); else null, also for an id
 * that does not decode (the route answers that with 404).
 */
export function dropInFormOf(method: string, url: string): string | null {
  if (method !== "POST") return null;
  const id = DROP_IN.exec(url)?.[1];
  if (id === undefined) return null;
  if (!id.includes("%")) return id;
  try {
    return decodeURIComponent(id);
  } catch {
    return null;
  }
}

const isDropInPath = (path: string) => path.startsWith("/f/");
const isDropInPost = (method: string, url: string) => method === "POST" && DROP_IN.test(url);

/**
 * The path of a request's URL, without its query. Not `new URL(url)`: with a Host header no URL can
 * carry (`a b`, `[::1`, a port past 65535), Bun hands over the path alone or a URL that does not parse.
 */
export function pathOf(url: string): string {
  const start = url.startsWith("/") ? 0 : url.indexOf("/", url.indexOf("//") + 2);
  if (start < 0) return "/";
  const query = url.indexOf("?", start);
  return url.slice(start, query < 0 ? undefined : query);
}

const isHealthCheck = (url: string) => url.includes("/healthz") && /^\/healthz\/?$/.test(pathOf(url));

/**
 * The front of every request, matched or not: it fills the request context (id; the caller behind
 * the API key, or else behind the session cookie; client; the server's own origin), takes a token
 * from the caller's bucket (429 first, before anything else is checked), sets the headers every
 * answer carries, maps whatever is thrown to our JSON error, answers 405 and OPTIONS for paths
 * served under other methods, and logs and counts each request once it is answered.
 */
export function front(deps: FrontDeps) {
  const takeToken = createRateLimits(deps);
  let routes: { methods: ReturnType<typeof methodsFor>; isPublic: (path: string) => boolean } | undefined;
  const routeTable = () => {
    if (routes) return routes;
    const all = deps.routes();
    const publicRoutes = all.filter(
      (r) => (r.hooks as { detail?: Record<string, unknown> } | undefined)?.detail?.[PUBLIC_ROUTE],
    );
    const publicMethods = methodsFor(publicRoutes);
    return (routes = { methods: methodsFor(all), isPublic: (path) => publicMethods(path).length > 0 });
  };
  const { metrics, log } = deps;
  const secureCookie = deps.publicOrigin?.startsWith("https:") === true;

  return new Elysia({ name: "front" })
    .use(requestContext)
    .onRequest(async (ctx) => {
      const { request, set } = ctx;
      let origin: ClientOrigin | undefined;
      const client = () => (origin ??= clientOrigin(request.headers, deps.socketAddress(request), deps.proxies));
      const secret = readApiKey(request);
      // An API key, when given, wins over a session cookie: a script's key is never silently replaced by a browser's session.
      const token = secret === null ? readSessionToken(request, secureCookie) : null;
      const byKey = secret !== null ? deps.authenticate(secret) : null;
      const caller =
        byKey instanceof Promise
          ? await byKey
          : secret !== null
            ? byKey
            : token !== null
              ? await deps.authenticateSession(token)
              : null;
      const id = `req_${Bun.randomUUIDv7("base64url")}`;
      ctx.requestId = id;
      ctx.startedAt = performance.now();
      ctx.caller = caller;
      ctx.keyGiven = secret !== null;
      ctx.sessionGiven = token !== null;
      ctx.viaSession = token !== null && caller !== null;
      ctx.client = client;
      ctx.ownOrigin = () => serverOrigin(request, deps.publicOrigin, client().viaProxy);
      ctx.maxBodyBytes = deps.maxBodyBytes;
      ctx.bodyPace = deps.bodyPace;

      // A load balancer's health probe must not fail because others at its address ran out, and a
      // preflight is no request of its own: both only read the bucket.
      const cost = request.method === "OPTIONS" || isHealthCheck(request.url) ? 0 : 1;
      // A post to a form that is not there is a keyless request like any other: were it given a bucket per
      // id, one address could post without limit to made-up ids and crowd real visitors out of the table.
      const dropIn = dropInFormOf(request.method, request.url);
      const form = dropIn !== null && (await deps.isPublicForm(dropIn)) ? dropIn : null;
      const taken = takeToken(caller, client, cost, form);
      const rate = taken instanceof Promise ? await taken : taken;
      const headers = set.headers;
      // API answers are per caller: never sniffed into another type, framed, or cached.
      headers["x-content-type-options"] = "nosniff";
      headers["x-frame-options"] = "DENY";
      headers["cache-control"] = "no-store";
      headers["x-request-id"] = id;
      headers["x-ratelimit-limit"] = String(rate.limit);
      headers["x-ratelimit-remaining"] = String(rate.remaining);
      headers["x-ratelimit-reset"] = String(rate.reset);
      if (!rate.allowed) {
        metrics.rateLimited += 1;
        throw new AppError(
          "RATE_LIMITED",
          `rate limit exceeded; the next request is allowed in ${rate.retryAfter} s (Retry-After), the whole quota again at X-RateLimit-Reset`,
          {
            "retry-after": String(rate.retryAfter),
          },
        );
      }
    })
    .onError({ as: "global" }, async ({ error, code, set, request, requestId }) => {
      if (deps.dropInFailure && error instanceof AppError && isDropInPost(request.method, request.url)) {
        const page = await deps.dropInFailure({ request, set, requestId }, error);
        return deps.bodyPace.answer(request, set, page) ?? page;
      }
      // Elysia wraps what a `parse` hook throws (the caller check, the body reader and its schema check:
      // context.ts); each is answered as itself.
      if (error instanceof ParseError && (error.cause instanceof AppError || error.cause instanceof ValidationError))
        error = error.cause;
      // From the URL: a route's context carries `path` only when its own code asks for it.
      const path = () => pathOf(request.url);
      if (code === "NOT_FOUND" && !(error instanceof AppError)) {
        const methods = routeTable().methods(path());
        if (methods.length) {
          set.headers.allow = methods.join(", ");
          if (request.method === "OPTIONS") {
            if (routeTable().isPublic(path()))
              Object.assign(set.headers, preflightHeaders(request, methods, isDropInPath(path())));
            set.status = 204;
            return new Response(null, { status: 204, headers: set.headers as Record<string, string> });
          }
          error = new AppError(
            "METHOD_NOT_ALLOWED",
            `${request.method} is not allowed here; use ${methods.join(", ")}`,
          );
        }
      }
      // A page's script reads a public endpoint's 429 to back off; a refused origin learns nothing more.
      if (error instanceof AppError && error.code === "RATE_LIMITED" && routeTable().isPublic(path()))
        Object.assign(set.headers, corsHeaders(request));
      if (error instanceof AppError && error.code === "ORIGIN_NOT_ALLOWED")
        delete set.headers["access-control-allow-origin"];
      const res = toErrorResponse(error, code, log, requestId || undefined);
      set.status = res.status;
      if (res.headers) Object.assign(set.headers, res.headers);
      return deps.bodyPace.answer(request, set, res.body) ?? res.body;
    })
    .onAfterResponse({ as: "global" }, ({ request, set, route, requestId, startedAt }) => {
      const status = typeof set.status === "number" ? set.status : 200;
      const ms = startedAt ? performance.now() - startedAt : 0;
      // The route pattern, never the raw path: bounded label sets, and nothing a caller typed.
      const pattern = route || "unmatched";
      const method = request.method;
      metrics.observe(method, pattern, status, ms / 1000);
      // Written as log.info would write { requestId, method, route, status, ms }, without building the object.
      log.infoMembers(
        "request",
        () =>
          `${requestId ? `"requestId":"${requestId}",` : ""}"method":${JSON.stringify(method)},"route":${JSON.stringify(pattern)},"status":${status},"ms":${Math.round(ms * 100) / 100}`,
      );
    });
}
