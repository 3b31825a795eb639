import { FORMS_PER_FOLD } from "../db/postgres/deltas";
import type { EngineTraits } from "../db/sql";
import { OPERATOR } from "../lib/principal";
import { AUTORESPONSE_WINDOW_MS } from "../modules/notifications/autoresponse";
import { OUTBOX_KEEP_MS, type Services } from "../services";
import type { Job } from "./scheduler";

const DAY_MS = 24 * 60 * 60 * 1000;

/** Every background job `serve` runs. */
export function createJobs(services: Services, { tallyDeltas = false }: Partial<EngineTraits> = {}): Job[] {
  return [
    {
      name: "expire-idempotency-keys",
      schedule: "0 */10 * * * *",
      // Clients may retry for a day; after that a key is forgotten.
      run: async () => void (await services.submissions.expireIdempotencyKeys(DAY_MS)),
    },
    {
      name: "delete-expired-challenges",
      schedule: "0 */10 * * * *",
      // A used solution is remembered until its challenge expires; after that it is refused as expired.
      run: async () => void (await services.spam.pow.deleteExpiredChallenges()),
    },
    {
      name: "delete-expired-sessions",
      schedule: "0 7 * * * *",
      // Expired sessions are refused when used; deleting them keeps the table to the live ones.
      run: async () => void (await services.accounts.deleteExpiredSessions()),
    },
    {
      name: "forget-old-login-failures",
      schedule: "0 */5 * * * *",
      // A failure counts for 15 minutes; after that its row only takes space.
      run: async () => void (await services.accounts.forgetOldFailures()),
    },
    {
      name: "forget-lapsed-password-resets",
      schedule: "0 9 * * * *",
      // A lapsed reset link only takes space (and names its owner): it goes within the hour.
      run: async () => void (await services.accounts.forgetLapsedResets()),
    },
    {
      name: "forget-lapsed-passkey-challenges",
      schedule: "0 13 * * * *",
      run: async () => void (await services.passkeys.forgetLapsedChallenges()),
    },
    {
      name: "forget-lapsed-invitations",
      schedule: "0 11 * * * *",
      run: async () => void (await services.invitations.forgetLapsed()),
    },
    {
      name: "index-search-backlog",
      // Submissions stored before the search index (an upgrade, a copy into PostgreSQL), and new ones a commit's
      // indexer left (a process that stopped first); a look at one row once none is left.
      schedule: "*/10 * * * * *",
      run: async () => {
        await services.search.indexPending();
        await services.search.indexBacklog();
      },
    },
    {
      name: "expire-retained-submissions",
      // Hourly, although retention counts days: a server down or restarted at a daily hour would skip a day.
      schedule: "0 17 * * * *",
      run: async () => void (await services.lifecycle.expireRetained()),
    },
    {
      name: "expire-partials",
      // Answers saved halfway are kept 30 days after their last save; hourly, as retention.
      schedule: "0 19 * * * *",
      run: async () => void (await services.partials.expire()),
    },
    {
      name: "send-outbox",
      // A safety net: commits trigger a drain at once; this picks up retries that fall due and rows
      // another process queued (a `submissions not-spam` or a `webhooks replay` at the command line).
      schedule: "*/5 * * * * *",
      run: () => services.outbox.drain(),
    },
    {
      name: "release-expired-leases",
      schedule: "30 * * * * *",
      // A row whose sender died mid-send (an instance killed) goes back to the queue once its lease runs out.
      run: async () => void (await services.outbox.releaseExpired()),
    },
    {
      name: "delete-old-outbox-rows",
      schedule: "0 17 3 * * *",
      run: async () => void (await services.outbox.deleteOldRows(OUTBOX_KEEP_MS)),
    },
    {
      name: "expire-autoresponse-throttle",
      schedule: "0 */10 * * * *",
      run: async () => void (await services.outbox.forgetAutoresponsesBefore(AUTORESPONSE_WINDOW_MS)),
    },
    {
      name: "send-daily-digests",
      // The previous UTC day's digests; a second run (or another instance) queues nothing (digest.ts).
      schedule: "0 0 8 * * *",
      run: async () => void (await services.digests.queueDigests(OPERATOR)),
    },
    {
      name: "sweep-orphan-files",
      // A file whose submission never committed (a crash mid-upload) goes within the hour; so does one whose submission went.
      schedule: "0 */15 * * * *",
      run: async () => void (await services.files.removeUnattached()),
    },
    // PostgreSQL only (SQLite has no deltas): keeps the deltas that every count read adds up few; again at
    // once while a fold finds a full load.
    ...(tallyDeltas
      ? [
          {
            name: "fold-counter-deltas",
            schedule: "* * * * * *",
            run: async () => {
              while ((await services.foldTallies()) >= FORMS_PER_FOLD);
            },
          },
        ]
      : []),
    {
      name: "delete-expired-confirmations",
      schedule: "0 23 * * * *",
      run: async () => void (await services.confirmations.deleteExpired()),
    },
    // FORMSVC_BACKUP_SCHEDULE: a snapshot to FORMSVC_BACKUP_TO, pruned to FORMSVC_BACKUP_KEEP (modules/backups).
    ...(services.backups.schedule
      ? [{ name: "backup", schedule: services.backups.schedule, run: () => services.backups.scheduled() }]
      : []),
  ];
}
