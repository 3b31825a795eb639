import type { Database } from "bun:sqlite";
import type { Config } from "./config";
import { watchExternalChanges } from "./db/external-changes";
import type { Clock } from "./lib/clock";
import { createCursorCodec } from "./lib/cursor";
import type { Logger } from "./lib/log";
import { createAnalyticsRepo } from "./modules/analytics/repo";
import { createAnalyticsService } from "./modules/analytics/service";
import { createFormsRepo } from "./modules/forms/repo";
import { createFormsService } from "./modules/forms/service";
import { createKeysRepo } from "./modules/keys/repo";
import { createKeysService } from "./modules/keys/service";
import { createOwnersRepo } from "./modules/owners/repo";
import { createOwnersService } from "./modules/owners/service";
import { createSmtpMailer } from "./modules/notifications/mailer";
import { createOutboxRepo } from "./modules/notifications/repo";
import { createNotificationsService } from "./modules/notifications/service";
import { createBatchCommitter } from "./modules/submissions/commit-batch";
import { createSubmissionsRepo } from "./modules/submissions/repo";
import { createSubmissionsService } from "./modules/submissions/service";
import { countryLookup } from "./lib/geo";

export interface Deps {
  db: Database;
  clock: Clock;
  config: Config;
  log: Logger;
}

/** The composition root: every service, built once over one database. The CLI and the HTTP API share them. */
export function createServices(deps: Deps) {
  const { db, clock } = deps;
  const secret = db.query<{ value: string }, []>("SELECT value FROM settings WHERE key = 'cursor_secret'").get()!.value;
  const cursors = createCursorCodec(secret);
  const owners = createOwnersService(createOwnersRepo(db), clock);
  const changes = watchExternalChanges(db);
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
  const submissions = createSubmissionsService({
    repo: createSubmissionsRepo(db),
    forms,
    cursors,
    clock,
    changes,
    countryOf: countryLookup(),
    commit: createBatchCommitter(db),
    afterCommit: [notifications.afterCommit],
  });
  return { owners, keys, forms, submissions, analytics, notifications };
}

export type Services = ReturnType<typeof createServices>;
