import type { Database } from "bun:sqlite";
import type { Config } from "./config";
import { batchTransaction } from "./db/batch-transaction";
import { sqliteChangeFeed } from "./db/change-feed";
import { sqliteShredder } from "./db/shred";
import { atomically } from "./db/transaction";
import type { Clock } from "./lib/clock";
import { createCursorCodec } from "./lib/cursor";
import { countryLookup } from "./lib/geo";
import type { Logger } from "./lib/log";
import { createAccountsRepo } from "./modules/accounts/repo";
import { createAccountsService } from "./modules/accounts/service";
import { createAnalyticsRepo } from "./modules/analytics/repo";
import { createAnalyticsService } from "./modules/analytics/service";
import { createAuditRepo } from "./modules/audit/repo";
import { createAuditService } from "./modules/audit/service";
import { createFormsRepo } from "./modules/forms/repo";
import { createFormsService } from "./modules/forms/service";
import { createKeysRepo } from "./modules/keys/repo";
import { createKeysService } from "./modules/keys/service";
import { systemClock } from "./lib/clock";
import { assertPublicUrl } from "./lib/public-address";
import { createConfirmationsRepo } from "./modules/confirmations/repo";
import { renderConfirmation } from "./modules/confirmations/message";
import { queueConfirmations } from "./modules/confirmations/queue";
import { createConfirmationsService } from "./modules/confirmations/service";
import { queueAutoresponses, renderAutoresponse } from "./modules/notifications/autoresponse";
import { mailRetry } from "./modules/notifications/channel";
import { createHttpSender } from "./modules/notifications/http-sender";
import { createSmtpMailer, mailChannel } from "./modules/notifications/mailer";
import { renderNotification } from "./modules/notifications/message";
import { queueNotifications } from "./modules/notifications/queue";
import { createOutboxRepo } from "./modules/notifications/repo";
import { createOutboxService } from "./modules/notifications/service";
import { webhookChannel } from "./modules/webhooks/channel";
import { queueWebhooks } from "./modules/webhooks/queue";
import { createWebhooksRepo } from "./modules/webhooks/repo";
import { createWebhooksService } from "./modules/webhooks/service";
import { createOwnersRepo } from "./modules/owners/repo";
import { createOwnersService } from "./modules/owners/service";
import { createSpamRepo } from "./modules/spam/repo";
import { createSpamService } from "./modules/spam/service";
import { allowedOriginCheck } from "./modules/submissions/allowed-origin";
import { createSubmissionLifecycle } from "./modules/submissions/lifecycle";
import { commitWriters, deleteWriters, moveWriters, type SubmitPipeline } from "./modules/submissions/pipeline";
import { createSubmissionsRepo } from "./modules/submissions/repo";
import { createSubmissionsService } from "./modules/submissions/service";

export interface Deps {
  db: Database;
  clock: Clock;
  config: Config;
  log: Logger;
}

// A receiver has this long to answer (headers included) before the attempt counts as failed.
const WEBHOOK_TIMEOUT_MS = 10_000;
// Finished outbox rows (and their attempts) are kept this long for `outbox list` and `webhooks deliveries`.
export const OUTBOX_KEEP_MS = 30 * 24 * 60 * 60 * 1000;

/** The stages of the submit pipeline that write, over one database; bench/seed.ts commits through the same. */
export function submitStages(db: Database, clock: Clock = systemClock, outbox = createOutboxRepo(db)): Pick<SubmitPipeline, "rows" | "tallies" | "queues" | "purges"> {
  const submissions = createSubmissionsRepo(db);
  return {
    rows: [submissions.insertRows, createSpamRepo(db).recordUsedChallenges], // each submission with its status and idempotency key; the proof of work it used
    tallies: [submissions.counters, createAnalyticsRepo(db).rollups], // the forms' counters and waitlist joiners; daily and monthly rollups
    // What goes out for an inbox submission, as outbox rows: owner notification emails, autoresponses,
    // waitlist confirmation emails (double opt-in), webhook deliveries.
    queues: [
      queueNotifications(outbox, clock),
      queueAutoresponses(outbox, clock),
      queueConfirmations(createConfirmationsRepo(db), outbox, clock),
      queueWebhooks(createWebhooksRepo(db), outbox, clock),
    ],
    purges: [outbox.deleteForSubmissions], // a deleted submission's outbox rows (and their attempts), whatever their state
  };
}

/** The composition root: every service, built once over one database. The CLI and the HTTP API share them. */
export function createServices(deps: Deps) {
  const { db, clock } = deps;
  const secret = db.query<{ value: string }, []>("SELECT value FROM settings WHERE key = 'cursor_secret'").get()!.value;
  const cursors = createCursorCodec(secret);
  const changes = sqliteChangeFeed(db);
  const owners = createOwnersService(createOwnersRepo(db), clock);
  const audit = createAuditService(createAuditRepo(db), clock);
  const formsRepo = createFormsRepo(db);
  const forms = createFormsService(formsRepo, owners, cursors, clock, changes, audit);
  const keys = createKeysService(createKeysRepo(db), owners, clock, changes, (id) => formsRepo.findFormById(id)?.ownerId ?? null, audit);
  const { config } = deps;
  const outboxRepo = createOutboxRepo(db);
  const webhooksRepo = createWebhooksRepo(db);
  const mailer = config.smtpUrl ? createSmtpMailer(config.smtpUrl, config.mailFrom) : null;
  const retryMail = mailRetry(config.mailRetryBaseSeconds, config.mailRetryHours);
  const sender = createHttpSender({ timeoutMs: WEBHOOK_TIMEOUT_MS, allowPrivate: config.webhookAllowPrivate });
  const hooks = webhookChannel({
    sender,
    repo: webhooksRepo,
    retryScale: config.webhookRetryScale,
  });
  // Every outbound message goes through this one outbox, each kind through its channel.
  const outbox = createOutboxService({
    repo: outboxRepo,
    channels: {
      notification: mailChannel(mailer, renderNotification, retryMail),
      autoresponse: mailChannel(mailer, renderAutoresponse, retryMail),
      confirmation: mailChannel(mailer, (row) => renderConfirmation(row, config.publicUrl), retryMail, () => config.publicUrl !== ""),
      webhook: hooks,
    },
    clock,
    log: deps.log,
    notReady: () => [
      ...(mailer ? [] : ["FORMSVC_SMTP_URL is not set: owner notifications, autoresponses and confirmation emails are queued and will be sent once it is"]),
      ...(config.publicUrl || !formsRepo.anyDoubleOptIn()
        ? []
        : ["FORMSVC_PUBLIC_URL is not set: waitlist confirmation emails (double opt-in) are queued and will be sent once it is (their links start with it)"]),
    ],
  });
  const analytics = createAnalyticsService(createAnalyticsRepo(db), forms, clock);
  const spam = createSpamService({ db, clock, config: deps.config, log: deps.log, forms });
  const accounts = createAccountsService({ repo: createAccountsRepo(db), owners, clock, sessionIdleDays: deps.config.sessionIdleDays, sessionMaxDays: deps.config.sessionMaxDays, audit });

  // The submit path, stage by stage (modules/submissions/pipeline.ts).
  const pipeline: SubmitPipeline = {
    checks: [allowedOriginCheck, spam.checks.challenge, spam.checks.honeypot],
    ...submitStages(db, clock, outboxRepo),
    afterCommit: [outbox.afterCommit], // the outbox sends what the commit queued
  };
  const submissionsRepo = createSubmissionsRepo(db);
  const moves = moveWriters(pipeline, submissionsRepo.setStatuses);
  const submissions = createSubmissionsService({
    repo: submissionsRepo,
    forms,
    cursors,
    clock,
    changes,
    countryOf: countryLookup(),
    pipeline,
    commit: batchTransaction(db, commitWriters(pipeline)),
    move: { inbox: batchTransaction(db, moves.inbox), spam: batchTransaction(db, moves.spam) },
    atomically: atomically(db),
    audit,
  });
  const webhooks = createWebhooksService({
    repo: webhooksRepo,
    outbox: outboxRepo,
    forms,
    clock,
    checkUrl: config.webhookAllowPrivate ? async () => {} : (url) => assertPublicUrl(url),
    sendOnce: outbox.sendOnce,
  });
  const confirmations = createConfirmationsService({ repo: createConfirmationsRepo(db), forms, clock });
  /** Closes the transports' connections (after the outbox has stopped). */
  const close = () => {
    mailer?.close();
    sender.close();
  };
  const lifecycle = createSubmissionLifecycle({
    repo: submissionsRepo,
    forms,
    submissions,
    deletes: deleteWriters(pipeline, submissionsRepo.deleteRows),
    atomically: atomically(db),
    audit,
    clock,
    shredder: sqliteShredder(db),
    // What else a person's export shows about their submissions, one entry per store.
    related: {
      notifications: (ids) =>
        outboxRepo.listForSubmissions(ids).map((n) => ({ id: n.id, submissionId: n.submission_id, formId: n.form_id, status: n.status, queuedAt: n.queued_at, sentAt: n.sent_at })),
    },
  });
  return { owners, accounts, keys, forms, submissions, lifecycle, analytics, outbox, webhooks, confirmations, spam, audit, close };
}

export type Services = ReturnType<typeof createServices>;
