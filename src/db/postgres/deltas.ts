import type { Sql } from "../sql";

/*
 * Counters and rollups on PostgreSQL as appended deltas (schema.ts `COUNTER_DELTAS`): a batch
 * INSERTs its counts, which lock no row another batch needs; every read adds the deltas not yet
 * folded to the stored value in the same statement (one snapshot: a fold is either wholly before
 * it or wholly after it), and `foldDeltas` moves them into the rows in the background.
 */

/** A JSON array of objects as rows with these typed columns; one statement for a whole batch. */
export const jsonRows = (columns: string) => `json_to_recordset(CAST(CAST(? AS TEXT) AS json)) AS rows(${columns})`;

/** The form's (aliased `alias`) submissions not folded yet into its `submission_count`: an integer expression. */
export const pendingSubmissions = (alias: string) =>
  `(SELECT CAST(coalesce(sum(d.submissions), 0) AS INTEGER) FROM form_count_deltas d WHERE d.form_id = ${alias}.id)`;

/** A form's (aliased `alias`) submissions counted: on PostgreSQL, those not folded yet included. */
export const submissionCountOf = (sql: Sql, alias: string) =>
  sql.engine === "postgres" ? `${alias}.submission_count + ${pendingSubmissions(alias)}` : `${alias}.submission_count`;

/** The form's (aliased `alias`) unread submissions not folded yet into its `unread_count`. */
const pendingUnread = (alias: string) =>
  `(SELECT CAST(coalesce(sum(d.unread), 0) AS INTEGER) FROM form_count_deltas d WHERE d.form_id = ${alias}.id)`;

/** On PostgreSQL, `pending_submissions` and `pending_unread` columns for a `SELECT` of forms (aliased `alias`); nothing on SQLite. */
export const pendingSubmissionsColumn = (sql: Sql, alias: string) =>
  sql.engine === "postgres"
    ? `, ${pendingSubmissions(alias)} AS pending_submissions, ${pendingUnread(alias)} AS pending_unread`
    : "";

// A fold takes at most this many forms' deltas at once, so its transaction stays short.
export const FORMS_PER_FOLD = 500;

const FOLD_COUNTS = `WITH moved AS (DELETE FROM form_count_deltas WHERE form_id IN (SELECT value FROM json_each(?1)) RETURNING form_id, submissions, unread),
  sums AS (SELECT form_id, sum(submissions) AS n, sum(unread) AS u FROM moved GROUP BY form_id)
  UPDATE forms SET submission_count = forms.submission_count + sums.n, unread_count = forms.unread_count + sums.u FROM sums WHERE forms.id = sums.form_id`;

// Each day's deltas go into its day's and its month's rollups; each rollup row written is reported
// with its count (what comes to 0 or less is removed).
const FOLD_ROLLUPS = `WITH moved AS (DELETE FROM form_rollup_deltas RETURNING form_id, dimension, day, value, count),
  days AS (SELECT form_id, dimension, day, value, sum(count) AS n FROM moved GROUP BY form_id, dimension, day, value),
  months AS (SELECT form_id, dimension, substr(day, 1, 7) AS month, value, sum(n) AS n FROM days GROUP BY form_id, dimension, substr(day, 1, 7), value),
  d AS (INSERT INTO form_daily_counts (form_id, dimension, day, value, count)
    SELECT form_id, dimension, day, value, n FROM days WHERE n <> 0 ORDER BY form_id, dimension, day, value
    ON CONFLICT (form_id, dimension, day, value) DO UPDATE SET count = form_daily_counts.count + excluded.count
    RETURNING form_id, dimension, day AS period, value, count),
  m AS (INSERT INTO form_monthly_counts (form_id, dimension, month, value, count)
    SELECT form_id, dimension, month, value, n FROM months WHERE n <> 0 ORDER BY form_id, dimension, month, value
    ON CONFLICT (form_id, dimension, month, value) DO UPDATE SET count = form_monthly_counts.count + excluded.count
    RETURNING form_id, dimension, month AS period, value, count)
  SELECT 'day' AS rollup, form_id, dimension, period, value, count FROM d
  UNION ALL SELECT 'month', form_id, dimension, period, value, count FROM m`;
const DROP_EMPTY = {
  day: "DELETE FROM form_daily_counts WHERE form_id = ? AND dimension = ? AND day = ? AND value = ? AND count <= 0",
  month:
    "DELETE FROM form_monthly_counts WHERE form_id = ? AND dimension = ? AND month = ? AND value = ? AND count <= 0",
};

/**
 * Moves the deltas into the counter and rollup rows, in one transaction whose reads and writes a
 * reader sees all or none of; resolves with how many forms' counters it folded. Run by one
 * process of a cluster at a time (the `fold-counter-deltas` job). The forms' rows are locked in id
 * order first, as every batch that locks several does (a waitlist's, a capped form's), so a fold
 * cannot deadlock with them; the rollup rows only a fold writes.
 */
export async function foldDeltas(sql: Sql): Promise<number> {
  const folded = await sql.transaction(async () => {
    const ids = (
      await sql.all<{ form_id: string }>("SELECT DISTINCT form_id FROM form_count_deltas ORDER BY form_id LIMIT ?", [
        FORMS_PER_FOLD,
      ])
    ).map((r) => r.form_id);
    if (ids.length > 0) {
      const list = JSON.stringify(ids);
      await sql.all("SELECT id FROM forms WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id FOR NO KEY UPDATE", [
        list,
      ]);
      await sql.run(FOLD_COUNTS, [list]);
    }
    const written = await sql.all<{
      rollup: "day" | "month";
      form_id: string;
      dimension: string;
      period: string;
      value: string;
      count: number;
    }>(FOLD_ROLLUPS);
    for (const e of written)
      if (e.count <= 0) await sql.run(DROP_EMPTY[e.rollup], [e.form_id, e.dimension, e.period, e.value]);
    return { forms: ids.length, moved: ids.length > 0 || written.length > 0 };
  });
  // A fold deletes every delta it moved; until a vacuum, each count read (an index scan by form)
  // still visits those dead rows, and autovacuum wakes only once a minute: measured on 16 cores, a
  // form's read cost 0.26 ms, and PostgreSQL's CPU per submit grew by half over 2 minutes. A vacuum
  // of these small tables costs a few ms. Not TRUNCATE: giving the emptied pages back would take
  // the tables' strongest lock, which every batch's insert waits for, once a second; new rows reuse
  // them. Best effort (the fold has committed): without the right to vacuum, PostgreSQL only warns,
  // and autovacuum still comes.
  if (folded.moved)
    await sql.run("VACUUM (SKIP_LOCKED, TRUNCATE false) form_count_deltas, form_rollup_deltas").catch(() => {});
  return folded.forms;
}
