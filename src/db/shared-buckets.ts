import { rateDecision, type Buckets, type RateDecision } from "../lib/token-bucket";
import type { Sql } from "./sql";

/**
 * Token buckets kept in the database (PostgreSQL's `rate_buckets`, an UNLOGGED table: no WAL, no
 * fsync, emptied by a crash, which only refills everyone), so every instance takes from the same
 * bucket. One statement per take, atomic under the row's lock: it refills the bucket for the time
 * since it was last used, takes `cost` tokens if it holds them, and says whether it did. A new name
 * starts full; a bucket unused for a whole window is full again, so it is deleted (once a window,
 * after a take): a flood of names costs rows for one window, never anyone else's tokens.
 * Names carry `table` as a prefix: keys, visitors and addresses never share a bucket.
 */
export function sharedTokenBuckets(
  sql: Sql,
  table: string,
  capacity: number,
  windowSeconds: number,
  now: () => number,
): Buckets {
  const perMs = capacity / (windowSeconds * 1000);
  const windowMs = windowSeconds * 1000;
  let swept = now();
  return {
    async take(name, cost = 1): Promise<RateDecision> {
      const at = now();
      const row = await sql.get<{ tokens: number; allowed: number }>(TAKE, [
        `${table}:${name}`,
        capacity,
        cost,
        at,
        perMs,
      ]);
      if (at - swept > windowMs) {
        swept = at;
        // Best effort: a failed sweep leaves full buckets, which the next one takes.
        sql
          .run("DELETE FROM rate_buckets WHERE name LIKE ? AND updated_at < ?", [`${table}:%`, at - windowMs])
          .catch(() => {});
      }
      return rateDecision(capacity, perMs, row!.tokens, row!.allowed === 1, at);
    },
  };
}

// ?1 name, ?2 capacity, ?3 cost, ?4 now (ms), ?5 tokens per ms. A clock stepped back (NTP) refills nothing.
const REFILLED =
  "LEAST(CAST(?2 AS DOUBLE PRECISION), b.tokens + GREATEST(0, CAST(?4 AS DOUBLE PRECISION) - b.updated_at) * CAST(?5 AS DOUBLE PRECISION))";
const TAKE = `INSERT INTO rate_buckets AS b (name, tokens, updated_at, allowed)
  VALUES (?1, CAST(?2 AS DOUBLE PRECISION) - CAST(?3 AS DOUBLE PRECISION), CAST(?4 AS DOUBLE PRECISION), 1)
  ON CONFLICT (name) DO UPDATE SET
    allowed = CASE WHEN ${REFILLED} >= CAST(?3 AS DOUBLE PRECISION) THEN 1 ELSE 0 END,
    tokens = ${REFILLED} - CASE WHEN ${REFILLED} >= CAST(?3 AS DOUBLE PRECISION) THEN CAST(?3 AS DOUBLE PRECISION) ELSE 0 END,
    updated_at = GREATEST(b.updated_at, CAST(?4 AS DOUBLE PRECISION))
  RETURNING tokens, allowed`;
