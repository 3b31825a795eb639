import { batchTransaction, type BatchWriter } from "../../db/batch-transaction";
import type { Sql } from "../../db/sql";
import { AppError } from "../../lib/errors";
import type { Principal } from "../../lib/principal";
import type { Slots } from "../../lib/slots";
import type { Form } from "../forms/model";
import type { SpamVerdict } from "../spam/model";
import type { SubmitterInfo } from "./meta";
import type { NewSubmission, SubmissionStatus, SubmitBody } from "./model";

/**
 * The submit path as named stages, registered in the composition root (services.ts `submitStages`
 * for what writes, `createServices` for checks and hooks), and made into one `SubmitPipeline`:
 * 1. checks, before the commit, once the form is found and owned: each accepts, rejects with an
 *    error (nothing is stored), or marks the submission as spam (stored, counted nowhere);
 * 2. writers, inside the batch's one transaction, after one read of its forms as committed
 *    (`lookup`, which the writers then ask): the rows, then the queues of what goes out for
 *    an inbox submission (outbox rows), then the tallies of the inbox (rollups, counters) and the
 *    limits. The tallies update rows every batch of a form shares, so they come last, and each
 *    writer sees the batch sorted by form and email: rows shared with another instance's batch are
 *    locked in one order (no deadlock) and held only until the commit that follows;
 * 3. hooks after the commit, before anyone is answered (the outbox sends what was queued).
 * Every writer and hook sees each submission's `status` and respects it: spam is stored and
 * counted nowhere. A submission moved into the inbox later goes through the tallies' `count` and
 * the queues; one moved out of it through the tallies' `uncount`. Deleted submissions take
 * what they left behind with them (purges) and, from the inbox, leave the tallies (`uncount`).
 * Whatever commits through the pipeline (a submit, a move, a deletion) runs the hooks once it has
 * committed, told what changed and how many messages it queued: no hook learns it any other way.
 */
export interface SubmitStages {
  checks: SubmitCheck[];
  /** Runs first in every transaction through the pipeline: reads what the writers need of the batch's forms as committed (committed-forms.ts). */
  lookup: BatchWriter<NewSubmission>;
  /** What a new submission writes first: its row, and what must be stored with it or not at all. */
  rows: BatchWriter<NewSubmission>[];
  /** Writes the status each submission carries (a move into or out of the inbox). */
  setStatuses: BatchWriter<NewSubmission>;
  /** Deletes the submissions' own rows (what they left elsewhere goes with `purges`). */
  deleteRows: BatchWriter<NewSubmission>;
  tallies: Tally[];
  /** After the tallies, in a new submission's transaction: what refuses a batch the tallies took past a limit. */
  limits: BatchWriter<NewSubmission>[];
  queues: Queue[];
  /**
   * What a submission leaves elsewhere (queued messages, delivery payloads), deleted with it in
   * the deletion's transaction: whatever a queue writes, a purge removes.
   */
  purges: BatchWriter<NewSubmission>[];
  /** Told after every commit through the pipeline; synchronous, and must not throw (the commit is done). */
  hooks: AfterCommit[];
}

/** Counts kept equal to a recount of the inbox, inside the same transaction as what changes it. */
export interface Tally {
  /** Takes a batch's inbox submissions in (others are skipped). */
  count: BatchWriter<NewSubmission>;
  /** Takes submissions that leave the inbox out again. */
  uncount: BatchWriter<NewSubmission>;
}

/** Queues what goes out for a batch's inbox submissions, inside its transaction; resolves with how many messages it queued. */
export type Queue = (batch: NewSubmission[]) => Promise<number>;

/** What a commit through the pipeline changed: new submissions, some moved into or out of the inbox, or deleted. */
export interface Committed {
  change: "submitted" | "inbox" | "spam" | "deleted";
  batch: NewSubmission[];
  /** Messages the queues queued in that commit (the outbox has something to send). */
  queued: number;
}

export type AfterCommit = (committed: Committed) => void;

/** Moves and deletions inside one `SubmitPipeline.transaction`. */
export interface PipelineTransaction {
  /** Moves submissions (carrying their new status) into the inbox or out of it: their status, tallies and queues. */
  move(batch: NewSubmission[], to: SubmissionStatus): Promise<void>;
  /** Deletes submissions (each with the status it has): the rows and what they left elsewhere, then the inbox ones leave the tallies. */
  delete(batch: NewSubmission[]): Promise<void>;
}

export type SubmitPipeline = ReturnType<typeof createSubmitPipeline>;

/**
 * The submit pipeline as one object over one database, built once (services.ts) and handed whole
 * to what commits new submissions, moves them and deletes them; each of those runs the same
 * writers and, once committed, the same hooks.
 */
export function createSubmitPipeline(
  sql: Sql,
  { checks, lookup, rows, setStatuses, deleteRows, tallies, limits, queues, purges, hooks }: SubmitStages,
) {
  const counts = tallies.map((t) => t.count);
  const uncounts = tallies.map((t) => t.uncount);
  const writeAll = async (writers: BatchWriter<NewSubmission>[], batch: NewSubmission[]) => {
    for (const write of writers) await write(batch);
  };
  const queue = async (batch: NewSubmission[]): Promise<number> => {
    let queued = 0;
    for (const q of queues) queued += await q(batch);
    return queued;
  };
  const tell = (committed: Committed) => {
    for (const hook of hooks) hook(committed);
  };

  return {
    /** Runs the checks (`runChecks`): synchronous while they are. */
    check: (candidate: Candidate) => runChecks(checks, candidate),

    /** Whether batches wait for fuller ones under load (group-commit.ts `gather`): on PostgreSQL each costs round trips. */
    gather: sql.traits.networked,

    /** Commits a batch of new submissions in one transaction (a bad one fails alone), then runs the hooks for what was stored. */
    commit: batchTransaction(
      sql,
      async (arrived: NewSubmission[]) => {
        const batch = lockOrder(arrived);
        await lookup(batch);
        await writeAll(rows, batch);
        const queued = await queue(batch);
        await writeAll(counts, batch);
        await writeAll(limits, batch);
        return queued;
      },
      (batch, queued) => tell({ change: "submitted", batch, queued }),
    ),

    /**
     * Runs `work` as one transaction (with whatever else it writes, such as its audit line); what it
     * moves and deletes through its `PipelineTransaction` runs the writers, and once the transaction
     * has committed, the hooks. Not to be called inside another transaction: the hooks would run
     * before the commit.
     */
    async transaction<T>(work: (tx: PipelineTransaction) => Promise<T>): Promise<T> {
      const done: Committed[] = [];
      const tx: PipelineTransaction = {
        async move(arrived, to) {
          const batch = lockOrder(arrived);
          await lookup(batch);
          await setStatuses(batch);
          if (to === "inbox") {
            await writeAll(counts, batch);
            done.push({ change: "inbox", batch, queued: await queue(batch) });
          } else {
            await writeAll(uncounts, batch);
            done.push({ change: "spam", batch, queued: 0 });
          }
        },
        async delete(arrived) {
          const batch = lockOrder(arrived);
          await lookup(batch);
          await deleteRows(batch);
          await writeAll(purges, batch);
          const inbox = batch.filter((s) => s.status === "inbox");
          await writeAll(uncounts, inbox);
          done.push({ change: "deleted", batch, queued: 0 });
        },
      };
      const result = await sql.transaction(() => work(tx));
      for (const committed of done) tell(committed);
      return result;
    },
  };
}

/**
 * The batch in the order every writer locks shared rows (a form's counters and rollups, a joiner,
 * an idempotency key): by form, then email, then Idempotency-Key. Two transactions that lock rows
 * in one order cannot deadlock on them.
 */
function lockOrder(batch: NewSubmission[]): NewSubmission[] {
  const key = (s: NewSubmission) => [s.form.id, s.email ?? "", s.idempotency?.key ?? "", s.id] as const;
  return batch.length < 2
    ? batch
    : [...batch].sort((x, y) => {
        const a = key(x);
        const b = key(y);
        for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
        return 0;
      });
}

/**
 * A submission before the checks: its form, the key that sends it, the request's body and submitter.
 * What a check adds for its own writers goes in a slot of `stages` (lib/slots.ts), which the
 * submission it becomes shares: the duplicate window's digest, the used proof of work.
 */
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
  /** Whether the body was a form post (urlencoded, multipart): its values are all text, and typed by the field rules. */
  formPost: boolean;
  /** What the spam filter found, stored in the submission's own `spam` column; null until it has run. */
  spam: SpamVerdict | null;
  stages: Slots;
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
export function runChecks(
  checks: SubmitCheck[],
  candidate: Candidate,
  from = 0,
  status: SubmissionStatus = "inbox",
): SubmissionStatus | Promise<SubmissionStatus> {
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
