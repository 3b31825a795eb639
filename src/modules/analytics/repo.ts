import { jsonRows } from "../../db/postgres/deltas";
import type { Sql } from "../../db/sql";
import type { SubmissionMeta } from "../submissions/meta";
import type { NewSubmission } from "../submissions/model";

/** The dimensions a caller may group by, each a fixed value of the `dimension` column: never SQL built from input. */
export const DIMENSIONS = ["country", "browser", "device"] as const;
export type Dimension = (typeof DIMENSIONS)[number];

const TOP_N = 10;
// What each submission is counted under: the total (value ""), and its value in each dimension.
const ROLLUPS = ["total", ...DIMENSIONS] as const;
const valueIn: Record<(typeof ROLLUPS)[number], (meta: SubmissionMeta) => string> = {
  total: () => "",
  country: (meta) => meta.country || "ZZ",
  browser: (meta) => meta.browser || "unknown",
  device: (meta) => meta.device || "unknown",
};

// The existing row's count is named by its table: PostgreSQL reads a bare `count` there as ambiguous with `excluded`.
// Each text is built once: a batch asks for one per table, of its own number of rows.
const upserts = new Map<string, string>();
const upsert = (table: "form_daily_counts" | "form_monthly_counts", period: "day" | "month", rows: number) => {
  const key = `${table} ${rows}`;
  let text = upserts.get(key);
  if (text === undefined) upserts.set(key, (text = upsertText(table, period, rows)));
  return text;
};
const upsertText = (table: "form_daily_counts" | "form_monthly_counts", period: "day" | "month", rows: number) =>
  `INSERT INTO ${table} (form_id, dimension, ${period}, value, count) VALUES ${Array(rows).fill("(?, ?, ?, ?, ?)").join(", ")}
  ON CONFLICT (form_id, dimension, ${period}, value) DO UPDATE SET count = ${table}.count + excluded.count`;
const DROP_EMPTY_DAY =
  "DELETE FROM form_daily_counts WHERE form_id = ? AND dimension = ? AND day = ? AND value = ? AND count <= 0";
const DROP_EMPTY_MONTH =
  "DELETE FROM form_monthly_counts WHERE form_id = ? AND dimension = ? AND month = ? AND value = ? AND count <= 0";
// Rows per upsert statement: 5 parameters each, within both engines' limits.
const ROWS_PER_UPSERT = 500;
const SERIES =
  "SELECT day, count FROM form_daily_counts WHERE form_id = ? AND dimension = 'total' AND day BETWEEN ? AND ? ORDER BY day";
// Days at both edges of the range from the daily table, whole months between them from the monthly one.
const TOP = `SELECT value, CAST(sum(count) AS INTEGER) AS count FROM (
    SELECT value, count FROM form_daily_counts WHERE form_id = ?1 AND dimension = ?2 AND day BETWEEN ?3 AND ?4
    UNION ALL
    SELECT value, count FROM form_daily_counts WHERE form_id = ?1 AND dimension = ?2 AND day BETWEEN ?5 AND ?6
    UNION ALL
    SELECT value, count FROM form_monthly_counts WHERE form_id = ?1 AND dimension = ?2 AND month BETWEEN ?7 AND ?8) AS parts
  GROUP BY value ORDER BY count DESC, value ASC LIMIT ?9`;

// PostgreSQL: the same reads with the rollup deltas not folded yet added (db/postgres/deltas.ts), in one
// statement; a value whose sum is 0 is left out, as the fold would remove its row.
const PG_SERIES = `SELECT day, CAST(sum(count) AS INTEGER) AS count FROM (
    SELECT day, count FROM form_daily_counts WHERE form_id = ?1 AND dimension = 'total' AND day BETWEEN ?2 AND ?3
    UNION ALL
    SELECT day, count FROM form_rollup_deltas WHERE form_id = ?1 AND dimension = 'total' AND day BETWEEN ?2 AND ?3) AS parts
  GROUP BY day HAVING sum(count) > 0 ORDER BY day`;
const PG_TOP = `SELECT value, CAST(sum(count) AS INTEGER) AS count FROM (
    SELECT value, count FROM form_daily_counts WHERE form_id = ?1 AND dimension = ?2 AND day BETWEEN ?3 AND ?4
    UNION ALL
    SELECT value, count FROM form_daily_counts WHERE form_id = ?1 AND dimension = ?2 AND day BETWEEN ?5 AND ?6
    UNION ALL
    SELECT value, count FROM form_monthly_counts WHERE form_id = ?1 AND dimension = ?2 AND month BETWEEN ?7 AND ?8
    UNION ALL
    SELECT value, count FROM form_rollup_deltas WHERE form_id = ?1 AND dimension = ?2
      AND (day BETWEEN ?3 AND ?4 OR day BETWEEN ?5 AND ?6 OR substr(day, 1, 7) BETWEEN ?7 AND ?8)) AS parts
  GROUP BY value HAVING sum(count) > 0 ORDER BY count DESC, value ASC LIMIT ?9`;
const APPEND_ROLLUPS = `INSERT INTO form_rollup_deltas (form_id, dimension, day, value, count)
  SELECT form_id, dimension, day, value, count FROM ${jsonRows("form_id text, dimension text, day text, value text, count integer")}`;

/** A rollup row: form, dimension, day or month, value, count. */
type RollupRow = [string, string, string, string, number];

/** The order every writer locks rollup rows in (pipeline.ts `lockOrder`): by form, dimension, period, value. */
const byKey = (a: RollupRow, b: RollupRow): number => {
  for (let i = 0; i < 4; i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  return 0;
};

export function createAnalyticsRepo(sql: Sql) {
  const deltas = sql.traits.tallyDeltas;
  /**
   * Adds `sign` × each submission to its day's and month's rollups; a value that drops to 0 is removed
   * (top lists never show it). SQLite: one multi-row upsert per table, its rows sorted by key.
   * PostgreSQL: one insert of the batch's deltas, which locks no row another batch needs; the fold
   * (db/postgres/deltas.ts) adds them to the rows and removes what drops to 0.
   */
  async function adjust(batch: NewSubmission[], sign: 1 | -1): Promise<void> {
    // Form, then day, then each dimension's values (ROLLUPS' order) with their counts: a batch's
    // submissions are tallied without building a key for each of their eight rows.
    const byForm = new Map<string, Map<string, Map<string, number>[]>>();
    for (const s of batch) {
      let byDay = byForm.get(s.form.id);
      if (!byDay) byForm.set(s.form.id, (byDay = new Map()));
      const day = s.createdAt.slice(0, 10);
      let counts = byDay.get(day);
      if (!counts) byDay.set(day, (counts = ROLLUPS.map(() => new Map<string, number>())));
      for (let d = 0; d < ROLLUPS.length; d++) {
        const value = valueIn[ROLLUPS[d]!](s.meta);
        counts[d]!.set(value, (counts[d]!.get(value) ?? 0) + sign);
      }
    }
    const days: RollupRow[] = [];
    for (const [formId, byDay] of byForm)
      for (const [day, counts] of byDay)
        for (let d = 0; d < ROLLUPS.length; d++)
          for (const [value, count] of counts[d]!) days.push([formId, ROLLUPS[d]!, day, value, count]);
    if (deltas) {
      // Months are the fold's: each day's delta goes into its month too.
      const rows = days.map(([form_id, dimension, day, value, count]) => ({
        form_id,
        dimension,
        day,
        value,
        count,
      }));
      if (rows.length > 0) await sql.run(APPEND_ROLLUPS, [JSON.stringify(rows)]);
      return;
    }
    // A month's row adds up its days' (a batch spans one day, rarely two).
    const months = new Map<string, RollupRow>();
    for (const [formId, dimension, day, value, count] of days) {
      const month = day.slice(0, 7);
      const key = `${formId}\0${dimension}\0${month}\0${value}`;
      const row = months.get(key);
      if (row) row[4] += count;
      else months.set(key, [formId, dimension, month, value, count]);
    }
    const tables: [RollupRow[], "form_daily_counts" | "form_monthly_counts", "day" | "month", string][] = [
      [days, "form_daily_counts", "day", DROP_EMPTY_DAY],
      [[...months.values()], "form_monthly_counts", "month", DROP_EMPTY_MONTH],
    ];
    for (const [rows, table, period, dropEmpty] of tables) {
      const sorted = rows.sort(byKey);
      for (let i = 0; i < sorted.length; i += ROWS_PER_UPSERT) {
        const chunk = sorted.slice(i, i + ROWS_PER_UPSERT);
        await sql.run(upsert(table, period, chunk.length), chunk.flat());
      }
      if (sign < 0) for (const row of sorted) await sql.run(dropEmpty, row.slice(0, 4));
    }
  }

  return {
    /**
     * The rollups as a tally of the inbox (see pipeline.ts): `count` adds a batch's inbox
     * submissions, `uncount` takes submissions that leave the inbox away again. Aggregated in memory
     * first, so a batch costs one upsert per (form, day or month, dimension, value) rather than
     * eight per submission; runs inside the batch's transaction, so rollups never disagree with
     * the submissions.
     */
    rollups: {
      count: (batch: NewSubmission[]) =>
        adjust(
          batch.filter((s) => s.status === "inbox"),
          1,
        ),
      uncount: (batch: NewSubmission[]) => adjust(batch, -1),
    },
    /** Submissions per day in [from, to], days without any left out. */
    countsPerDay: (formId: string, from: string, to: string) =>
      sql.all<{ day: string; count: number }>(deltas ? PG_SERIES : SERIES, [formId, from, to]),
    /**
     * The ten most frequent values of a dimension, count descending then value ascending, over
     * the days `headDays` and `tailDays` and the whole months `months` (each [first, last]; an
     * empty part has first > last).
     */
    topValues: (
      formId: string,
      dimension: Dimension,
      parts: { headDays: [string, string]; tailDays: [string, string]; months: [string, string] },
    ) =>
      sql.all<{ value: string; count: number }>(deltas ? PG_TOP : TOP, [
        formId,
        dimension,
        ...parts.headDays,
        ...parts.tailDays,
        ...parts.months,
        TOP_N,
      ]),
  };
}

export type AnalyticsRepo = ReturnType<typeof createAnalyticsRepo>;
