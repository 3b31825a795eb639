import type { Database } from "bun:sqlite";

/**
 * Notices commits by other connections (e.g. `formsvc keys revoke` in another process):
 * `PRAGMA data_version` changes exactly then. Caches register a reset and call `sync()`
 * before they answer. It looks at most once per event-loop turn: requests read in the same
 * turn arrived together, so none of them can have arrived after a commit it does not see.
 */
export function watchExternalChanges(db: Database) {
  const dataVersion = db.prepare<{ data_version: number }, []>("PRAGMA data_version");
  const resets: (() => void)[] = [];
  let seen = -1;
  let lookedThisTurn = false;

  return {
    onChange(reset: () => void): void {
      resets.push(reset);
    },
    sync(): void {
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

export type ExternalChanges = ReturnType<typeof watchExternalChanges>;
