import { randomBytes } from "node:crypto";
import { isoTime } from "../../lib/clock";
import type { AccountsRepo, FailureScope } from "./repo";

/** The answer of a throttle: allowed (with the attempt's id, to take it back), or refused until `retryAfter` seconds have passed. */
export type Attempt = { allowed: true; id: string } | { allowed: false; retryAfter: number };

/**
 * At most `limit` failures per name within any `windowMs` (a sliding window, not a bucket: the
 * sixth failure within 15 minutes is refused however they were spread). An attempt is counted
 * as it starts (`attempt`), so concurrent guesses cannot slip past the count while a password is
 * being checked; a success takes its own count back (`forgive`) or clears the name (`clear`).
 *
 * Kept in the database, so instances sharing one count the same failures. An attempt is written
 * first and counted after: two instances racing for the last place may both be refused, never both
 * allowed. Failures older than the window are deleted by a job; a flood of names is bounded by the
 * per-address limit that each failure also counts against.
 */
export function failureWindow(
  repo: AccountsRepo,
  scope: FailureScope,
  limit: number,
  windowMs: number,
  now: () => number,
) {
  return {
    async attempt(name: string): Promise<Attempt> {
      const at = now();
      const id = randomBytes(12).toString("base64url");
      await repo.insertFailure({ id, scope, name, at: isoTime(at) });
      const recent = await repo.recentFailures(scope, name, isoTime(at - windowMs));
      if (recent.length <= limit) return { allowed: true, id };
      await repo.deleteFailure(id);
      const oldest = Date.parse(recent.find((r) => r.id !== id)!.at);
      return { allowed: false, retryAfter: Math.max(1, Math.ceil((oldest + windowMs - at) / 1000)) };
    },
    /** Takes back one attempt: it succeeded. */
    forgive: (id: string) => repo.deleteFailure(id),
    /** Forgets every failure of `name`. */
    clear: (name: string) => repo.clearFailures(scope, name),
  };
}
