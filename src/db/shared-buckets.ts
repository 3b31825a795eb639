import { rateDecision, type Buckets, type RateDecision } from "../lib/token-bucket";
import type { CarriedLook } from "./change-feed";
import type { Sql } from "./sql";

interface Waiter {
  resolve: (d: RateDecision) => void;
  reject: (e: unknown) => void;
}

/** The takes of one name and cost that wait for the statement in flight for it, to go together in the next. */
interface Group {
  name: string;
  cost: number;
  waiting: Waiter[];
}

/**
 * Token buckets kept in the database (PostgreSQL's `rate_buckets`, an UNLOGGED table: no WAL, no
 * fsync, emptied by a crash, which only refills everyone), so every instance takes from the same
 * bucket. One statement per take, atomic under the row's lock: it refills the bucket for the time
 * since it was last used, takes `cost` tokens if it holds them, and says whether it did. A new name
 * starts full; a bucket unused for a whole window is full again, so it is deleted (once a window,
 * after a take): a flood of names costs rows for one window, never anyone else's tokens.
 * Names carry `table` as a prefix: keys, visitors and addresses never share a bucket.
 *
 * A busy key would make its row the one every request of every instance updates. So each process
 * has at most one statement in flight per bucket (name and cost): takes that arrive meanwhile wait
 * for it and then go together in the next statement, which takes `cost` for as many of them as the
 * bucket holds tokens for, in their order of arrival. The row then sees one update per round trip
 * and instance, not one per request, and nothing is lost in precision: no token is held anywhere
 * but in the row, each take is decided against the shared bucket, in order, as if alone. What it
 * costs is latency under load: a take may wait for the statement in flight (one round trip) first.
 *
 * `carry` (the change feed's): a take is mostly sent in the turn its previous one answered, the
 * turn in which the requests that one let through go on to read caches, and so look at the change
 * feed. The take then reads the feed's token too, and that turn's look costs no round trip of its own.
 */
export function sharedTokenBuckets(
  sql: Sql,
  table: string,
  capacity: number,
  windowSeconds: number,
  now: () => number,
  carry: () => CarriedLook | null = () => null,
): Buckets {
  const perMs = capacity / (windowSeconds * 1000);
  const windowMs = windowSeconds * 1000;
  let swept = now();
  // Per bucket: the takes waiting for the statement in flight (an empty group while one flies and none waits).
  const inFlight = new Map<string, Group>();

  const run = async (group: Group, waiting: Waiter[]) => {
    const at = now();
    const look = carry();
    try {
      const row = (await sql.get<{ tokens: number; granted: number }>(look ? `${TAKE}, ${look.column}` : TAKE, [
        `${table}:${group.name}`,
        capacity,
        group.cost,
        at,
        perMs,
        waiting.length,
      ]))!;
      look?.deliver(row);
      const granted = Number(row.granted);
      // Each granted take's view of the bucket is what it left for the ones after it.
      waiting.forEach((w, i) =>
        w.resolve(
          i < granted
            ? rateDecision(capacity, perMs, row.tokens + (granted - 1 - i) * group.cost, true, at)
            : rateDecision(capacity, perMs, row.tokens, false, at),
        ),
      );
    } catch (e) {
      look?.fail(e);
      for (const w of waiting) w.reject(e);
    }
    if (at - swept > windowMs) {
      swept = at;
      // Best effort: a failed sweep leaves full buckets, which the next one takes.
      sql
        .run("DELETE FROM rate_buckets WHERE name LIKE ? AND updated_at < ?", [`${table}:%`, at - windowMs])
        .catch(() => {});
    }
  };

  const flyNext = async (key: string, group: Group): Promise<void> => {
    while (group.waiting.length) {
      const waiting = group.waiting;
      group.waiting = [];
      await run(group, waiting);
    }
    inFlight.delete(key);
  };

  return {
    take(name, cost = 1): Promise<RateDecision> {
      const key = `${cost} ${name}`;
      return new Promise<RateDecision>((resolve, reject) => {
        const flying = inFlight.get(key);
        if (flying) return void flying.waiting.push({ resolve, reject });
        const group: Group = { name, cost, waiting: [{ resolve, reject }] };
        inFlight.set(key, group);
        void flyNext(key, group);
      });
    },
  };
}

// ?1 name, ?2 capacity, ?3 cost, ?4 now (ms), ?5 tokens per ms, ?6 how many takes of `cost` go
// together. A clock stepped back (NTP) refills nothing. `allowed` keeps how many were granted.
const REFILLED =
  "LEAST(CAST(?2 AS DOUBLE PRECISION), b.tokens + GREATEST(0, CAST(?4 AS DOUBLE PRECISION) - b.updated_at) * CAST(?5 AS DOUBLE PRECISION))";
const granted = (tokens: string) =>
  `CASE WHEN CAST(?3 AS DOUBLE PRECISION) = 0 THEN CAST(?6 AS INTEGER)
     ELSE CAST(LEAST(CAST(?6 AS DOUBLE PRECISION), FLOOR(${tokens} / CAST(?3 AS DOUBLE PRECISION))) AS INTEGER) END`;
const TAKE = `INSERT INTO rate_buckets AS b (name, tokens, updated_at, allowed)
  VALUES (?1, CAST(?2 AS DOUBLE PRECISION) - ${granted("CAST(?2 AS DOUBLE PRECISION)")} * CAST(?3 AS DOUBLE PRECISION),
    CAST(?4 AS DOUBLE PRECISION), ${granted("CAST(?2 AS DOUBLE PRECISION)")})
  ON CONFLICT (name) DO UPDATE SET
    allowed = ${granted(REFILLED)},
    tokens = ${REFILLED} - ${granted(REFILLED)} * CAST(?3 AS DOUBLE PRECISION),
    updated_at = GREATEST(b.updated_at, CAST(?4 AS DOUBLE PRECISION))
  RETURNING tokens, allowed AS granted`;
