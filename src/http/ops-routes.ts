import { Elysia } from "elysia";
import { timingSafeEqual } from "node:crypto";
import { AppError } from "../lib/errors";
import { bearerToken } from "./api-key";
import type { Gauge, HttpMetrics } from "./metrics";

export interface OpsDeps {
  /** Rejects when the database does not answer. */
  ping(): Promise<void>;
  /** What /healthz reports beside the database, e.g. the outbox. */
  health(): Promise<Record<string, unknown>>;
  /** Gauges read at scrape time, so they are never stale. */
  gauges(): Promise<Gauge[]>;
  metrics: HttpMetrics;
  /** When set, /metrics needs `Authorization: Bearer <token>`. */
  metricsToken: string;
}

const sameSecret = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/** /healthz and /metrics: for load balancers and Prometheus, outside the versioned API and without an API key. */
export function opsRoutes(deps: OpsDeps) {
  return new Elysia({ name: "ops-routes" })
    .get("/healthz", async ({ set }) => {
      try {
        await deps.ping();
      } catch {
        set.status = 503;
        return { status: "unavailable", database: "unreachable" };
      }
      return { status: "ok", database: "ok", ...(await deps.health()) };
    })
    .get("/metrics", async ({ request, set }) => {
      if (
        deps.metricsToken &&
        !sameSecret(bearerToken(request.headers.get("authorization")) ?? "", deps.metricsToken)
      ) {
        throw new AppError("UNAUTHORIZED", "metrics need Authorization: Bearer <FORMSVC_METRICS_TOKEN>");
      }
      set.headers["content-type"] = "text/plain; version=0.0.4; charset=utf-8";
      return deps.metrics.render(await deps.gauges());
    });
}
