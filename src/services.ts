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
import { createAnalyticsRepo } from "./modules/analytics/repo";
import { createAnalyticsService } from "./modules/analytics/service";
import { createAuditRepo } from "./modules/audit/repo";
import { createAuditService } from "./modules/audit/service";
import { createFormsRepo } from "./modules/forms/repo";
import { createFormsService } from "./modules/forms/service";
import { createKeysRepo } from "./modules/keys/repo";
import { createKeysService } from "./modules/keys/service";
import { createSmtpMailer } from "./modules/notifications/mailer";
import { queueNotifications } from "./modules/notifications/queue";
import { createOutboxRepo } from "./modules/notifications/repo";
import { createNotificationsService } from "./modules/notifications/service";
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

/** The stages of the submit pipeline that write, over one database; bench/seed.ts commits through the same. */
export function submitStages(db: Database): Pick<SubmitPipeline, "rows" | "tallies" | "queues" | "purges"> {
  const submissions = createSubmissionsRepo(db);
  const outbox = createOutboxRepo(db);
  return {
    rows: [submissions.insertRows, createSpamRepo(db).recordUsedChallenges], // each submission with its status and idempotency key; the proof of work it used
    tallies: [submissions.counters, createAnalyticsRepo(db).rollups], // the forms' counters and waitlist joiners; daily and monthly rollups
    queues: [queueNotifications(outbox)], // owner notification emails
    purges: [outbox.deleteForSubmissions], // a deleted submission's notifications, whatever their state
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
  const notifications = createNotificationsService({
    repo: createOutboxRepo(db),
    mailer: deps.config.smtpUrl ? createSmtpMailer(deps.config.smtpUrl, deps.config.mailFrom) : null,
    clock,
    log: deps.log,
    retryBaseSeconds: deps.config.mailRetryBaseSeconds,
    retryHours: deps.config.mailRetryHours,
  });
  const analytics = createAnalyticsService(createAnalyticsRepo(db), forms, clock);
  const spam = createSpamService({ db, clock, config: deps.config, log: deps.log, forms });

  // The submit path, stage by stage (modules/submissions/pipeline.ts).
  const pipeline: SubmitPipeline = {
    checks: [allowedOriginCheck, spam.checks.challenge, spam.checks.honeypot],
    ...submitStages(db),
    afterCommit: [notifications.afterCommit],
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
  const outbox = createOutboxRepo(db);
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
        outbox.listForSubmissions(ids).map((n) => ({ id: n.id, submissionId: n.submission_id, formId: n.form_id, status: n.status, queuedAt: n.queued_at, sentAt: n.sent_at })),
    },
  });
  return { owners, keys, forms, submissions, lifecycle, analytics, notifications, spam, audit };
}

export type Services = ReturnType<typeof createServices>;
