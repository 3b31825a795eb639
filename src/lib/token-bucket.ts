export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds at which the bucket is full again. */
  reset: number;
  /** Seconds until one token is available; set when refused. */
  retryAfter: number;
}

/** Buckets by name: each caller's, in memory (TokenBuckets) or shared by every instance on a database (db/shared-buckets.ts). */
export interface Buckets {
  /** Takes `cost` tokens if the name's bucket holds them; a cost of 0 only reports the bucket. */
  take(name: string, cost?: number): RateDecision | Promise<RateDecision>;
}

/** What a bucket of `capacity` refilled at `perMs` tokens per millisecond tells a caller, holding `tokens` at `now` after the take. */
export function rateDecision(
  capacity: number,
  perMs: number,
  tokens: number,
  allowed: boolean,
  now: number,
): RateDecision {
  const msToFull = (capacity - tokens) / perMs;
  return {
    allowed,
    limit: capacity,
    remaining: Math.floor(tokens),
    reset: Math.ceil((now + msToFull) / 1000),
    retryAfter: allowed ? 0 : Math.max(1, Math.ceil((1 - tokens) / perMs / 1000)),
  };
}

interface Bucket {
  tokens: number;
  updatedAt: number;
}

/** A named bucket in the use-ordered list: a list of our own, since finding a JS Map's first entry costs O(entries deleted before it). */
interface Entry extends Bucket {
  name: string;
  older: Entry;
  newer: Entry;
}

/** How many still-refilling buckets one newcomer may look past for a full one: bounds the work per request. */
const LOOK_PAST = 32;

/**
 * Token buckets per name, refilled evenly: `capacity` tokens over `windowSeconds`. A bucket is
 * forgotten only once it has refilled completely, so no number of other names can refill or reset
 * it; at most `maxBuckets` are held. While all of them are still refilling, new names share one
 * overflow bucket (see `take`).
 */
export class TokenBuckets implements Buckets {
  private readonly byName = new Map<string, Entry>();
  /**
   * The ends of a circular list in order of last use (or look, see `evictOneFull`): `ends.newer`
   * is the oldest. A bucket untouched for a whole window is full, so full buckets gather at the
   * oldest end, where dropping them costs O(1) each, never a scan.
   */
  private readonly ends: Entry;
  private readonly overflow: Bucket;
  private readonly perMs: number;

  constructor(
    readonly capacity: number,
    readonly windowSeconds: number,
    private readonly now: () => number,
    readonly maxBuckets = 100_000,
  ) {
    this.perMs = capacity / (windowSeconds * 1000);
    this.overflow = { tokens: capacity, updatedAt: now() };
    const ends = { name: "", tokens: 0, updatedAt: 0 } as Entry;
    ends.older = ends.newer = ends;
    this.ends = ends;
  }

  /**
   * Takes `cost` tokens if the name's bucket holds them; a cost of 0 only reports the bucket.
   * A name new to a table at its bound gets its own bucket only by evicting one that is full again.
   * When every bucket is still refilling, dropping one would hand its owner a fresh quota, and
   * giving the newcomer a fresh one would let a flood of new addresses each take a full quota;
   * so newcomers share one overflow bucket (the usual capacity) until a bucket refills.
   */
  take(name: string, cost = 1): RateDecision {
    const now = this.now();
    this.dropFullOldest(now);
    let bucket: Bucket | undefined = this.byName.get(name);
    if (bucket) {
      this.moveToNewest(bucket as Entry);
      this.refill(bucket, now);
    } else if (this.byName.size < this.maxBuckets || this.evictOneFull(now)) {
      bucket = this.add(name, now);
    } else {
      bucket = this.overflow;
      this.refill(bucket, now);
    }
    const allowed = bucket.tokens >= cost;
    if (allowed) bucket.tokens -= cost;
    return rateDecision(this.capacity, this.perMs, bucket.tokens, allowed, now);
  }

  /** How many named buckets are held (the overflow bucket aside); never more than `maxBuckets`. */
  get size(): number {
    return this.byName.size;
  }

  private refill(bucket: Bucket, now: number): void {
    // A clock stepped back (NTP) must not take tokens away, nor make a bucket look older than it is.
    if (now <= bucket.updatedAt) return;
    bucket.tokens = Math.min(this.capacity, bucket.tokens + (now - bucket.updatedAt) * this.perMs);
    bucket.updatedAt = now;
  }

  private isFull(bucket: Bucket, now: number): boolean {
    return bucket.tokens + Math.max(0, now - bucket.updatedAt) * this.perMs >= this.capacity;
  }

  /** Drops full buckets from the oldest end until one is still refilling: each bucket is dropped once, so O(1) amortised. */
  private dropFullOldest(now: number): void {
    for (let oldest = this.ends.newer; oldest !== this.ends && this.isFull(oldest, now); oldest = this.ends.newer)
      this.remove(oldest);
  }

  /**
   * Evicts one full bucket if it finds one within LOOK_PAST steps. The oldest bucket is not always
   * the first to be full again: one emptied a while ago may still be refilling while younger ones
   * missing a token are full. Each still-refilling bucket looked at moves to the newest end, so the
   * next newcomer looks further on, and one exhausted caller at the oldest end cannot send every
   * newcomer to the overflow bucket for a whole window. Moving it never loses it: only full ones go.
   */
  private evictOneFull(now: number): boolean {
    for (let looked = 0; looked < LOOK_PAST && this.ends.newer !== this.ends; looked++) {
      const oldest = this.ends.newer;
      if (this.isFull(oldest, now)) {
        this.remove(oldest);
        return true;
      }
      this.moveToNewest(oldest);
    }
    return false;
  }

  private add(name: string, now: number): Entry {
    const newest = this.ends.older;
    const entry: Entry = { name, tokens: this.capacity, updatedAt: now, older: newest, newer: this.ends };
    newest.newer = entry;
    this.ends.older = entry;
    this.byName.set(name, entry);
    return entry;
  }

  private remove(entry: Entry): void {
    entry.older.newer = entry.newer;
    entry.newer.older = entry.older;
    this.byName.delete(entry.name);
  }

  private moveToNewest(entry: Entry): void {
    if (this.ends.older === entry) return;
    entry.older.newer = entry.newer;
    entry.newer.older = entry.older;
    const newest = this.ends.older;
    entry.older = newest;
    entry.newer = this.ends;
    newest.newer = entry;
    this.ends.older = entry;
  }
}
