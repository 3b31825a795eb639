// PostgreSQL's codes for a transaction that lost to another one and can simply run again:
// serialization failure, deadlock, a lock not available.
const RETRYABLE_SQLSTATES = new Set(["40001", "40P01", "55P03"]);

/**
 * Another process holds the write lock (e.g. a long CLI write) or, on PostgreSQL, another
 * transaction won a conflict: the same write can simply be tried again.
 */
export const isDatabaseBusy = (e: unknown): boolean =>
  e instanceof Error &&
  ((e as { code?: unknown }).code === "SQLITE_BUSY" || RETRYABLE_SQLSTATES.has((e as { errno?: string }).errno ?? ""));

/** Thrown for a write that waited for the lock as long as it may: nothing of it was stored. */
export class DatabaseBusyError extends Error {
  constructor(waitedMs: number) {
    super(`the database's write lock was held by another process for ${Math.round(waitedMs)} ms`);
    this.name = "DatabaseBusyError";
  }
}

/**
 * Runs a small write, trying it again on a timer while another process holds the write lock (the
 * server's connection never waits inside SQLite: that would stop its event loop). Gives up with
 * DatabaseBusyError after `maxWaitMs`.
 */
export async function retryWhileBusy<T>(write: () => T | Promise<T>, maxWaitMs: number): Promise<T> {
  const started = performance.now();
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (e) {
      const waited = performance.now() - started;
      if (!isDatabaseBusy(e)) throw e;
      if (waited >= maxWaitMs) throw new DatabaseBusyError(waited);
      await Bun.sleep(Math.min(250, 2 ** attempt));
    }
  }
}
