import type { Database } from "bun:sqlite";
import type { SQL } from "bun";

/**
 * Tells caches that another process committed (e.g. `formsvc keys revoke` while `serve` runs, or
 * another instance on the same PostgreSQL database). Caches register a reset with `onChange` and
 * call `sync()` before they answer. A cache keeps what it loaded only if no reset came meanwhile:
 * the reset may concern what it read.
 */
export interface ChangeFeed {
  onChange(reset: () => void): void;
  /**
   * Resets the caches if another process committed since the last look. Returns a promise only
   * when the look takes a round trip (PostgreSQL): await it, then every commit made before the
   * call is known here.
   */
  sync(): void | Promise<void>;
}

/**
 * A change feed over a token the engine changes with every commit: caches are reset when it differs
 * from the one seen last. It looks at most once per event-loop turn: requests read in the same turn
 * arrived together, so none of them can have arrived after a commit the look does not see. A look
 * that takes a round trip is shared by the requests of the turn it started in, not later ones.
 * `changed` tells whether a new token means another process committed; with `maxAgeMs`, the
 * caches are also reset when they are that old, for commits the token cannot show.
 */
function tokenFeed<T>(
  look: () => T | Promise<T>,
  opts: { changed?: (seen: T, now: T) => boolean; maxAgeMs?: number } = {},
): ChangeFeed & { shareTurn(token: Promise<T>): boolean } {
  const { changed = (seen, now) => seen !== now, maxAgeMs = Infinity } = opts;
  const resets: (() => void)[] = [];
  let seen: T | undefined;
  let resetAt = 0;
  let lookedThisTurn = false;
  let looking: void | Promise<void>;

  const compare = (token: T) => {
    const fresh = performance.now() - resetAt < maxAgeMs;
    if (seen !== undefined && !changed(seen, token) && fresh) return void (seen = token);
    seen = token;
    resetAt = performance.now();
    for (const reset of resets) reset();
  };
  return {
    onChange(reset) {
      resets.push(reset);
    },
    sync() {
      if (lookedThisTurn) return looking;
      start(look());
      return looking;
    },
    /**
     * Makes `token`, read by a statement sent in this turn, this turn's look, unless one started
     * already: then it returns false and the statement need not read it.
     */
    shareTurn(token) {
      if (lookedThisTurn) return false;
      start(token);
      // No request of this turn may await it: its failure is then nobody's to report.
      (looking as Promise<void>).catch(() => {});
      return true;
    },
  };

  function start(token: T | Promise<T>) {
    lookedThisTurn = true;
    setImmediate(() => {
      lookedThisTurn = false;
      looking = undefined;
    });
    looking = token instanceof Promise ? token.then(compare) : compare(token);
  }
}

/** A statement that reads this turn's look too: the column it adds, and where its value goes. */
export interface CarriedLook {
  /** An expression for a `SELECT` list or `RETURNING`: the feed's token, as `change_token`. */
  column: string;
  deliver(row: { change_token: unknown }): void;
  fail(e: unknown): void;
}

/** SQLite's change feed: `PRAGMA data_version` changes exactly when another connection commits. */
export function sqliteChangeFeed(db: Database): ChangeFeed {
  const dataVersion = db.prepare<{ data_version: number }, []>("PRAGMA data_version");
  return tokenFeed(() => dataVersion.get()!.data_version);
}

// The change feed's token, read by its own look or carried by another statement (a subquery: a
// sequence's last_value is read as it is at that moment, whatever the statement's snapshot).
const LAST_VALUE = "(SELECT last_value FROM formsvc_changes) AS change_token";

const PUBLISH = "SELECT nextval('formsvc_changes') AS v";

/**
 * How the Sql tells other processes of a write (the change feed's publish): `publish` after a write
 * outside a transaction; after a transaction, `publishing` is sent in its `COMMIT`'s round trip (run
 * once the commit is durable, as a statement of its own would be) and `published` given its row.
 */
export interface Publisher {
  publish(): Promise<void>;
  publishing: string;
  published(row: { v: unknown }): void;
}

// How long PostgreSQL's caches live at most: how late a write made outside formsvc may be seen.
const CACHE_MAX_AGE_MS = 1000;

/**
 * PostgreSQL's change feed: a sequence every process moves on after each commit that wrote
 * (`publish`, which the Sql awaits before the commit's caller goes on, or sends with its `COMMIT`), so a client's next
 * request, to any instance, finds it moved. Read once per turn (`last_value`, one round trip);
 * the moves this process made itself reset nothing, as SQLite's data_version ignores the
 * connection's own commits: the caches drop what their own writes change. A NOTIFY would cost no
 * round trip to read, but arrives after the commit, so a client's next request could overtake it;
 * and the snapshot (`pg_current_snapshot()`) moves with every writing transaction, the rate
 * limiter's too, which emptied the caches on every request (bench/RESULTS.md). A write made
 * outside formsvc (psql, a restore) moves no sequence: the caches live at most CACHE_MAX_AGE_MS.
 */
export function postgresChangeFeed(pool: SQL): ChangeFeed & Publisher & { carry(): CarriedLook | null } {
  const ours = new Set<number>();
  // Whether a move between the last look and this one was another process's.
  const othersMoved = (seen: number, now: number) => {
    let others = now - seen > 1000;
    for (let v = seen + 1; !others && v <= now; v++) others = !ours.has(v);
    for (const v of ours) if (v <= now) ours.delete(v);
    return others;
  };
  const feed = tokenFeed(async () => Number((await pool.unsafe(`SELECT ${LAST_VALUE}`))[0].change_token), {
    changed: othersMoved,
    maxAgeMs: CACHE_MAX_AGE_MS,
  });
  return {
    onChange: feed.onChange,
    sync: feed.sync,
    /**
     * Lets a statement sent now (the rate limiter's take) read this turn's look, when none has
     * started yet: one round trip instead of two. Null when the look has started.
     */
    carry() {
      let deliver!: (token: number) => void;
      let fail!: (e: unknown) => void;
      const token = new Promise<number>((resolve, reject) => ((deliver = resolve), (fail = reject)));
      if (!feed.shareTurn(token)) return null;
      return { column: LAST_VALUE, deliver: (row) => deliver(Number(row.change_token)), fail };
    },
    publishing: PUBLISH,
    published: (row) => void ours.add(Number(row.v)),
    async publish() {
      try {
        const [row] = await pool.unsafe(PUBLISH);
        ours.add(Number(row.v));
      } catch {
        // The write is committed and must not be reported as failed: without the move, other
        // instances' caches see it within CACHE_MAX_AGE_MS instead of at once.
      }
    },
  };
}
