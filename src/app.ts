import type { Database } from "bun:sqlite";
import { Elysia } from "elysia";
import type { Config } from "./config";
import { docs } from "./http/docs";
import { docsPage } from "./http/docs-page";
import { front } from "./http/front";
import { HttpMetrics, type Gauge } from "./http/metrics";
import { opsRoutes } from "./http/ops-routes";
import type { Clock } from "./lib/clock";
import type { Logger } from "./lib/log";
import { analyticsRoutes } from "./modules/analytics/routes";
import { formsRoutes } from "./modules/forms/routes";
import { keysRoutes } from "./modules/keys/routes";
import { spamRoutes } from "./modules/spam/routes";
import { widgetRoutes } from "./modules/spam/widget";
import { submissionsRoutes } from "./modules/submissions/routes";
import type { Services } from "./services";

export interface AppDeps {
  db: Database;
  services: Services;
  config: Config;
  log: Logger;
  /** The rate limiter's clock (default: wall time), so tests can move it instead of sleeping. */
  rateClock?: Clock;
  /** Buckets each rate-limit table holds at most (default 100,000); small in tests of the bound. */
  rateMaxBuckets?: number;
}

/** Operational gauges for /metrics. */
function gauges(services: Services): Gauge[] {
  const outbox = services.notifications.counts();
  return [
    { name: "formsvc_outbox_pending", help: "Notification emails waiting to be sent (or being sent).", value: outbox.pending + outbox.sending },
    { name: "formsvc_outbox_failed", help: "Notification emails that failed for good.", value: outbox.failed },
    { name: "formsvc_submissions_stored_total", help: "Submissions committed since start.", type: "counter", value: services.submissions.storedCount },
    { name: "formsvc_submission_writes_pending", help: "Submissions waiting for the next group commit.", value: services.submissions.pendingWrites },
  ];
}

/** The whole HTTP application: the front, then docs, operations and each module's routes. `listen` it, or `handle` a Request. */
export function createApp({ db, services, config, log, rateClock, rateMaxBuckets }: AppDeps) {
  const metrics = new HttpMetrics();
  const ping = db.query("SELECT 1");
  const app: Elysia = new Elysia();
  return app
    .use(
      front({
        authenticate: services.keys.authenticate,
        // Asked of the app, not the context: asking the context for `server` makes Elysia redefine a getter per request.
        socketAddress: (request) => app.server?.requestIP(request)?.address ?? null,
        routes: () => app.routes,
        rateLimit: config.rateLimit,
        publicRateLimit: config.publicRateLimit,
        rateWindow: config.rateWindow,
        rateClock,
        rateMaxBuckets,
        trustProxy: config.trustProxy,
        metrics,
        log,
      }),
    )
    .use(docs)
    .use(docsPage())
    .use(widgetRoutes())
    .use(
      opsRoutes({
        ping: () => void ping.get(),
        health: () => {
          const outbox = services.notifications.counts();
          return { outbox: { pending: outbox.pending + outbox.sending, failed: outbox.failed } };
        },
        gauges: () => gauges(services),
        metrics,
        metricsToken: config.metricsToken,
      }),
    )
    .use(
      new Elysia({ prefix: "/api/v1" })
        .use(formsRoutes(services.forms, services.lifecycle.deleteForm))
        .use(submissionsRoutes(services.submissions, services.lifecycle, config.maxBodyBytes))
        .use(keysRoutes(services.keys))
        .use(analyticsRoutes(services.analytics))
        .use(spamRoutes(services.spam)),
    );
}

export type App = ReturnType<typeof createApp>;
