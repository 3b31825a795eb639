/** A value a statement takes as a parameter (booleans go in as 0 or 1: both engines store them as INTEGER). */
export type SqlValue = string | number | bigint | null | Uint8Array;

/** Positional (`?`, `?N`) or named (`$name`) parameters. */
export type SqlParams = readonly SqlValue[] | Readonly<Record<string, SqlValue>>;

/**
 * One database, whichever engine holds it. Statements are written once, in the SQL both engines
 * speak (placeholders `?`, `?N` or `$name`; `json_each(?)` for a JSON array of values; casts where
 * PostgreSQL cannot infer a parameter's type): SQLite runs them as written, PostgreSQL through a
 * translation made once per text (postgres-sql.ts).
 *
 * Every statement made while a `transaction` callback runs, anywhere in its async flow, belongs to
 * that transaction: repositories need not pass a connection around, and a service decides what
 * commits together by wrapping it in `transaction`.
 */
/**
 * What the engine's nature means for the code above src/db, asked by name: modules ask these
 * questions, never which engine holds the database (engine branches live under src/db only).
 */
export interface EngineTraits {
  /** One process writes the database (a SQLite file): nothing else commits between its reads and its writes. */
  readonly soleWriter: boolean;
  /** Statements cross a network (PostgreSQL): a fuller batch saves round trips, worth waiting for under load. */
  readonly networked: boolean;
  /** Counters and rollups are appended as deltas and folded in by a job (db/postgres/deltas.ts), not updated on their rows. */
  readonly tallyDeltas: boolean;
  /** Ends a `SELECT` of a row its transaction will update, to lock it meanwhile; empty where one writer holds the whole database. */
  readonly lockForUpdate: string;
  /** The database is a file formsvc snapshots itself (`formsvc backups`); PostgreSQL's backups are pg_dump's. */
  readonly fileSnapshots: boolean;
}

export interface Sql {
  /** Which engine: for src/db alone; the code above asks `traits`. */
  readonly engine: "sqlite" | "postgres";
  readonly traits: EngineTraits;
  /** Every row the statement returns. */
  all<Row>(text: string, params?: SqlParams): Promise<Row[]>;
  /** The first row the statement returns, or null. */
  get<Row>(text: string, params?: SqlParams): Promise<Row | null>;
  /** Runs a write; resolves with how many rows it changed. */
  run(text: string, params?: SqlParams): Promise<number>;
  /**
   * Runs `fn` as one transaction: committed when it resolves, rolled back when it throws. Writers
   * take their locks at the start (SQLite: IMMEDIATE), so a busy database fails the transaction at
   * once, before `fn` runs. Inside another transaction it is a savepoint.
   *
   * `lazy`: on SQLite, answered at COMMIT without waiting for the log's sync (wal-sync.ts): what it
   * wrote is in the log, so a killed process loses nothing, and the next sync (a writer's, or one
   * started for it within 200 ms) makes it durable; a power loss before then may lose it, as with
   * PostgreSQL's `synchronous_commit = off`. Only for writes whose loss is already handled as a
   * crash's (an outbox claim or sent mark). PostgreSQL commits as ever.
   */
  transaction<T>(fn: () => Promise<T>, options?: { lazy?: boolean }): Promise<T>;
  /**
   * Runs `fn` once the transaction whose async flow calls this has committed (a savepoint's, once
   * its outermost transaction has), never if it is rolled back; outside a transaction, at once.
   * SQLite runs it synchronously right after COMMIT, before any other statement can read what
   * committed; PostgreSQL once COMMIT has answered. `fn` must not throw.
   */
  afterCommit(fn: () => void): void;
  /** Closes the connections once the statements in flight have finished. */
  close(): Promise<void>;
}

/** Runs `fn`'s writes as one transaction; the name services use for it. */
export type Atomically = <T>(fn: () => Promise<T>) => Promise<T>;
