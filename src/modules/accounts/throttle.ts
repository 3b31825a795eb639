import { randomBytes } from "node:crypto";
import type { Sql } from "../../db/sql";
import { isoTime } from "../../lib/clock";

/** The answer of a throttle: allowed (with the attempt's id, to take it back), or refused until `retryAfter` seconds have passed. */
export type Attempt = { allowed: true; id: string } | { allowed: false; retryAfter: number };

/**
 * At most `limit` failures per name within any `windowMs` (a sliding window, not a bucket: the
 * sixth failure within 15 minutes is refused however they were spread). An attempt is counted
 * as it starts (`attempt`), so concurrent guesses cannot slip past the count while a password is
 * being checked; a success takes its own count back (`forgive`) or clears the name (`clear`).
 *
 * Kept in the database (`login_failures`), so instances sharing one count the same failures. An
 * attempt is written first and counted after: two instances racing for the last free place may
 * both be refused, never both allowed. Rows older than the window are deleted by a job; a flood of
 * names is bounded by the per-address limit each failure also counts against.
 */
export function failureWindow(sql: Sql, scope: "email" | "address", limit: number, windowMs: number, now: () => number) {
  return {
    async attempt(name: string): Promise<Attempt> {
      const at = now();
      const id = randomBytes(12).toString("base64url");
      await sql.run("INSERT INTO login_failures (id, scope, name, at) VALUES (?, ?, ?, ?)", [id, scope, name, isoTime(at)]);
      const recent = await sql.all<{ id: string; at: string }>("SELECT id, at FROM login_failures WHERE scope = ? AND name = ? AND at > ? ORDER BY at, id", [
        scope,
        name,
        isoTime(at - windowMs),
      ]);
      if (recent.length <= limit) return { allowed: true, id };
      await sql.run("DELETE FROM login_failures WHERE id = ?", [id]);
      const oldest = Date.parse(recent.find((r) => r.id !== id)!.at);
      return { allowed: false, retryAfter: Math.max(1, Math.ceil((oldest + windowMs - at) / 1000)) };
    },

    /** Takes back one attempt: it succeeded. */
    forgive: (id: string) => sql.run("DELETE FROM login_failures WHERE id = ?", [id]),

    /** Forgets every failure of `name`. */
    clear: (name: string) => sql.run("DELETE FROM login_failures WHERE scope = ? AND name = ?", [scope, name]),
  };
}

/** Deletes failures older than `windowMs`: they no longer count against anyone. */
export const forgetOldFailures = (sql: Sql, windowMs: number, now: number) => sql.run("DELETE FROM login_failures WHERE at <= ?", [isoTime(now - windowMs)]);
