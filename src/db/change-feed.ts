import type { Database } from "bun:sqlite";
import type { Sql } from "./sql";

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
 */
function tokenFeed<T>(look: () => T | Promise<T>): ChangeFeed {
  const resets: (() => void)[] = [];
  let seen: T | undefined;
  let lookedThisTurn = false;
  let looking: void | Promise<void>;

  const compare = (token: T) => {
    if (token === seen) return;
    seen = token;
    for (const reset of resets) reset();
  };
  return {
    onChange(reset) {
      resets.push(reset);
    },
    sync() {
      if (lookedThisTurn) return looking;
      lookedThisTurn = true;
      setImmediate(() => {
        lookedThisTurn = false;
        looking = undefined;
      });
      const token = look();
      looking = token instanceof Promise ? token.then(compare) : compare(token);
      return looking;
    },
  };
}

/** SQLite's change feed: `PRAGMA data_version` changes exactly when another connection commits. */
export function sqliteChangeFeed(db: Database): ChangeFeed {
  const dataVersion = db.prepare<{ data_version: number }, []>("PRAGMA data_version");
  return tokenFeed(() => dataVersion.get()!.data_version);
}

/**
 * PostgreSQL's change feed: the current snapshot (the transactions running, and where new ones
 * start) changes whenever a transaction that wrote begins or ends, in any instance. Reading it is
 * one round trip per turn; a NOTIFY from the committing instance would cost none, but arrives
 * after the commit, so a client's next request to another instance could overtake it.
 */
export function postgresChangeFeed(sql: Sql): ChangeFeed {
  return tokenFeed(async () => (await sql.get<{ snapshot: string }>("SELECT CAST(pg_current_snapshot() AS TEXT) AS snapshot"))!.snapshot);
}
