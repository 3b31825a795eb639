import { DatabaseBusyError, isDatabaseBusy } from "./busy";
import type { Outcome } from "./batch-transaction";

interface Waiting<T> {
  item: T;
  since: number;
  resolve: () => void;
  reject: (e: Error) => void;
}

export interface GroupCommit<T> {
  /** Resolves once `item` is committed to disk; rejects if writing it failed, or with DatabaseBusyError after waiting `maxWaitMs` for the lock. */
  write(item: T): Promise<void>;
  /** Resolves when everything queued so far is committed or refused (for shutdown). */
  drain(): Promise<void>;
  readonly pending: number;
}

export interface GroupCommitOptions<T> {
  /** Told after each commit, before its writers are answered, with the items it stored. */
  afterCommit?: (items: T[]) => void;
  maxBatch?: number;
  /** How long an item may wait for a write lock held by another process. */
  maxWaitMs?: number;
  /**
   * Under load, whether a batch waits for the writers the last commit answered to come back (see
   * `groupCommit`). Worth it where each batch costs round trips to a database server (PostgreSQL).
   */
  gather?: boolean;
}

// While another process holds the lock, tries again after 2, 4, 8 … up to 50 ms: the event loop
// stays free for reads in between, and the lock is noticed within 50 ms of its release.
const retryDelay = (attempt: number) => Math.min(50, 2 ** (attempt + 1));

// The longest a gathering batch waits (with `gather`), however long the commit before it took: a
// commit slowed by a lock or a stalled disk says nothing about when its writers come back.
const MAX_GATHER_MS = 20;

/**
 * Group commit: items that arrive while the event loop is busy are written together in one
 * transaction on the next `setImmediate` (or, while a batch commits, once it has), and every writer is answered after that commit
 * is durable. Each durable commit costs a sync of the log, so sharing it is what makes durable
 * acknowledgements fast (~3.7x one transaction per request); on the server the sync runs off the
 * event loop (wal-sync.ts), so the next batch gathers while the disk works. `commit` answers per item: null when stored, else
 * the error that kept it out, so a bad item fails alone. A batch that finds the database busy is
 * tried again on a timer, never by blocking the event loop, until its items have waited `maxWaitMs`.
 */
export function groupCommit<T>(
  commit: (items: T[]) => Promise<Outcome[]>,
  opts: GroupCommitOptions<T> = {},
): GroupCommit<T> {
  const { afterCommit = () => {}, maxBatch = 256, maxWaitMs = 5000, gather = false } = opts;
  let queue: Waiting<T>[] = [];
  let scheduled = false;
  // Gathering: until when a batch waits for more, the size that goes at once, the timer that sends it anyway.
  let gatherUntil = 0;
  let gatherTarget = 0;
  let gatherTimer: ReturnType<typeof setTimeout> | undefined;
  // One batch at a time: what arrives while it commits waits for the next one, and shares its commit.
  let committing = false;
  let busyAttempts = 0;
  const idle: (() => void)[] = [];

  const flush = async () => {
    scheduled = false;
    if (gatherTimer) clearTimeout(gatherTimer);
    gatherTimer = undefined;
    committing = true;
    const started = performance.now();
    const batch = queue.slice(0, maxBatch);
    queue = queue.slice(batch.length);
    let outcomes: Outcome[];
    try {
      outcomes = await commit(batch.map((w) => w.item));
    } catch (e) {
      outcomes = batch.map(() => (e instanceof Error ? e : new Error(String(e))));
    }
    const now = performance.now();
    const retry = batch.filter((w, i) => isDatabaseBusy(outcomes[i]) && now - w.since < maxWaitMs);
    const waiting = new Set(retry);
    const stored = batch.filter((_, i) => outcomes[i] === null);
    try {
      if (stored.length) afterCommit(stored.map((w) => w.item));
    } finally {
      batch.forEach((w, i) => {
        const outcome = outcomes[i]!;
        if (outcome === null) w.resolve();
        else if (!waiting.has(w)) w.reject(isDatabaseBusy(outcome) ? new DatabaseBusyError(now - w.since) : outcome);
      });
      // Waiting items keep their place at the front of the queue.
      queue = retry.concat(queue);
      busyAttempts = retry.length ? busyAttempts + 1 : 0;
      committing = false;
      if (gather && !retry.length) {
        gatherTarget = Math.min(maxBatch, queue.length + stored.length);
        gatherUntil = performance.now() + Math.min(MAX_GATHER_MS, performance.now() - started);
      }
      if (queue.length) schedule();
      else for (const done of idle.splice(0)) done();
    }
  };

  // `flush` answers every writer itself: what escapes it is an `afterCommit` hook's throw (a bug),
  // printed, and the batches after it still go.
  const run = () => void flush().catch((e: unknown) => console.error("group commit: afterCommit failed", e));

  // With `gather`: in a closed loop of clients, the writers a commit answered come back soon after
  // it, and may share the next commit. For as long as that commit took (MAX_GATHER_MS at most), a
  // batch waits for as many writers as were waiting or answered when it ended, so no writer waits
  // more than one commit beyond what it would have; a lone writer on an idle server (one answered,
  // one back) goes at once. Batches as full as the load allows: fewer commits, and round trips, per write.
  const schedule = () => {
    if (scheduled || committing) return;
    scheduled = true;
    const now = performance.now();
    if (busyAttempts) setTimeout(run, retryDelay(busyAttempts));
    else if (now < gatherUntil && queue.length < gatherTarget)
      gatherTimer = setTimeout(run, Math.max(1, Math.round(gatherUntil - now)));
    else setImmediate(run);
  };

  return {
    write(item) {
      return new Promise<void>((resolve, reject) => {
        queue.push({ item, since: performance.now(), resolve, reject });
        if (gatherTimer && queue.length >= gatherTarget) {
          clearTimeout(gatherTimer);
          gatherTimer = undefined;
          setImmediate(run);
        } else schedule();
      });
    },
    drain() {
      return scheduled || committing ? new Promise<void>((r) => idle.push(r)) : Promise.resolve();
    },
    get pending() {
      return queue.length;
    },
  };
}
