import type { Database } from "bun:sqlite";
import type { Config } from "./config";
import { batchTransaction, type BatchWriter } from "./db/batch-transaction";
import { sqliteChangeFeed } from "./db/change-feed";
import type { Clock } from "./lib/clock";
import { createCursorCodec } from "./lib/cursor";
import { countryLookup } from "./lib/geo";
import type { Logger } from "./lib/log";
import { createAnalyticsRepo } from "./modules/analytics/repo";
import { createAnalyticsService } from "./modules/analytics/service";
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
import { createSpamService } from "./modules/spam/service";
import type { NewSubmission } from "./modules/submissions/model";
import type { SubmitPipeline } from "./modules/submissions/pipeline";
import { createSubmissionsRepo } from "./modules/submissions/repo";
import { createSubmissionsService } from "./modules/submissions/service";

export interface Deps {
  db: Database;
  clock: Clock;
  config: Config;
  log: Logger;
}

/** What a batch of submissions writes, in order, inside its one transaction; bench/seed.ts commits through the same. */
export function submitWriters(db: Database): BatchWriter<NewSubmission>[] {
  return [
    createSubmissionsRepo(db).insertSubmissions, // the rows, the forms' counters, waitlist joiners, idempotency keys
    createAnalyticsRepo(db).recordRollups, // daily and monthly counts per country, browser, device
    queueNotifications(createOutboxRepo(db)), // owner notification emails
  ];
}

/** The composition root: every service, built once over one database. The CLI and the HTTP API share them. */
export function createServices(deps: Deps) {
  const { db, clock } = deps;
  const secret = db.query<{ value: string }, []>("SELECT value FROM settings WHERE key = 'cursor_secret'").get()!.value;
  const cursors = createCursorCodec(secret);
  const changes = sqliteChangeFeed(db);
  const owners = createOwnersService(createOwnersRepo(db), clock);
  const keys = createKeysService(createKeysRepo(db), owners, clock, changes);
  const forms = createFormsService(createFormsRepo(db), owners, cursors, clock, changes);
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
    checks: [spam.checks.challenge, spam.checks.honeypot],
    writers: submitWriters(db),
    afterCommit: [notifications.afterCommit],
  };
  const submissions = createSubmissionsService({
    repo: createSubmissionsRepo(db),
    forms,
    cursors,
    clock,
    changes,
    countryOf: countryLookup(),
    pipeline,
    commit: batchTransaction(db, pipeline.writers),
  });
  return { owners, keys, forms, submissions, analytics, notifications, spam };
}

export type Services = ReturnType<typeof createServices>;
