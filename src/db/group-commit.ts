import type { Database } from "bun:sqlite";

interface Waiting<T> {
  item: T;
  resolve: () => void;
  reject: (e: unknown) => void;
}

export interface GroupCommit<T> {
  /** Resolves once `item` is committed to disk; rejects if writing it failed. */
  write(item: T): Promise<void>;
  /** Resolves when everything queued so far is committed (for shutdown). */
  drain(): Promise<void>;
  readonly pending: number;
}

/**
 * Group commit: items that arrive while the event loop is busy are written together in
 * one transaction on the next `setImmediate`, and every writer is answered after that
 * commit. With synchronous=FULL each commit is an fsync, so sharing it is what makes
 * durable acknowledgements fast (PERF-NOTES: ~3.7x one transaction per request).
 * If a batch fails, its items are retried one by one so a bad item fails alone.
 */
export function groupCommit<T>(
  db: Database,
  writeBatch: (items: T[]) => void,
  afterCommit: (items: T[]) => void = () => {},
  maxBatch = 256,
): GroupCommit<T> {
  let queue: Waiting<T>[] = [];
  let scheduled = false;
  let idle: (() => void)[] = [];

  const commit = (waiting: Waiting<T>[]) => {
    const items = waiting.map((w) => w.item);
    db.transaction(() => writeBatch(items)).immediate();
    afterCommit(items);
  };

  const flush = () => {
    scheduled = false;
    const batch = queue.slice(0, maxBatch);
    queue = queue.slice(batch.length);
    try {
      commit(batch);
      for (const w of batch) w.resolve();
    } catch {
      for (const w of batch) {
        try {
          commit([w]);
          w.resolve();
        } catch (e) {
          w.reject(e);
        }
      }
    }
    if (queue.length) schedule();
    else for (const done of idle.splice(0)) done();
  };

  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(flush);
  };

  return {
    write(item) {
      return new Promise<void>((resolve, reject) => {
        queue.push({ item, resolve, reject });
        schedule();
      });
    },
    drain() {
      return queue.length === 0 && !scheduled ? Promise.resolve() : new Promise<void>((r) => idle.push(r));
    },
    get pending() {
      return queue.length;
    },
  };
}
