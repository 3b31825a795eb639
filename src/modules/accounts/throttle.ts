/** The answer of a throttle: allowed, or refused until `retryAfter` seconds have passed. */
export type Attempt = { allowed: true } | { allowed: false; retryAfter: number };

/**
 * At most `limit` failures per name within any `windowMs` (a sliding window, not a bucket: the
 * sixth failure within 15 minutes is refused however they were spread). An attempt is counted
 * as it starts (`attempt`), so concurrent guesses cannot slip past the count while a password is
 * being checked; a success takes its own count back (`forgive`) or clears the name (`clear`).
 *
 * In memory, bounded to `maxNames` names: a new name beyond that replaces the one whose last
 * failure is oldest. Pushing a name out that way takes as many failed logins as the bound, each
 * costing the sender a password check and counted against its address, so it buys nothing.
 */
export class FailureWindow {
  // Insertion order is the order of last failure: the first entry is the stalest.
  private readonly failures = new Map<string, number[]>();

  constructor(
    readonly limit: number,
    readonly windowMs: number,
    private readonly now: () => number,
    readonly maxNames = 100_000,
  ) {}

  /** Counts one attempt for `name` and allows it, or refuses it (counting nothing) while the name has `limit` failures in the window. */
  attempt(name: string): Attempt {
    const now = this.now();
    const recent = (this.failures.get(name) ?? []).filter((at) => now - at < this.windowMs);
    if (recent.length >= this.limit) return { allowed: false, retryAfter: Math.max(1, Math.ceil((recent[0]! + this.windowMs - now) / 1000)) };
    recent.push(now);
    this.failures.delete(name);
    if (this.failures.size >= this.maxNames) this.failures.delete(this.failures.keys().next().value!);
    this.failures.set(name, recent);
    return { allowed: true };
  }

  /** Takes back the latest attempt of `name`: it succeeded. */
  forgive(name: string): void {
    const list = this.failures.get(name);
    list?.pop();
    if (list?.length === 0) this.failures.delete(name);
  }

  /** Forgets every failure of `name`. */
  clear(name: string): void {
    this.failures.delete(name);
  }
}
