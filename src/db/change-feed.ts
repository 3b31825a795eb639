import type { Database } from "bun:sqlite";

/**
 * Tells caches that another process committed (e.g. `formsvc keys revoke` while `serve` runs).
 * Caches register a reset with `onChange` and call `sync()` before they answer.
 */
export interface ChangeFeed {
  onChange(reset: () => void): void;
  sync(): void;
}

/**
 * SQLite's change feed: `PRAGMA data_version` changes exactly when another connection commits.
 * It looks at most once per event-loop turn: requests read in the same turn arrived together,
 * so none of them can have arrived after a commit it does not see.
 */
export function sqliteChangeFeed(db: Database): ChangeFeed {
  const dataVersion = db.prepare<{ data_version: number }, []>("PRAGMA data_version");
  const resets: (() => void)[] = [];
  let seen = -1;
  let lookedThisTurn = false;

  return {
    onChange(reset) {
      resets.push(reset);
    },
    sync() {
      if (lookedThisTurn) return;
      lookedThisTurn = true;
      setImmediate(() => {
        lookedThisTurn = false;
      });
      const version = dataVersion.get()!.data_version;
      if (version === seen) return;
      seen = version;
      for (const reset of resets) reset();
    },
  };
}
