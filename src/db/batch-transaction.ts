import { isDatabaseBusy } from "./busy";
import type { Sql } from "./sql";

/** For each item of a batch: null once it is committed, else the error that kept it out. */
export type Outcome = Error | null;

/** Writes its part of a batch; runs inside the batch's transaction. */
export type BatchWriter<T> = (batch: T[]) => Promise<void>;

const asError = (e: unknown) => (e instanceof Error ? e : new Error(String(e)));

/**
 * Commits a batch through `write` in one transaction, so nothing it writes can disagree, and tells
 * `committed` what committed with what `write` returned for it. If the batch fails, each item is
 * tried on its own so that a bad one fails alone; not when the database is busy (another process
 * holds the lock): then every item gets the busy error, and the caller decides when to try again.
 */
export function batchTransaction<T, R>(
  sql: Sql,
  write: (batch: T[]) => Promise<R>,
  committed: (batch: T[], result: R) => void = () => {},
): (batch: T[]) => Promise<Outcome[]> {
  const attempt = async (batch: T[]): Promise<Outcome> => {
    let result: R;
    try {
      result = await sql.transaction(() => write(batch));
    } catch (e) {
      return asError(e);
    }
    committed(batch, result);
    return null;
  };

  return async (batch) => {
    const outcome = await attempt(batch);
    if (outcome === null || batch.length === 1 || isDatabaseBusy(outcome)) return batch.map(() => outcome);
    const outcomes: Outcome[] = [];
    for (const item of batch) outcomes.push(await attempt([item]));
    return outcomes;
  };
}
