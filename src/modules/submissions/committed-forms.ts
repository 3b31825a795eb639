import type { Sql } from "../../db/sql";
import { joinerRuleOf, type JoinerRule } from "../waitlist/joiners";
import type { NewSubmission } from "./model";

/** What the writers need of a form as committed (not as cached): how it counts joiners, whether it has a cap, its enabled webhooks. */
export interface CommittedForm {
  rule: JoinerRule;
  capped: boolean;
  /** Oldest first. */
  webhooks: { id: string; url: string }[];
}

// One statement for every form of a batch and their webhooks: on PostgreSQL each statement is a
// round trip, and a batch used to read each form twice (confirmations, webhooks) besides this.
const READ = `SELECT f.id, f.form_type, f.double_opt_in, f.max_submissions, w.id AS webhook_id, w.url
  FROM forms f LEFT JOIN webhooks w ON w.form_id = f.id AND w.enabled = 1
  WHERE f.id IN (SELECT value FROM json_each(?)) ORDER BY f.id, w.created_at, w.id`;

/**
 * The forms of a batch as committed, read once per transaction by the pipeline (`read`, before any
 * writer) and then asked by every writer (`of`): the joiners' tally and the confirmation emails
 * must agree on a form's rule, and one read is one round trip instead of a few per form. A form
 * made a waitlist (or given a webhook) by another process counts from the next batch that reads it.
 */
export function createCommittedForms(sql: Sql) {
  // Keyed by the submission: a batch's writers see the same objects, and `read` sets them anew in each transaction.
  const forms = new WeakMap<NewSubmission, CommittedForm | null>();
  return {
    /** The pipeline's first step in every transaction that writes `batch`: reads its forms. */
    async read(batch: NewSubmission[]): Promise<void> {
      if (batch.length === 0) return;
      const rows = await sql.all<{
        id: string;
        form_type: string;
        double_opt_in: number;
        max_submissions: number | null;
        webhook_id: string | null;
        url: string | null;
      }>(READ, [JSON.stringify([...new Set(batch.map((s) => s.form.id))])]);
      const byId = new Map<string, CommittedForm>();
      for (const r of rows) {
        let f = byId.get(r.id);
        if (!f)
          byId.set(
            r.id,
            (f = {
              rule: joinerRuleOf({ formType: r.form_type, doubleOptIn: r.double_opt_in === 1 }),
              capped: r.max_submissions !== null,
              webhooks: [],
            }),
          );
        if (r.webhook_id !== null) f.webhooks.push({ id: r.webhook_id, url: r.url! });
      }
      for (const s of batch) forms.set(s, byId.get(s.form.id) ?? null);
    },

    /** The form of `s` as `read` found it in this transaction; null when it no longer exists. */
    of(s: NewSubmission): CommittedForm | null {
      const f = forms.get(s);
      if (f === undefined) throw new Error(`the forms of submission ${s.id}'s batch were not read in its transaction`);
      return f;
    },
  };
}

export type CommittedForms = ReturnType<typeof createCommittedForms>;
