import type { Database } from "bun:sqlite";
import { keysetQuery } from "../../db/keyset";
import type { Position } from "../../lib/cursor";
import type { NewSubmission, StoredSubmission, SubmissionStatus } from "./model";

interface Row {
  id: string;
  form_id: string;
  data: string;
  email: string | null;
  created_at: string;
}

const toStored = (r: Row): StoredSubmission => ({ id: r.id, formId: r.form_id, data: r.data, email: r.email, createdAt: r.created_at });

const SELECT = "SELECT id, form_id, data, email, created_at FROM submissions WHERE form_id = ? AND status = ?";

export function createSubmissionsRepo(db: Database) {
  const insert = db.prepare("INSERT INTO submissions (id, form_id, status, data, email, created_at) VALUES (?, ?, ?, ?, ?, ?)");
  const formType = db.prepare<{ form_type: string; double_opt_in: number }, [string]>("SELECT form_type, double_opt_in FROM forms WHERE id = ?");
  const confirmed = db.prepare<{ one: number }, [string, string]>("SELECT 1 AS one FROM waitlist_confirmations WHERE form_id = ? AND email = ? AND confirmed_at IS NOT NULL");
  /** How a form counts joiners, as committed: not at all, every distinct joiner, or (double opt-in) confirmed ones only. */
  const joinerRule = (formId: string): "none" | "all" | "confirmed" => {
    const f = formType.get(formId);
    return f?.form_type !== "waitlist" ? "none" : f.double_opt_in === 1 ? "confirmed" : "all";
  };
  const addJoiner = db.prepare("INSERT OR IGNORE INTO waitlist_joiners (form_id, email) VALUES (?, ?)");
  const forgetThrottle = db.prepare("DELETE FROM autoresponse_throttle WHERE form_id = ? AND email = ?");
  const forgetConfirmation = db.prepare("DELETE FROM waitlist_confirmations WHERE form_id = ? AND email = ?");
  const joinAgain = db.prepare("UPDATE waitlist_joiners SET submissions = submissions + 1 WHERE form_id = ? AND email = ?");
  const leaveOnce = db.prepare("UPDATE waitlist_joiners SET submissions = submissions - 1 WHERE form_id = ? AND email = ? AND submissions > 1");
  const bumpCounters = db.prepare("UPDATE forms SET submission_count = submission_count + ?, users_joined_count = users_joined_count + ? WHERE id = ?");
  const setStatus = db.prepare("UPDATE submissions SET status = ? WHERE id = ?");
  const removeJoiner = db.prepare("DELETE FROM waitlist_joiners WHERE form_id = ? AND email = ?");
  const saveIdempotency = db.prepare("INSERT OR IGNORE INTO idempotency_keys (form_id, key, response, created_at) VALUES (?, ?, ?, ?)");
  const findById = db.prepare<Row & { status: SubmissionStatus }, [string]>("SELECT id, form_id, data, email, created_at, status FROM submissions WHERE id = ?");
  const deleteById = db.prepare("DELETE FROM submissions WHERE id = ?");
  const olderThan = db.prepare<Row & { status: SubmissionStatus }, [string, SubmissionStatus, string, number]>(
    "SELECT id, form_id, data, email, created_at, status FROM submissions WHERE form_id = ? AND status = ? AND created_at < ? ORDER BY created_at, id LIMIT ?",
  );
  const newestFirst = keysetQuery<Row, [string, SubmissionStatus]>(db, SELECT, "newest");
  const oldestFirst = keysetQuery<Row, [string, SubmissionStatus]>(db, SELECT, "oldest");

  return {
    /** The submit pipeline's writer of rows: each submission with its status, and its idempotency key. Runs inside the batch's transaction. */
    insertRows(batch: NewSubmission[]): void {
      for (const s of batch) {
        insert.run(s.id, s.form.id, s.status, s.json, s.email, s.createdAt);
        if (s.idempotency) saveIdempotency.run(s.form.id, s.idempotency.key, s.idempotency.response, s.createdAt);
      }
    },

    /** The deletion's writer of rows: each submission's row goes (what it left elsewhere goes with the pipeline's purges). */
    deleteRows(batch: NewSubmission[]): void {
      for (const s of batch) deleteById.run(s.id);
    },

    /** Sets each submission's status to the one it carries (a move into or out of spam). */
    setStatuses(batch: NewSubmission[]): void {
      for (const s of batch) setStatus.run(s.status, s.id);
    },

    /**
     * The forms' counters as a tally of the inbox (see pipeline.ts): submissions and, for
     * waitlists, distinct joiners, each with how many inbox submissions carry their email.
     * `count` takes a batch's inbox submissions in; `uncount` takes submissions that leave the
     * inbox (moved or deleted) out again: a joiner leaves with the last inbox submission of their email. With double opt-in a joiner
     * counts only while their address is confirmed (confirmations/repo.ts counts them in when
     * they confirm), and a submission without an email never does.
     */
    counters: {
      count(batch: NewSubmission[]): void {
        const counts = new Map<string, { rule: "none" | "all" | "confirmed"; submissions: number; joiners: number }>();
        for (const s of batch) {
          if (s.status !== "inbox") continue;
          let c = counts.get(s.form.id);
          // The settings as committed, not as cached: a form made a waitlist by another process counts from its next batch.
          if (!c) counts.set(s.form.id, (c = { rule: joinerRule(s.form.id), submissions: 0, joiners: 0 }));
          c.submissions += 1;
          if (c.rule === "none") continue;
          // A new joiner: no email (each counts once), or an email this waitlist has not had before.
          const added = s.email !== null && addJoiner.run(s.form.id, s.email).changes === 1;
          if (s.email !== null && !added) joinAgain.run(s.form.id, s.email);
          if (c.rule === "all" ? s.email === null || added : added && confirmed.get(s.form.id, s.email!)) c.joiners += 1;
        }
        for (const [formId, c] of counts) bumpCounters.run(c.submissions, c.joiners, formId);
      },
      uncount(batch: NewSubmission[]): void {
        for (const s of batch) {
          const rule = joinerRule(s.form.id);
          let joiners = 0;
          if (rule === "all" && s.email === null) joiners = 1;
          else if (rule !== "none" && s.email !== null && leaveOnce.run(s.form.id, s.email).changes === 0 && removeJoiner.run(s.form.id, s.email).changes === 1) {
            joiners = rule === "all" || confirmed.get(s.form.id, s.email) ? 1 : 0;
          }
          bumpCounters.run(-1, -joiners, s.form.id);
        }
      },
    },

    findIdempotentResponse(formId: string, key: string): string | null {
      return db.query<{ response: string }, [string, string]>("SELECT response FROM idempotency_keys WHERE form_id = ? AND key = ?").get(formId, key)?.response ?? null;
    },

    deleteIdempotencyKeysBefore(createdAt: string): number {
      return db.query("DELETE FROM idempotency_keys WHERE created_at < ?").run(createdAt).changes;
    },

    /** One submission, whatever its status, or null. */
    findSubmission(id: string): (StoredSubmission & { status: SubmissionStatus }) | null {
      const row = findById.get(id);
      return row ? { ...toStored(row), status: row.status } : null;
    },

    /**
     * Every submission, of any status, whose extracted email is `email`, in these forms (all when
     * null), oldest first. Reads the whole table: the email has no index (it would cost every
     * submit), and this serves the rare request of one person.
     */
    /** Forgets what a form keeps about an address beside its submissions: its autoresponse throttle and its waitlist confirmation (an erasure). */
    forgetAddress(formId: string, email: string): void {
      forgetThrottle.run(formId, email);
      forgetConfirmation.run(formId, email);
    },

    findSubmissionsByEmail(email: string, formIds: string[] | null): (StoredSubmission & { status: SubmissionStatus })[] {
      return db
        .query<Row & { status: SubmissionStatus }, [string, string | null]>(
          `SELECT id, form_id, data, email, created_at, status FROM submissions
           WHERE email = ?1 AND (?2 IS NULL OR form_id IN (SELECT value FROM json_each(?2))) ORDER BY created_at, id`,
        )
        .all(email, formIds && JSON.stringify(formIds))
        .map((r) => ({ ...toStored(r), status: r.status }));
    },

    /** These submissions of one form, as they are now (inside a deletion's transaction: what it really deletes). */
    findFormSubmissions(formId: string, ids: string[]): (StoredSubmission & { status: SubmissionStatus })[] {
      return db
        .query<Row & { status: SubmissionStatus }, [string, string]>(
          // `+form_id`: found by id (submissions_by_id), not by reading the form's whole range of submissions_by_form.
          "SELECT id, form_id, data, email, created_at, status FROM submissions WHERE id IN (SELECT value FROM json_each(?2)) AND +form_id = ?1",
        )
        .all(formId, JSON.stringify(ids))
        .map((r) => ({ ...toStored(r), status: r.status }));
    },

    /** The waitlist forms (of these, or all) that count `email` as a joiner. */
    listFormsJoinedBy(email: string, formIds: string[] | null): string[] {
      return db
        .query<{ form_id: string }, [string, string | null]>(
          "SELECT form_id FROM waitlist_joiners WHERE email = ?1 AND (?2 IS NULL OR form_id IN (SELECT value FROM json_each(?2))) ORDER BY form_id",
        )
        .all(email, formIds && JSON.stringify(formIds))
        .map((r) => r.form_id);
    },

    /** Up to `limit` ids of a form's submissions, of any status (a form being deleted, a chunk at a time). */
    listFormSubmissionIds(formId: string, limit: number): string[] {
      return db.query<{ id: string }, [string, number]>("SELECT id FROM submissions WHERE form_id = ? LIMIT ?").all(formId, limit).map((r) => r.id);
    },

    /** Up to `limit` of a form's submissions of one status created before `before`, oldest first. */
    listSubmissionsCreatedBefore(formId: string, status: SubmissionStatus, before: string, limit: number): (StoredSubmission & { status: SubmissionStatus })[] {
      return olderThan.all(formId, status, before, limit).map((r) => ({ ...toStored(r), status: r.status }));
    },

    /** One page of a form's submissions of one status, newest first, strictly after `after`. */
    listSubmissionsByForm(formId: string, status: SubmissionStatus, after: Position | null, limit: number): StoredSubmission[] {
      return newestFirst([formId, status], after, limit).map(toStored);
    },

    /** One page of a form's submissions of one status, oldest first, strictly after `after`; for exports. */
    listSubmissionsOldestFirst(formId: string, status: SubmissionStatus, after: Position | null, limit: number): StoredSubmission[] {
      return oldestFirst([formId, status], after, limit).map(toStored);
    },
  };
}

export type SubmissionsRepo = ReturnType<typeof createSubmissionsRepo>;
