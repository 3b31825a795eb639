import type { Database } from "bun:sqlite";

/** Runs a function's writes as one IMMEDIATE transaction (a savepoint inside another one): they commit together or not at all. */
export type Atomically = <T>(fn: () => T) => T;

/** The database's `Atomically`. */
export const atomically =
  (db: Database): Atomically =>
  (fn) =>
    db.transaction(fn).immediate();
