import type { Services } from "../services";
import type { Job } from "./scheduler";

const DAY_MS = 24 * 60 * 60 * 1000;

/** Every background job `serve` runs. */
export function createJobs(services: Services): Job[] {
  return [
    {
      name: "expire-idempotency-keys",
      schedule: "0 */10 * * * *",
      // Clients may retry for a day; after that a key is forgotten.
      run: () => void services.submissions.expireIdempotencyKeys(DAY_MS),
    },
    {
      name: "delete-expired-challenges",
      schedule: "0 */10 * * * *",
      // A used solution is remembered until its challenge expires; after that it is refused as expired.
      run: () => void services.spam.pow.deleteExpiredChallenges(),
    },
    {
      name: "expire-retained-submissions",
      // Hourly, although retention counts days: a server down or restarted at a daily hour would skip a day.
      schedule: "0 17 * * * *",
      run: async () => void (await services.lifecycle.expireRetained()),
    },
    {
      name: "send-notifications",
      // A safety net: commits trigger a drain at once; this picks up retries that fall due.
      schedule: "*/5 * * * * *",
      run: () => services.notifications.drain(),
    },
  ];
}
