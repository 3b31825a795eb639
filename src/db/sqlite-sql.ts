import type { Database, SQLQueryBindings, Statement } from "bun:sqlite";
import { AsyncLocalStorage } from "node:async_hooks";
import type { Sql, SqlParams } from "./sql";

const MAX_PREPARED = 1024;
/** How long a lazy transaction's commit may wait for a sync of the log at most (PostgreSQL's wal_writer_delay is 200 ms). */
const LAZY_SYNC_MS = 200;

const bind = (params: SqlParams | undefined): SQLQueryBindings[] =>
  params === undefined ? [] : Array.isArray(params) ? (params as SQLQueryBindings[]) : [params as SQLQueryBindings];

/**
 * `Sql` over one bun:sqlite connection. Statements run synchronously and resolve at once; the
 * promise is only the shape PostgreSQL needs. A transaction is a state of the one connection, so
 * while one is open, statements from outside its async flow wait for it to end: they would
 * otherwise join it, and be rolled back with it. A transaction whose callback awaits only
 * statements ends within the same turn of the event loop, so nothing waits in practice.
 *
 * `afterWrite`, when given, is awaited after every top-level commit or statement that changed
 * something, before its caller is answered: the server makes its writes durable there (wal-sync.ts).
 */
export function sqliteSql(db: Database, afterWrite?: () => Promise<void>): Sql {
  // `committed`: what `afterCommit` registered in this transaction or savepoint, run once the outermost commits.
  const inTransaction = new AsyncLocalStorage<{ depth: number; committed: (() => void)[] }>();
  // Settles when the open transaction ends; null while none is open.
  let open: Promise<void> | null = null;

  // Prepared once per text: bun:sqlite's own `query` cache keeps only its 20 latest texts, and the
  // server uses a few hundred (multi-row statements are one text per row count). Finalized when the
  // cache is emptied and at close, so closing leaves no statement holding the database open.
  const prepared = new Map<string, Statement>();
  const finalizeAll = () => {
    for (const st of prepared.values()) st.finalize();
    prepared.clear();
  };
  const statement = (text: string): Statement => {
    let st = prepared.get(text);
    if (!st) {
      if (prepared.size >= MAX_PREPARED) finalizeAll();
      prepared.set(text, (st = db.prepare(text)));
    }
    return st;
  };
  // Counts every row changed through this connection, whatever the statement (RETURNING ones too).
  const totalChanges = db.query<{ n: number }, []>("SELECT total_changes() AS n");
  let changesSeen = afterWrite ? totalChanges.get()!.n : 0;
  const wrote = (): boolean => {
    const now = totalChanges.get()!.n;
    if (now === changesSeen) return false;
    changesSeen = now;
    return true;
  };
  // A lazy commit not yet covered by a sync: one is started for it within LAZY_SYNC_MS unless a
  // writer's own sync starts first (that one covers it, as a sync covers the whole log).
  let lazySync: ReturnType<typeof setTimeout> | undefined;
  const sync = (): Promise<void> => {
    clearTimeout(lazySync);
    lazySync = undefined;
    return afterWrite!();
  };
  const settle = <T>(result: T): T | Promise<T> => (afterWrite && wrote() ? sync().then(() => result) : result);

  const exec = <T>(work: () => T): Promise<T> => {
    if (open && !inTransaction.getStore()) return open.then(() => exec(work));
    try {
      const result = work();
      return Promise.resolve(inTransaction.getStore() ? result : settle(result));
    } catch (e) {
      return Promise.reject(e);
    }
  };

  const savepoint = async <T>(
    outer: { depth: number; committed: (() => void)[] },
    fn: () => Promise<T>,
  ): Promise<T> => {
    const depth = outer.depth + 1;
    const name = `sp${depth}`;
    db.run(`SAVEPOINT ${name}`);
    try {
      const frame = { depth, committed: [] };
      const result = await inTransaction.run(frame, fn);
      db.run(`RELEASE ${name}`);
      outer.committed.push(...frame.committed);
      return result;
    } catch (e) {
      db.run(`ROLLBACK TO ${name}`);
      db.run(`RELEASE ${name}`);
      throw e;
    }
  };

  return {
    engine: "sqlite",
    traits: { soleWriter: true, networked: false, tallyDeltas: false, lockForUpdate: "", fileSnapshots: true },
    all: <Row>(text: string, params?: SqlParams) => exec(() => statement(text).all(...bind(params)) as Row[]),
    get: <Row>(text: string, params?: SqlParams) =>
      exec(() => (statement(text).get(...bind(params)) as Row | null) ?? null),
    run: (text, params) => exec(() => statement(text).run(...bind(params)).changes),
    async transaction(fn, options) {
      const outer = inTransaction.getStore();
      if (outer) return savepoint(outer, fn);
      while (open) await open;
      let end!: () => void;
      open = new Promise((resolve) => (end = resolve));
      let result: Awaited<ReturnType<typeof fn>>;
      const frame = { depth: 0, committed: [] as (() => void)[] };
      try {
        db.run("BEGIN IMMEDIATE");
        result = await inTransaction.run(frame, fn);
        db.run("COMMIT");
      } catch (e) {
        if (db.inTransaction) db.run("ROLLBACK");
        // A rolled-back transaction leaves the count where it was; no write needs waiting for.
        if (afterWrite) changesSeen = totalChanges.get()!.n;
        throw e;
      } finally {
        open = null;
        end();
      }
      // In this same turn, so before any statement that waited can read what committed.
      for (const committed of frame.committed) committed();
      if (options?.lazy) {
        // Its changes are counted as seen (no read waits for them); the next sync covers them.
        if (afterWrite && wrote() && !lazySync) {
          lazySync = setTimeout(() => void sync().catch(() => {}), LAZY_SYNC_MS);
          lazySync.unref?.();
        }
        return result;
      }
      // Committed: other statements may run while the commit is made durable.
      return settle(result);
    },
    afterCommit(fn) {
      const frame = inTransaction.getStore();
      if (frame) frame.committed.push(fn);
      else fn();
    },
    async close() {
      while (open) await open;
      // A lazy commit still waiting for its sync gets it now.
      if (lazySync) await sync().catch(() => {});
      finalizeAll();
      db.close();
    },
  };
}
