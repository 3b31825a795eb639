import type { BatchWriter } from "../../db/batch-transaction";
import { submissionCountOf } from "../../db/postgres/deltas";
import type { Sql } from "../../db/sql";
import { isoTime, type Clock } from "../../lib/clock";
import { AppError } from "../../lib/errors";
import type { Form } from "../forms/model";
import type { NewSubmission } from "./model";
import type { SubmitCheck } from "./pipeline";

const closed = (why: string) => new AppError("FORM_CLOSED", `this form is closed: ${why}`);
const full = () => closed("it has taken all the submissions it accepts");

/** Why a form is closed now: paused, past its `closesAt`, or its inbox at `maxSubmissions`; undefined while it is open. */
export function closedReason(form: Form, clock: Clock): "paused" | "ended" | "full" | undefined {
  if (form.paused) return "paused";
  if (form.closesAt !== null && isoTime(clock.now()) >= form.closesAt) return "ended";
  if (form.maxSubmissions !== null && form.submissionCount >= form.maxSubmissions) return "full";
  return undefined;
}

/** Why a form is closed now, as the FORM_CLOSED refusal; undefined while it is open. */
export function whyClosed(form: Form, clock: Clock): AppError | undefined {
  const reason = closedReason(form, clock);
  if (reason === "paused") return closed("it is not taking submissions right now");
  if (reason === "ended") return closed(`it stopped taking submissions at ${form.closesAt}`);
  return reason && full();
}

/**
 * A closed form (`whyClosed`) refuses every submission, nothing stored. The count here is the form
 * as last read; `capWriter` makes the cap exact under concurrent submits.
 */
export function closingCheck(clock: Clock): SubmitCheck {
  return {
    name: "closing",
    check: ({ form }) => whyClosed(form, clock) ?? "accept",
  };
}

/**
 * The exact cap: runs in the batch's transaction after the counters were bumped, and refuses a batch
 * that took a form past its `maxSubmissions` (the batch is then retried one submission at a time, so
 * only the overflow fails). The bump holds the form's row until the commit (PostgreSQL locks it:
 * a capped form's counter stays on its row; SQLite has one writer), so two batches cannot both see
 * room for the same last place. On PostgreSQL the count adds the deltas not folded yet, read after
 * the lock was taken (a statement of its own, so it sees every batch committed before it).
 */
export function capWriter(sql: Sql): BatchWriter<NewSubmission> {
  const COUNT = `SELECT ${submissionCountOf(sql, "forms")} AS n FROM forms WHERE id = ?`;
  return async (batch) => {
    const capped = new Map<string, number>();
    for (const s of batch)
      if (s.status === "inbox" && s.form.maxSubmissions !== null) capped.set(s.form.id, s.form.maxSubmissions);
    for (const [formId, max] of capped) {
      const row = await sql.get<{ n: number }>(COUNT, [formId]);
      if (row && row.n > max) throw full();
    }
  };
}
