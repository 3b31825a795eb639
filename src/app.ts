import { Elysia } from "elysia";
import type { Config } from "./config";
import type { Store } from "./db/store";
import { dashboardPage } from "./dashboard/page";
import { docs } from "./http/docs";
import { docsPage } from "./http/docs-page";
import { createBodyPace } from "./http/body-pace";
import { front } from "./http/front";
import { HttpMetrics, type Gauge } from "./http/metrics";
import { opsRoutes } from "./http/ops-routes";
import { LOCAL_PROXY_RANGES, proxyTrust } from "./lib/client-ip";
import type { Clock } from "./lib/clock";
import type { Logger } from "./lib/log";
import { accountsRoutes } from "./modules/accounts/routes";
import { oidcRoutes } from "./modules/accounts/oidc-routes";
import { passkeysRoutes } from "./modules/accounts/passkeys-routes";
import { analyticsRoutes } from "./modules/analytics/routes";
import { confirmationRoutes } from "./modules/confirmations/routes";
import { hostedPageRoutes } from "./modules/dropin/page-route";
import { publicFormOrNone } from "./modules/dropin/public-form";
import { createDropIn } from "./modules/dropin/routes";
import { partialsRoutes } from "./modules/dropin/partials-routes";
import { webhooksRoutes } from "./modules/webhooks/routes";
import { formsRoutes } from "./modules/forms/routes";
import { keysRoutes } from "./modules/keys/routes";
import { mcpRoutes } from "./modules/mcp/routes";
import { serviceSearch } from "./modules/mcp/search";
import { notificationRoutes } from "./modules/notifications/routes";
import { spamRoutes } from "./modules/spam/routes";
import { widgetRoutes } from "./modules/spam/widget";
import { submissionsRoutes } from "./modules/submissions/routes";
import { searchRoutes } from "./modules/search/routes";
import { triageRoutes } from "./modules/submissions/triage-routes";
import { revisionsRoutes } from "./modules/submissions/revisions-routes";
import { editRoutes } from "./modules/dropin/edit-routes";
import { teamsRoutes } from "./modules/teams/routes";
import { filesRoutes } from "./modules/files/routes";
import { submissionPdfRoutes } from "./modules/submissions/pdf-routes";
import { invitationPageRoutes, invitationRoutes } from "./modules/teams/invitation-routes";
import type { Services } from "./services";

export interface AppDeps {
  store: Store;
  services: Services;
  config: Config;
  log: Logger;
  /** The rate limiter's clock (default: wall time), so tests can move it instead of sleeping. */
  rateClock?: Clock;
  /** Buckets each rate-limit table holds at most (default 100,000); small in tests of the bound. */
  rateMaxBuckets?: number;
}

/** The outbox's backlog: rows waiting (or being sent) and failed for good, in all and by kind, and how late the oldest is. */
async function backlog(services: Services) {
  const counts = await services.outbox.counts();
  const byKind = Object.fromEntries(
    Object.entries(counts).map(([kind, c]) => [kind, { pending: c.pending + c.sending, failed: c.failed }]),
  );
  const sum = (f: "pending" | "failed") => Object.values(byKind).reduce((n, c) => n + c[f], 0);
  return { pending: sum("pending"), failed: sum("failed"), byKind, oldestDueAt: await services.outbox.oldestDue() };
}

/** Operational gauges for /metrics. */
async function gauges(services: Services): Promise<Gauge[]> {
  const outbox = await backlog(services);
  const kinds = Object.entries(outbox.byKind);
  return [
    {
      name: "formsvc_outbox_pending",
      help: "Outbox messages (emails and webhook deliveries) waiting to be sent, or being sent.",
      value: outbox.pending,
    },
    { name: "formsvc_outbox_failed", help: "Outbox messages that failed for good.", value: outbox.failed },
    {
      name: "formsvc_outbox_pending_by_kind",
      help: "Outbox messages waiting, by kind.",
      value: kinds.map(([kind, c]) => ({ labels: { kind }, value: c.pending })),
    },
    {
      name: "formsvc_outbox_failed_by_kind",
      help: "Outbox messages failed for good, by kind.",
      value: kinds.map(([kind, c]) => ({ labels: { kind }, value: c.failed })),
    },
    {
      name: "formsvc_outbox_oldest_due_seconds",
      help: "How long the longest-waiting outbox message has been due (0 when none is).",
      value: outbox.oldestDueAt ? Math.max(0, (Date.now() - Date.parse(outbox.oldestDueAt)) / 1000) : 0,
    },
    {
      name: "formsvc_deliveries_total",
      help: "Delivery attempts since start, by transport, kind and outcome (sent, retry: failed and scheduled again, failed: for good).",
      type: "counter",
      value: services.outbox
        .outcomes()
        .map(({ transport, kind, outcome, value }) => ({ labels: { transport, kind, outcome }, value })),
    },
    {
      name: "formsvc_backups_failed_total",
      help: "Scheduled backups that failed since start (each also emailed to the owners).",
      type: "counter",
      value: services.backups.failures(),
    },
    {
      name: "formsvc_submissions_stored_total",
      help: "Submissions committed since start.",
      type: "counter",
      value: services.submissions.storedCount,
    },
    {
      name: "formsvc_submission_writes_pending",
      help: "Submissions waiting for the next group commit.",
      value: services.submissions.pendingWrites,
    },
  ];
}

/** The whole HTTP application: the front, then docs, operations and each module's routes. `listen` it, or `handle` a Request. */
export function createApp({ store, services, config, log, rateClock, rateMaxBuckets }: AppDeps) {
  const metrics = new HttpMetrics();
  const app: Elysia = new Elysia();
  const bodyPace = createBodyPace({
    minRate: config.minBodyRate,
    maxUploadsPerClient: config.maxUploadsPerClient,
    // Asked of the app, as socketAddress is; a request handled without a server (app.handle) has no connection to time.
    idleTimeout: (request, seconds) => app.server?.timeout(request, seconds),
  });
  const invitationOptions = {
    secureCookie: config.publicUrl.startsWith("https:"),
    sessionMaxAgeSeconds: services.accounts.sessionMaxAgeSeconds,
    smtpConfigured: services.accounts.smtpConfigured,
  };
  const dropIn = createDropIn({
    forms: services.forms,
    submissions: services.submissions,
    files: services.files,
    partials: services.partials,
    links: services.links,
    edits: services.edits,
    maxBodyBytes: config.maxBodyBytes,
    log,
  });
  return app
    .use(
      front({
        authenticate: services.keys.authenticate,
        authenticateSession: services.accounts.authenticate,
        publicOrigin: config.publicUrl ? new URL(config.publicUrl).origin : null,
        // Asked of the app, not the context: asking the context for `server` makes Elysia redefine a getter per request.
        socketAddress: (request) => app.server?.requestIP(request)?.address ?? null,
        routes: () => app.routes,
        rateLimit: config.rateLimit,
        publicRateLimit: config.publicRateLimit,
        rateWindow: config.rateWindow,
        rateClock,
        rateMaxBuckets,
        buckets: store.sharedBuckets,
        proxies: proxyTrust(
          [...config.trustedProxies, ...(config.trustProxy ? LOCAL_PROXY_RANGES : [])],
          config.clientIpHeader,
        ),
        maxBodyBytes: config.maxBodyBytes,
        bodyPace,
        metrics,
        log,
        isPublicForm: async (id) => (await publicFormOrNone(services.forms, id).catch(() => undefined)) !== undefined,
        dropInFailure: dropIn.failure,
      }),
    )
    .use(docs())
    .get("/", ({ redirect }) => redirect("/dashboard", 302), { detail: { hide: true } }) // the address people open first
    .use(docsPage())
    .use(dashboardPage())
    .use(widgetRoutes())
    .use(confirmationRoutes(services.confirmations))
    .use(invitationPageRoutes(services.invitations, invitationOptions))
    .use(hostedPageRoutes(services))
    .use(dropIn.routes)
    .use(
      partialsRoutes({
        forms: services.forms,
        partials: services.partials,
        clock: services.clock,
        maxBodyBytes: config.maxBodyBytes,
        failure: dropIn.failure,
      }),
    )
    .use(
      editRoutes({
        forms: services.forms,
        files: services.files,
        edits: services.edits,
        failure: dropIn.failure,
        maxBodyBytes: config.maxBodyBytes,
        log,
      }),
    )
    .use(
      mcpRoutes({
        forms: services.forms,
        analytics: services.analytics,
        submissions: services.submissions,
        triage: services.triage,
        search: serviceSearch(services.search),
        maxResults: config.mcpMaxResults,
        audit: services.audit,
        log,
      }),
    )
    .use(
      opsRoutes({
        ping: () => store.ping(),
        health: async () => {
          const { pending, failed, byKind, oldestDueAt } = await backlog(services);
          return { outbox: { pending, failed }, backlog: { byKind, oldestDueAt }, lastBackup: services.backups.last() };
        },
        gauges: () => gauges(services),
        metrics,
        metricsToken: config.metricsToken,
      }),
    )
    .use(
      new Elysia({ prefix: "/api/v1" })
        .use(formsRoutes(services.forms, services.lifecycle.deleteForm))
        .use(
          submissionsRoutes(
            services.submissions,
            services.lifecycle,
            config.maxBodyBytes,
            services.files,
            services.forms,
            services.partials,
          ),
        )
        .use(searchRoutes(services.search))
        .use(triageRoutes(services.triage))
        .use(revisionsRoutes(services.edits))
        .use(filesRoutes(services.files, services.submissions))
        .use(submissionPdfRoutes(services.pdfs))
        .use(keysRoutes(services.keys))
        .use(teamsRoutes(services.teams))
        .use(analyticsRoutes(services.analytics))
        .use(spamRoutes(services.spam))
        .use(webhooksRoutes(services.webhooks))
        .use(notificationRoutes(services.notifications, services.memberNotifications))
        .use(
          accountsRoutes(services.accounts, {
            secureCookie: config.publicUrl.startsWith("https:"),
            secondFactor: services.secondFactor,
          }),
        )
        .use(
          passkeysRoutes(services.passkeys, services.accounts, {
            secureCookie: config.publicUrl.startsWith("https:"),
          }),
        )
        .use(invitationRoutes(services.invitations, invitationOptions))
        .use(
          oidcRoutes(services.oidc, {
            ...invitationOptions,
            publicUrl: config.publicUrl,
            passkeys: services.passkeys.status(),
          }),
        ),
    );
}

export type App = ReturnType<typeof createApp>;
