import type { BatchWriter } from "../../db/batch-transaction";
import { AppError } from "../../lib/errors";
import type { Principal } from "../../lib/principal";
import type { Form } from "../forms/model";
import type { UsedChallenge } from "../spam/repo";
import type { SubmitterInfo } from "./meta";
import type { NewSubmission, SubmissionStatus, SubmitBody } from "./model";

/**
 * The submit path as named stages, registered in the composition root (services.ts):
 * 1. checks, before the commit, once the form is found and owned: each accepts, rejects with an
 *    error (nothing is stored), or marks the submission as spam (stored, counted nowhere);
 * 2. writers, inside the batch's one transaction: the rows, then the tallies of the inbox
 *    (counters, rollups), then the queues of what goes out for an inbox submission (outbox rows);
 * 3. hooks after the commit, before the submitters are answered: mail out, webhooks.
 * Every writer and hook sees each submission's `status` and respects it: spam is stored and
 * counted nowhere. A submission moved into the inbox later goes through the tallies' `count` and
 * the queues; one moved out of it through the tallies' `uncount`. Deleted submissions take
 * what they left behind with them (purges) and, from the inbox, leave the tallies (`uncount`).
 */
export interface SubmitPipeline {
  checks: SubmitCheck[];
  /** What a new submission writes first: its row, and what must be stored with it or not at all. */
  rows: BatchWriter<NewSubmission>[];
  tallies: Tally[];
  queues: BatchWriter<NewSubmission>[];
  /**
   * What a submission leaves elsewhere (queued messages, delivery payloads), deleted with it in
   * the deletion's transaction: whatever a queue writes, a purge removes.
   */
  purges: BatchWriter<NewSubmission>[];
  afterCommit: ((batch: NewSubmission[]) => void)[];
}

/** Counts kept equal to a recount of the inbox, inside the same transaction as what changes it. */
export interface Tally {
  /** Takes a batch's inbox submissions in (others are skipped). */
  count: BatchWriter<NewSubmission>;
  /** Takes submissions that leave the inbox out again. */
  uncount: BatchWriter<NewSubmission>;
}

/** What a batch of new submissions writes, in order, in its one transaction. */
export const commitWriters = (p: Pick<SubmitPipeline, "rows" | "tallies" | "queues">): BatchWriter<NewSubmission>[] => [...p.rows, ...p.tallies.map((t) => t.count), ...p.queues];

/** What moving submissions into the inbox (`inbox`) or out of it (`spam`) writes, after their new status. */
export const moveWriters = (p: SubmitPipeline, setStatuses: BatchWriter<NewSubmission>) => ({
  inbox: [setStatuses, ...p.tallies.map((t) => t.count), ...p.queues],
  spam: [setStatuses, ...p.tallies.map((t) => t.uncount)],
});

/** What deleting submissions (each with the status it has) writes: the rows and what they left elsewhere, then the inbox ones leave the tallies. */
export const deleteWriters = (p: Pick<SubmitPipeline, "tallies" | "purges">, deleteRows: BatchWriter<NewSubmission>): BatchWriter<NewSubmission>[] => [
  deleteRows,
  ...p.purges,
  ...p.tallies.map((t) => (batch: NewSubmission[]) => t.uncount(batch.filter((s) => s.status === "inbox"))),
];

/** A submission before the checks: its form, the key that sends it, the request's body and submitter. */
export interface Candidate {
  form: Form;
  caller: Principal;
  body: SubmitBody;
  /**
   * The fields to store, `_meta` already dropped. A check removes the fields it consumed (a
   * honeypot, a challenge token), so they are never stored.
   */
  data: Record<string, unknown>;
  submitter: SubmitterInfo;
  /** A proof-of-work solution the challenge check accepted: recorded with the submission, so it is used once. */
  usedChallenge?: UsedChallenge;
}

/** What a check decides: store it, store it as spam, or refuse it with this error. */
export type Verdict = "accept" | "spam" | AppError;

export interface SubmitCheck {
  name: string;
  check(candidate: Candidate): Verdict | Promise<Verdict>;
}

/**
 * Runs every check in order; the first refusal is thrown, and any spam verdict makes the submission
 * spam. Stays synchronous while the checks are (a form without a challenge), so the common submit
 * path waits on nothing but its commit.
 */
export function runChecks(checks: SubmitCheck[], candidate: Candidate, from = 0, status: SubmissionStatus = "inbox"): SubmissionStatus | Promise<SubmissionStatus> {
  for (let i = from; i < checks.length; i++) {
    const verdict = checks[i]!.check(candidate);
    if (verdict instanceof Promise) return verdict.then((v) => runChecks(checks, candidate, i + 1, settle(v, status)));
    status = settle(verdict, status);
  }
  return status;
}

/** A refusal is thrown; spam, once said, stays. */
const settle = (verdict: Verdict, status: SubmissionStatus): SubmissionStatus => {
  if (verdict instanceof AppError) throw verdict;
  return verdict === "spam" ? "spam" : status;
};
