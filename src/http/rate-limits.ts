import { addressBucket } from "../lib/address-bucket";
import type { ClientOrigin } from "../lib/client-ip";
import type { Clock } from "../lib/clock";
import type { Principal } from "../lib/principal";
import { TokenBuckets, type Buckets, type RateDecision } from "../lib/token-bucket";

export interface RateLimitSettings {
  /** Per secret key, and per client address without a valid key. */
  rateLimit: number;
  /** Per publishable key and visitor address. */
  publicRateLimit: number;
  rateWindow: number;
  /** Wall time by default, even when the services' clock is pinned. */
  rateClock?: Clock;
  /** Buckets each table holds at most (default 100,000). */
  rateMaxBuckets?: number;
  /**
   * Where buckets live: in this process (the default, one server per SQLite file), or shared by every
   * instance on one database (db/shared-buckets.ts). `table` keeps the kinds of callers apart.
   */
  buckets?: (
    table: "keys" | "visitors" | "addresses",
    capacity: number,
    windowSeconds: number,
    now: () => number,
  ) => Buckets;
}

/**
 * Whose bucket a request takes its token from: a secret key's own; a publishable key's per visitor
 * address (it sits in a public page: no one visitor can use up the site's quota, and none of it is
 * the owner's secret-key quota); without a valid key, the client address's. Each kind has a table of
 * its own, so a flood of new addresses fills only theirs and can never send a key to that table's
 * shared overflow bucket. A drop-in post (`POST /f/{formId}`, no key: the form id is the address)
 * takes from the visitors' table per form and visitor address, as a publishable key bound to that
 * form would.
 */
export function createRateLimits(s: RateLimitSettings) {
  const now = s.rateClock ? () => s.rateClock!.now() : Date.now;
  const make =
    s.buckets ??
    ((_table, capacity, windowSeconds, clock) => new TokenBuckets(capacity, windowSeconds, clock, s.rateMaxBuckets));
  const keys = make("keys", s.rateLimit, s.rateWindow, now);
  const visitors = make("visitors", s.publicRateLimit, s.rateWindow, now);
  const addresses = make("addresses", s.rateLimit, s.rateWindow, now);
  /** Takes `cost` tokens (0 only reads the bucket) from the caller's bucket. */
  return (
    caller: Principal | null,
    client: () => ClientOrigin,
    cost: number,
    dropInForm: string | null = null,
  ): RateDecision | Promise<RateDecision> => {
    // `f/` is no key id (`key_…`): a form's visitors never share a bucket with a key's.
    if (dropInForm !== null) return visitors.take(`f/${dropInForm} ${addressBucket(client().ip)}`, cost);
    if (!caller) return addresses.take(addressBucket(client().ip), cost);
    if (caller.kind === "publishable") return visitors.take(`${caller.keyId} ${addressBucket(client().ip)}`, cost);
    return keys.take(caller.keyId, cost);
  };
}
