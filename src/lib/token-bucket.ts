export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds at which the bucket is full again. */
  reset: number;
  /** Seconds until one token is available; set when refused. */
  retryAfter: number;
}

interface Bucket {
  tokens: number;
  updatedAt: number;
}

/**
 * Token buckets per name, refilled evenly: `capacity` tokens over `windowSeconds`.
 * Buckets that have refilled completely carry no information and are swept, so memory
 * stays bounded by the callers active within one window (and by `maxBuckets` at worst).
 */
export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();
  private readonly perMs: number;
  private lastSweep = 0;

  constructor(
    readonly capacity: number,
    readonly windowSeconds: number,
    private readonly now: () => number,
    private readonly maxBuckets = 100_000,
  ) {
    this.perMs = capacity / (windowSeconds * 1000);
  }

  /** Takes `cost` tokens if the bucket holds them; a cost of 0 only reports the bucket. */
  take(name: string, cost = 1): RateDecision {
    const now = this.now();
    this.sweep(now);
    let bucket = this.buckets.get(name);
    if (!bucket) {
      if (this.buckets.size >= this.maxBuckets) this.buckets.clear();
      bucket = { tokens: this.capacity, updatedAt: now };
      this.buckets.set(name, bucket);
    } else {
      bucket.tokens = Math.min(this.capacity, bucket.tokens + (now - bucket.updatedAt) * this.perMs);
      bucket.updatedAt = now;
    }
    const allowed = bucket.tokens >= cost;
    if (allowed) bucket.tokens -= cost;
    const msToFull = (this.capacity - bucket.tokens) / this.perMs;
    return {
      allowed,
      limit: this.capacity,
      remaining: Math.floor(bucket.tokens),
      reset: Math.ceil((now + msToFull) / 1000),
      retryAfter: allowed ? 0 : Math.max(1, Math.ceil((1 - bucket.tokens) / this.perMs / 1000)),
    };
  }

  get size(): number {
    return this.buckets.size;
  }

  private sweep(now: number): void {
    if (now - this.lastSweep < this.windowSeconds * 1000) return;
    this.lastSweep = now;
    for (const [name, b] of this.buckets) {
      if (b.tokens + (now - b.updatedAt) * this.perMs >= this.capacity) this.buckets.delete(name);
    }
  }
}
