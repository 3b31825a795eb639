import type { Database } from "bun:sqlite";
import { isDatabaseBusy } from "./busy";

/** For each item of a batch: null once it is committed, else the error that kept it out. */
export type Outcome = Error | null;

/** Writes its part of a batch; runs inside the batch's transaction. */
export type BatchWriter<T> = (batch: T[]) => void;

const asError = (e: unknown) => (e instanceof Error ? e : new Error(String(e)));

/**
 * Commits a batch through every writer, in order, in one IMMEDIATE transaction, so nothing they
 * write can disagree. If the batch fails, each item is tried on its own so that a bad one fails
 * alone; not when the database is busy (another process holds the write lock): then every item
 * gets the busy error, and the caller decides when to try again.
 */
export function batchTransaction<T>(db: Database, writers: BatchWriter<T>[]): (batch: T[]) => Outcome[] {
  const write = db.transaction((batch: T[]) => {
    for (const writer of writers) writer(batch);
  });
  const attempt = (batch: T[]): Outcome => {
    try {
      write.immediate(batch);
      return null;
    } catch (e) {
      return asError(e);
    }
  };

  return (batch) => {
    const outcome = attempt(batch);
    if (outcome === null || batch.length === 1 || isDatabaseBusy(outcome)) return batch.map(() => outcome);
    return batch.map((item) => attempt([item]));
  };
}
