import { keysetQuery } from "../../db/keyset";
import { isUniqueViolation } from "../../db/errors";
import type { Sql, SqlValue } from "../../db/sql";
import type { Position } from "../../lib/cursor";
import { jsonRows } from "../../db/postgres/deltas";
import { createJoiners } from "../waitlist/joiners";
import type { CommittedForm, CommittedForms } from "./committed-forms";
import type { ListedSubmission, NewSubmission, StoredSubmission, SubmissionState, SubmissionStatus } from "./model";
import type { Tally } from "./pipeline";

interface Row {
  id: string;
  form_id: string;
  data: string;
  email: string | null;
  created_at: string;
  spam: string | null;
  state: SubmissionState;
}

/** A row as lists and reads show it: its assignee's email and its note count (its tags are read apart). */
interface ListedRow extends Row {
  assignee_email: string | null;
  note_count: number;
}

/** What a list keeps of a form's submissions: some states, a tag, an assignee's email (null: nobody's). */
export interface ListFilter {
  states?: SubmissionState[];
  tag?: string;
  assignee?: string | null;
}

type StatusRow = Row & { status: SubmissionStatus };

const toStored = (r: Row): StoredSubmission => ({
  id: r.id,
  formId: r.form_id,
  data: r.data,
  email: r.email,
  createdAt: r.created_at,
  spam: r.spam,
  state: r.state,
});
const withStatus = (r: StatusRow): StoredSubmission & { status: SubmissionStatus } => ({
  ...toStored(r),
  status: r.status,
});

const STORED = "id, form_id, data, email, created_at, spam, state";
const LISTED = `${STORED}, note_count, (SELECT o.email FROM owners o WHERE o.id = submissions.assignee) AS assignee_email`;
const WHERE_FORM = "FROM submissions WHERE form_id = ?1 AND status = ?2";
/** Newest first, as the keyset pages are (both engines compare text bytewise, as `<` does). */
const newestFirstOrder = (a: Row, b: Row) =>
  a.created_at !== b.created_at ? (a.created_at < b.created_at ? 1 : -1) : a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
// A batch's rows go in a statement per ROWS_PER_INSERT, not one each: on PostgreSQL each statement is a round trip.
const ROWS_PER_INSERT = 64;
const insertRowsStatement = (n: number) =>
  `INSERT INTO submissions (id, form_id, status, data, email, created_at, spam, one_response_email) VALUES ${Array(n).fill("(?, ?, ?, ?, ?, ?, ?, ?)").join(", ")}`;
/** The address a submission takes for its form's one response per email: only an inbox one's, and only while the setting is on. */
const oneResponseEmail = (s: NewSubmission) => (s.form.oneResponsePerEmail && s.status === "inbox" ? s.email : null);

/**
 * A submission that counts for its form's one response per email, from an address that already
 * answered (the unique index said so, whichever process committed the first): nothing is stored.
 */
export class EmailAlreadyAnswered extends Error {
  constructor() {
    super("this email address has already answered the form");
    this.name = "EmailAlreadyAnswered";
  }
}
/**
 * Another process committed a submission with the same Idempotency-Key meanwhile (two instances on
 * one database; one process shares the attempt instead): this one must not be stored, and its
 * caller gets the first one's answer.
 */
export class IdempotencyKeyTaken extends Error {
  constructor() {
    super("another submission with this Idempotency-Key was committed first");
    this.name = "IdempotencyKeyTaken";
  }
}

const SAVE_IDEMPOTENCY =
  "INSERT INTO idempotency_keys (form_id, key, response, created_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING";
const BUMP_COUNTERS =
  "UPDATE forms SET submission_count = submission_count + ?, users_joined_count = users_joined_count + ?, unread_count = unread_count + ? WHERE id = ?";
const APPEND_COUNTS = `INSERT INTO form_count_deltas (form_id, submissions, unread) SELECT form_id, submissions, unread FROM ${jsonRows("form_id text, submissions integer, unread integer")}`;
const BUMP_UNREAD = "UPDATE forms SET unread_count = unread_count + ? WHERE id = ?";

/**
 * Told, as the commit is made (`Sql.afterCommit`), what it added to a form's counters: the forms
 * cache applies it (forms/service.ts `counted`). Given on SQLite only, where nothing can read
 * between the commit and this call; PostgreSQL's cached forms are dropped after the commit.
 */
export type CountedInCache = (formId: string, submissions: number, joined: number, unread: number) => void;

/**
 * Adds `delta` to a form's `unread` (a state change of inbox submissions), in the caller's
 * transaction: on PostgreSQL as a delta row, which locks nothing (folded as the counters are); on
 * SQLite on the row, the cached form told as it commits.
 */
export const unreadCounter =
  (sql: Sql, counted?: CountedInCache) =>
  async (formId: string, delta: number): Promise<void> => {
    if (delta === 0) return;
    if (sql.traits.tallyDeltas)
      return void (await sql.run(APPEND_COUNTS, [
        JSON.stringify([{ form_id: formId, submissions: 0, unread: delta }]),
      ]));
    await sql.run(BUMP_UNREAD, [delta, formId]);
    if (counted) sql.afterCommit(() => counted(formId, 0, 0, delta));
  };

/**
 * The forms' counters as a tally of the inbox (see pipeline.ts): submissions, the new ones among
 * them (`unread`) and, for waitlists, joiners (the rule is waitlist/joiners.ts's, as `forms` read it in the batch's transaction).
 * `count` takes a batch's inbox submissions in; `uncount` takes submissions that leave the inbox
 * (moved or deleted) out again.
 */
export function formCounters(sql: Sql, forms: CommittedForms, counted?: CountedInCache): Tally {
  const joiners = createJoiners(sql);

  /**
   * Adds `sign` × each submission to its form's counters: every form's joiners first (one
   * statement for a form's new ones), then each form's counters once, in the batch's order
   * (pipeline.ts `lockOrder`). On PostgreSQL a form's submissions are appended as one delta row
   * (db/postgres/deltas.ts), locking nothing another batch waits for, except where its row must be
   * held until the commit: a waitlist (its joiners counted against the rows of this batch) and a
   * form with a `maxSubmissions` (capWriter's exact cap). SQLite's one writer updates the row.
   */
  async function bump(batch: NewSubmission[], sign: 1 | -1): Promise<void> {
    if (batch.length === 0) return;
    const byForm = new Map<
      string,
      { form: CommittedForm | null; emails: (string | null)[]; joined: number; unread: number }
    >();
    for (const s of batch) {
      const unread = (s.state ?? "new") === "new" ? 1 : 0;
      const f = byForm.get(s.form.id);
      if (f) {
        f.emails.push(s.email);
        f.unread += unread;
      } else byForm.set(s.form.id, { form: forms.of(s), emails: [s.email], joined: 0, unread });
    }
    for (const [formId, f] of byForm) {
      const rule = f.form?.rule ?? "none";
      if (sign > 0) f.joined = await joiners.joinAll(formId, rule, f.emails);
      else for (const email of f.emails) if (await joiners.leave(formId, rule, email)) f.joined -= 1;
    }
    const deltas: { form_id: string; submissions: number; unread: number }[] = [];
    for (const [formId, { form, emails, joined, unread }] of byForm) {
      if (sql.traits.tallyDeltas && form && form.rule === "none" && !form.capped)
        deltas.push({ form_id: formId, submissions: sign * emails.length, unread: sign * unread });
      else {
        await sql.run(BUMP_COUNTERS, [sign * emails.length, joined, sign * unread, formId]);
        if (counted) sql.afterCommit(() => counted(formId, sign * emails.length, joined, sign * unread));
      }
    }
    if (deltas.length > 0) await sql.run(APPEND_COUNTS, [JSON.stringify(deltas)]);
  }

  return {
    count: (batch: NewSubmission[]) =>
      bump(
        batch.filter((s) => s.status === "inbox"),
        1,
      ),
    uncount: (batch: NewSubmission[]) => bump(batch, -1),
  };
}

export function createSubmissionsRepo(sql: Sql) {
  const newestFirst = keysetQuery<ListedRow>(sql, `SELECT ${LISTED} ${WHERE_FORM}`, "newest");
  const oldestFirst = keysetQuery<ListedRow>(sql, `SELECT ${LISTED} ${WHERE_FORM}`, "oldest");

  /** A page of a form's submissions of one status, newest first, in one state (or any) and the filter's tag and assignee. */
  function filteredPage(
    formId: string,
    status: SubmissionStatus,
    state: SubmissionState | undefined,
    filter: ListFilter,
    after: Position | null,
    limit: number,
  ): Promise<ListedRow[]> {
    const params: SqlValue[] = [formId, status];
    const next = (v: SqlValue) => `?${params.push(v)}`;
    let where = WHERE_FORM;
    if (state !== undefined) where += ` AND state = ${next(state)}`;
    if (filter.tag !== undefined)
      where += ` AND EXISTS (SELECT 1 FROM submission_tags t WHERE t.submission_id = submissions.id AND t.tag = ${next(filter.tag)})`;
    if (filter.assignee === null) where += " AND assignee IS NULL";
    else if (filter.assignee !== undefined)
      where += ` AND assignee = (SELECT o.id FROM owners o WHERE o.email = ${next(filter.assignee)})`;
    return keysetQuery<ListedRow>(sql, `SELECT ${LISTED} ${where}`, "newest")(params, after, limit);
  }

  /** The rows as lists show them, each with its tags (one statement for them all), sorted. */
  async function listed<R extends ListedRow>(rows: R[]): Promise<(ListedSubmission & Omit<R, keyof ListedRow>)[]> {
    const tags = new Map<string, string[]>();
    if (rows.length > 0) {
      const found = await sql.all<{ submission_id: string; tag: string }>(
        "SELECT submission_id, tag FROM submission_tags WHERE submission_id IN (SELECT value FROM json_each(?)) ORDER BY submission_id, tag",
        [JSON.stringify(rows.map((r) => r.id))],
      );
      for (const t of found) tags.get(t.submission_id)?.push(t.tag) ?? tags.set(t.submission_id, [t.tag]);
    }
    return rows.map(({ id, form_id, data, email, created_at, spam, state, assignee_email, note_count, ...rest }) => ({
      ...rest,
      ...toStored({ id, form_id, data, email, created_at, spam, state }),
      assignee: assignee_email,
      tags: tags.get(id) ?? [],
      noteCount: note_count,
    }));
  }

  return {
    /** The submit pipeline's writer of rows: each submission with its status, and its idempotency key. Runs inside the batch's transaction. */
    async insertRows(batch: NewSubmission[]): Promise<void> {
      for (let i = 0; i < batch.length; i += ROWS_PER_INSERT) {
        const rows = batch.slice(i, i + ROWS_PER_INSERT);
        try {
          await sql.run(
            insertRowsStatement(rows.length),
            rows.flatMap((s) => [
              s.id,
              s.form.id,
              s.status,
              s.json,
              s.email,
              s.createdAt,
              s.spam ?? null,
              oneResponseEmail(s),
            ]),
          );
        } catch (e) {
          // In a batch of several, the pipeline tries each alone next, and only the second answer fails.
          if (isUniqueViolation(e) && rows.some(oneResponseEmail)) throw new EmailAlreadyAnswered();
          throw e;
        }
      }
      for (const s of batch) {
        if (
          s.idempotency &&
          (await sql.run(SAVE_IDEMPOTENCY, [s.form.id, s.idempotency.key, s.idempotency.response, s.createdAt])) === 0
        ) {
          throw new IdempotencyKeyTaken();
        }
      }
    },

    /**
     * One response per email turned on: the inbox's answers count too, the earliest from each address
     * (an address still counted from an earlier time the setting was on keeps that answer). Inside the
     * form's update: submits that read the form before it commits store no address, so none collides.
     */
    async countAnswers(formId: string): Promise<void> {
      await sql.run(
        `UPDATE submissions SET one_response_email = email WHERE id IN (
          SELECT MIN(id) FROM submissions
          WHERE form_id = ?1 AND status = 'inbox' AND email IS NOT NULL AND email NOT IN (
            SELECT one_response_email FROM submissions WHERE form_id = ?1 AND one_response_email IS NOT NULL
          )
          GROUP BY email
        )`,
        [formId],
      );
    },

    /** The deletion's writer of rows: each submission's row goes (what it left elsewhere goes with the pipeline's purges). */
    async deleteRows(batch: NewSubmission[]): Promise<void> {
      for (const s of batch) await sql.run("DELETE FROM submissions WHERE id = ?", [s.id]);
    },

    /** Sets each submission's status to the one it carries (a move into or out of spam). */
    async setStatuses(batch: NewSubmission[]): Promise<void> {
      for (const s of batch) await sql.run("UPDATE submissions SET status = ? WHERE id = ?", [s.status, s.id]);
    },

    async findIdempotentResponse(formId: string, key: string): Promise<string | null> {
      return (
        (
          await sql.get<{ response: string }>("SELECT response FROM idempotency_keys WHERE form_id = ? AND key = ?", [
            formId,
            key,
          ])
        )?.response ?? null
      );
    },

    deleteIdempotencyKeysBefore: (createdAt: string): Promise<number> =>
      sql.run("DELETE FROM idempotency_keys WHERE created_at < ?", [createdAt]),

    /** One submission, whatever its status, or null. */
    async findSubmission(id: string): Promise<(ListedSubmission & { status: SubmissionStatus }) | null> {
      const row = await sql.get<ListedRow & { status: SubmissionStatus }>(
        `SELECT ${LISTED}, status FROM submissions WHERE id = ?`,
        [id],
      );
      return row ? (await listed([row]))[0]! : null;
    },

    /**
     * Every submission, of any status, whose extracted email is `email` or was before its submitter
     * changed it (a revision's), in these forms (all when null), oldest first. Reads the whole table:
     * the email has no index (it would cost every submit), and this serves the rare request of one person.
     */
    async findSubmissionsByEmail(
      email: string,
      formIds: string[] | null,
    ): Promise<(StoredSubmission & { status: SubmissionStatus })[]> {
      const rows = await sql.all<StatusRow>(
        `SELECT ${STORED}, status FROM submissions
         WHERE (email = ?1 OR id IN (SELECT submission_id FROM submission_revisions WHERE email = ?1))
           AND (CAST(?2 AS TEXT) IS NULL OR form_id IN (SELECT value FROM json_each(?2))) ORDER BY created_at, id`,
        [email, formIds && JSON.stringify(formIds)],
      );
      return rows.map(withStatus);
    },

    /** These submissions of one form, as they are now (inside a deletion's transaction: what it really deletes). */
    async findFormSubmissions(
      formId: string,
      ids: string[],
    ): Promise<(StoredSubmission & { status: SubmissionStatus })[]> {
      // Found by id alone (submissions_by_id), and another form's left out here: with `form_id = ?` in
      // the statement, SQLite may read the form's whole range of submissions_by_form instead. Locked
      // (PostgreSQL) in id order, as a triage change locks them: a state changed meanwhile is
      // counted out of `unread` as it is at the commit, once.
      const rows = await sql.all<StatusRow>(
        `SELECT ${STORED}, status FROM submissions WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id${sql.traits.lockForUpdate}`,
        [JSON.stringify(ids)],
      );
      return rows.filter((r) => r.form_id === formId).map(withStatus);
    },

    /** The waitlist forms (of these, or all) that count `email` as a joiner. */
    async listFormsJoinedBy(email: string, formIds: string[] | null): Promise<string[]> {
      const rows = await sql.all<{ form_id: string }>(
        "SELECT form_id FROM waitlist_joiners WHERE email = ?1 AND (CAST(?2 AS TEXT) IS NULL OR form_id IN (SELECT value FROM json_each(?2))) ORDER BY form_id",
        [email, formIds && JSON.stringify(formIds)],
      );
      return rows.map((r) => r.form_id);
    },

    /** Up to `limit` ids of a form's submissions, of any status (a form being deleted, a chunk at a time). */
    async listFormSubmissionIds(formId: string, limit: number): Promise<string[]> {
      return (
        await sql.all<{ id: string }>("SELECT id FROM submissions WHERE form_id = ? LIMIT ?", [formId, limit])
      ).map((r) => r.id);
    },

    /** Up to `limit` of a form's submissions of one status created before `before`, oldest first. */
    async listSubmissionsCreatedBefore(
      formId: string,
      status: SubmissionStatus,
      before: string,
      limit: number,
    ): Promise<(StoredSubmission & { status: SubmissionStatus })[]> {
      const rows = await sql.all<StatusRow>(
        `SELECT ${STORED}, status FROM submissions WHERE form_id = ? AND status = ? AND created_at < ? ORDER BY created_at, id LIMIT ?`,
        [formId, status, before, limit],
      );
      return rows.map(withStatus);
    },

    /** One page of a form's submissions of one status (and `filter`), newest first, strictly after `after`. */
    async listSubmissionsByForm(
      formId: string,
      status: SubmissionStatus,
      after: Position | null,
      limit: number,
      filter: ListFilter = {},
    ): Promise<ListedSubmission[]> {
      if (!filter.states && filter.tag === undefined && filter.assignee === undefined)
        return listed(await newestFirst([formId, status], after, limit));
      // Each state is a range of its own (submissions_by_state), read newest first, and a page of
      // several is the newest of theirs: a rare state in a large form is found without reading the rest.
      const pages = await Promise.all(
        (filter.states ?? [undefined]).map((state) => filteredPage(formId, status, state, filter, after, limit)),
      );
      const rows = pages.length === 1 ? pages[0]! : pages.flat().sort(newestFirstOrder).slice(0, limit);
      return listed(rows);
    },

    /** One page of a form's submissions of one status as lists show them, oldest first, strictly after `after`; for exports. */
    async listSubmissionsOldestFirst(
      formId: string,
      status: SubmissionStatus,
      after: Position | null,
      limit: number,
    ): Promise<ListedSubmission[]> {
      return listed(await oldestFirst([formId, status], after, limit));
    },
  };
}

export type SubmissionsRepo = ReturnType<typeof createSubmissionsRepo>;
