import type { Database } from "bun:sqlite";
import { Elysia } from "elysia";
import type { Config } from "../config";
import { clientOrigin, type ClientOrigin } from "../lib/client-ip";
import { AppError } from "../lib/errors";
import type { Logger } from "../lib/log";
import { TokenBuckets } from "../lib/token-bucket";
import { analyticsRoutes } from "../modules/analytics/routes";
import { formsRoutes } from "../modules/forms/routes";
import { submissionsRoutes } from "../modules/submissions/routes";
import type { Services } from "../services";
import { readApiKey } from "./api-key";
import { docs } from "./docs";
import { docsPage } from "./docs-page";
import { toErrorResponse } from "./errors";
import { HttpMetrics } from "./metrics";
import { methodsFor } from "./methods";
import { opsRoutes } from "./ops-routes";
import { requestState } from "./request-state";

export interface AppDeps {
  db: Database;
  services: Services;
  config: Config;
  log: Logger;
}

const isHealthCheck = (url: string) => url.includes("/healthz") && /^\/healthz\/?$/.test(new URL(url).pathname);

/** The whole HTTP application over the given services; `listen` it or call `handle` in tests. */
export function createApp({ db, services, config, log }: AppDeps) {
  const metrics = new HttpMetrics();
  // Rate limits run on wall time even when the services' clock is pinned (tests, benchmarks).
  const buckets = new TokenBuckets(config.rateLimit, config.rateWindow, Date.now);
  let allowed: ReturnType<typeof methodsFor> | undefined;

  const app = new Elysia()
    // Not `server` from the context: asking for it makes Elysia redefine a getter on every request.
    .onRequest(({ request, set }) => {
      let origin: ClientOrigin | undefined;
      const originOf = () => (origin ??= clientOrigin(request.headers, app.server?.requestIP(request)?.address ?? null, config.trustProxy));
      const secret = readApiKey(request);
      const principal = secret === null ? null : services.keys.authenticate(secret);
      const id = `req_${Bun.randomUUIDv7("base64url")}`;
      requestState.set(request, { id, startedAt: performance.now(), origin: originOf, principal, keyGiven: secret !== null });

      // A load balancer's health probe must not fail because others at its address ran out: it only reads the bucket.
      const rate = buckets.take(principal ? `key:${principal.keyId}` : `ip:${originOf().ip}`, isHealthCheck(request.url) ? 0 : 1);
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
        throw new AppError("RATE_LIMITED", `rate limit exceeded; the next request is allowed in ${rate.retryAfter} s (Retry-After), the whole quota again at X-RateLimit-Reset`, {
          "retry-after": String(rate.retryAfter),
        });
      }
    })
    .onError(({ error, code, set, request, path }) => {
      const requestId = requestState.get(request)?.id;
      if (code === "NOT_FOUND" && !(error instanceof AppError)) {
        allowed ??= methodsFor(app.routes);
        const methods = allowed(path);
        if (methods.length) error = new AppError("METHOD_NOT_ALLOWED", `${request.method} is not allowed here; use ${methods.join(", ")}`, { allow: methods.join(", ") });
      }
      const res = toErrorResponse(error, code, log, requestId);
      set.status = res.status;
      if (res.headers) Object.assign(set.headers, res.headers);
      return res.body;
    })
    .onAfterResponse(({ request, set, route }) => {
      const state = requestState.get(request);
      const status = typeof set.status === "number" ? set.status : 200;
      const ms = state ? performance.now() - state.startedAt : 0;
      // The route pattern, never the raw path: bounded label sets, and nothing a caller typed.
      const pattern = route || "unmatched";
      metrics.observe(request.method, pattern, status, ms / 1000);
      log.info("request", { requestId: state?.id, method: request.method, route: pattern, status, ms: Math.round(ms * 100) / 100 });
    })
    .use(docs)
    .use(docsPage())
    .use(opsRoutes(db, services, metrics, config))
    .use(
      new Elysia({ prefix: "/api/v1" })
        .use(formsRoutes(services.forms))
        .use(submissionsRoutes(services.submissions, config.maxBodyBytes))
        .use(analyticsRoutes(services.analytics)),
    );

  return app;
}

export type App = ReturnType<typeof createApp>;
