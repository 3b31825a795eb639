import type { Database } from "bun:sqlite";
import { isDatabaseBusy } from "../../db/errors";
import { createAnalyticsRepo } from "../analytics/repo";
import { queueNotifications } from "../notifications/queue";
import { createOutboxRepo } from "../notifications/repo";
import type { NewSubmission } from "./model";
import { createSubmissionsRepo } from "./repo";

/** For each submission of a batch: null once it is committed, else the error that kept it out. */
export type Outcome = Error | null;

/**
 * Everything a batch of submissions writes, in one IMMEDIATE transaction: the rows and the forms'
 * counters, the analytics rollups and the notification outbox, so none of them can disagree.
 * If the batch fails, each submission is tried on its own so that a bad one fails alone; not when
 * the database is busy (another process holds the write lock), which would only wait again per item.
 */
export function createBatchCommitter(db: Database): (batch: NewSubmission[]) => Outcome[] {
  const submissions = createSubmissionsRepo(db);
  const analytics = createAnalyticsRepo(db);
  const outbox = createOutboxRepo(db);
  const write = db.transaction((batch: NewSubmission[]) => {
    submissions.insertSubmissions(batch);
    analytics.recordRollups(batch);
    queueNotifications(outbox, batch);
  });
  const attempt = (batch: NewSubmission[]): Outcome => {
    try {
      write.immediate(batch);
      return null;
    } catch (e) {
      return e instanceof Error ? e : new Error(String(e));
    }
  };

  return (batch) => {
    const outcome = attempt(batch);
    if (outcome === null || batch.length === 1 || isDatabaseBusy(outcome)) return batch.map(() => outcome);
    return batch.map((s) => attempt([s]));
  };
}
