import type { Database } from "bun:sqlite";
import { Elysia } from "elysia";
import { timingSafeEqual } from "node:crypto";
import type { Config } from "../config";
import { AppError } from "../lib/errors";
import type { Services } from "../services";
import type { Gauge, HttpMetrics } from "./metrics";

const sameSecret = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/** Operational gauges read at scrape time, so they are never stale. */
function gauges(services: Services): Gauge[] {
  const outbox = services.notifications.counts();
  return [
    { name: "formsvc_outbox_pending", help: "Notification emails waiting to be sent (or being sent).", value: outbox.pending + outbox.sending },
    { name: "formsvc_outbox_failed", help: "Notification emails that failed for good.", value: outbox.failed },
    { name: "formsvc_submissions_stored_total", help: "Submissions committed since start.", type: "counter", value: services.submissions.storedCount },
    { name: "formsvc_submission_writes_pending", help: "Submissions waiting for the next group commit.", value: services.submissions.pendingWrites },
  ];
}

/** /healthz and /metrics: for load balancers and Prometheus, outside the versioned API and without an API key. */
export function opsRoutes(db: Database, services: Services, metrics: HttpMetrics, config: Config) {
  const ping = db.query("SELECT 1");
  return new Elysia({ name: "ops-routes" })
    .get("/healthz", ({ set }) => {
      try {
        ping.get();
      } catch {
        set.status = 503;
        return { status: "unavailable", database: "unreachable" };
      }
      const outbox = services.notifications.counts();
      return { status: "ok", database: "ok", outbox: { pending: outbox.pending + outbox.sending, failed: outbox.failed } };
    })
    .get("/metrics", ({ request, set }) => {
      if (config.metricsToken) {
        const given = request.headers.get("authorization")?.replace(/^bearer\s+/i, "") ?? "";
        if (!sameSecret(given, config.metricsToken)) throw new AppError("UNAUTHORIZED", "metrics need Authorization: Bearer <FORMSVC_METRICS_TOKEN>");
      }
      set.headers["content-type"] = "text/plain; version=0.0.4; charset=utf-8";
      return metrics.render(gauges(services));
    });
}
