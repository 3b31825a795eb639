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
const UPSERT_DAY = `INSERT INTO form_daily_counts (form_id, dimension, day, value, count) VALUES (?, ?, ?, ?, ?)
  ON CONFLICT (form_id, dimension, day, value) DO UPDATE SET count = form_daily_counts.count + excluded.count`;
const UPSERT_MONTH = `INSERT INTO form_monthly_counts (form_id, dimension, month, value, count) VALUES (?, ?, ?, ?, ?)
  ON CONFLICT (form_id, dimension, month, value) DO UPDATE SET count = form_monthly_counts.count + excluded.count`;
const DROP_EMPTY_DAY =
  "DELETE FROM form_daily_counts WHERE form_id = ? AND dimension = ? AND day = ? AND value = ? AND count <= 0";
const DROP_EMPTY_MONTH =
  "DELETE FROM form_monthly_counts WHERE form_id = ? AND dimension = ? AND month = ? AND value = ? AND count <= 0";
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

export function createAnalyticsRepo(sql: Sql) {
  /** Adds `sign` × each submission to its day's and month's rollups; a value that drops to 0 is removed (top lists never show it). */
  async function adjust(batch: NewSubmission[], sign: 1 | -1): Promise<void> {
    const groups = new Map<string, { formId: string; day: string; counts: Map<string, number>[] }>();
    for (const s of batch) {
      const day = s.createdAt.slice(0, 10);
      const key = s.form.id + day;
      let group = groups.get(key);
      if (!group) groups.set(key, (group = { formId: s.form.id, day, counts: ROLLUPS.map(() => new Map()) }));
      ROLLUPS.forEach((dimension, i) => {
        const value = valueIn[dimension](s.meta);
        group.counts[i]!.set(value, (group.counts[i]!.get(value) ?? 0) + sign);
      });
    }
    for (const { formId, day, counts } of groups.values()) {
      const month = day.slice(0, 7);
      for (const [i, dimension] of ROLLUPS.entries()) {
        for (const [value, n] of counts[i]!) {
          await sql.run(UPSERT_DAY, [formId, dimension, day, value, n]);
          await sql.run(UPSERT_MONTH, [formId, dimension, month, value, n]);
          if (sign < 0) {
            await sql.run(DROP_EMPTY_DAY, [formId, dimension, day, value]);
            await sql.run(DROP_EMPTY_MONTH, [formId, dimension, month, value]);
          }
        }
      }
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
      sql.all<{ day: string; count: number }>(SERIES, [formId, from, to]),
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
      sql.all<{ value: string; count: number }>(TOP, [
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
