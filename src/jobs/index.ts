import { AUTORESPONSE_WINDOW_MS } from "../modules/notifications/autoresponse";
import { OUTBOX_KEEP_MS, type Services } from "../services";
import type { Job } from "./scheduler";

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

/** Every background job `serve` runs. */
export function createJobs(services: Services): Job[] {
  return [
    {
      name: "expire-idempotency-keys",
      everyMs: 10 * MINUTE_MS,
      // Clients may retry for a day; after that a key is forgotten.
      run: async () => void (await services.submissions.expireIdempotencyKeys(DAY_MS)),
    },
    {
      name: "delete-expired-challenges",
      everyMs: 10 * MINUTE_MS,
      // A used solution is remembered until its challenge expires; after that it is refused as expired.
      run: async () => void (await services.spam.pow.deleteExpiredChallenges()),
    },
    {
      name: "delete-expired-sessions",
      everyMs: HOUR_MS, atMs: 7 * MINUTE_MS,
      // Expired sessions are refused when used; deleting them keeps the table to the live ones.
      run: async () => void (await services.accounts.deleteExpiredSessions()),
    },
    {
      name: "forget-old-login-failures",
      everyMs: 5 * MINUTE_MS,
      // A failure counts for 15 minutes; after that its row only takes space.
      run: async () => void (await services.accounts.forgetOldFailures()),
    },
    {
      name: "expire-retained-submissions",
      // Hourly, although retention counts days: a server down or restarted at a daily hour would skip a day.
      everyMs: HOUR_MS, atMs: 17 * MINUTE_MS,
      run: async () => void (await services.lifecycle.expireRetained()),
    },
    {
      name: "send-outbox",
      // A safety net: commits trigger a drain at once; this picks up retries that fall due and rows
      // another process queued (a `submissions not-spam` or a `webhooks replay` at the command line).
      everyMs: 5_000,
      run: () => services.outbox.drain(),
    },
    {
      name: "release-expired-leases",
      everyMs: MINUTE_MS, atMs: 30_000,
      // A row whose sender died mid-send (an instance killed) goes back to the queue once its lease runs out.
      run: async () => void (await services.outbox.releaseExpired()),
    },
    {
      name: "delete-old-outbox-rows",
      everyMs: DAY_MS, atMs: 3 * HOUR_MS + 17 * MINUTE_MS,
      run: async () => void (await services.outbox.deleteOldRows(OUTBOX_KEEP_MS)),
    },
    {
      name: "expire-autoresponse-throttle",
      everyMs: 10 * MINUTE_MS,
      run: async () => void (await services.outbox.forgetAutoresponsesBefore(AUTORESPONSE_WINDOW_MS)),
    },
    {
      name: "delete-expired-confirmations",
      everyMs: HOUR_MS, atMs: 23 * MINUTE_MS,
      run: async () => void (await services.confirmations.deleteExpired()),
    },
  ];
}
