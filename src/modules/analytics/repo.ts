import type { Database } from "bun:sqlite";
import type { NewSubmission } from "../submissions/model";

/** The dimensions a caller may group by, each a fixed value of the `dimension` column: never SQL built from input. */
export const DIMENSIONS = ["country", "browser", "device"] as const;
export type Dimension = (typeof DIMENSIONS)[number];

const TOP = 10;

export function createAnalyticsRepo(db: Database) {
  const upsertDay = db.prepare(
    `INSERT INTO form_daily_counts (form_id, dimension, day, value, count) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (form_id, dimension, day, value) DO UPDATE SET count = count + excluded.count`,
  );
  const upsertMonth = db.prepare(
    `INSERT INTO form_monthly_counts (form_id, dimension, month, value, count) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (form_id, dimension, month, value) DO UPDATE SET count = count + excluded.count`,
  );
  const series = db.prepare<{ day: string; count: number }, [string, string, string]>(
    "SELECT day, count FROM form_daily_counts WHERE form_id = ? AND dimension = 'total' AND day BETWEEN ? AND ? ORDER BY day",
  );
  // Days at both edges of the range from the daily table, whole months between them from the monthly one.
  const top = db.prepare<{ value: string; count: number }, [string, Dimension, string, string, string, string, string, string, number]>(
    `SELECT value, sum(count) AS count FROM (
       SELECT value, count FROM form_daily_counts WHERE form_id = ?1 AND dimension = ?2 AND day BETWEEN ?3 AND ?4
       UNION ALL
       SELECT value, count FROM form_daily_counts WHERE form_id = ?1 AND dimension = ?2 AND day BETWEEN ?5 AND ?6
       UNION ALL
       SELECT value, count FROM form_monthly_counts WHERE form_id = ?1 AND dimension = ?2 AND month BETWEEN ?7 AND ?8)
     GROUP BY value ORDER BY count DESC, value ASC LIMIT ?9`,
  );

  return {
    /**
     * Counts a batch into the daily rollups, aggregated in memory first so a batch costs one
     * upsert per (form, day, dimension, value) rather than four per submission. Runs inside
     * the submit transaction, so rollups never disagree with the submissions.
     */
    recordRollups(batch: NewSubmission[]): void {
      const counts = new Map<string, number>();
      const add = (formId: string, dimension: string, day: string, value: string) => {
        const key = `${formId}\u0000${dimension}\u0000${day}\u0000${value}`;
        counts.set(key, (counts.get(key) ?? 0) + 1);
      };
      for (const s of batch) {
        // A day key is YYYY-MM-DD, a month key YYYY-MM: the length tells the tables apart below.
        for (const at of [s.createdAt.slice(0, 10), s.createdAt.slice(0, 7)]) {
          add(s.form.id, "total", at, "");
          add(s.form.id, "country", at, s.meta.country || "ZZ");
          add(s.form.id, "browser", at, s.meta.browser || "unknown");
          add(s.form.id, "device", at, s.meta.device || "unknown");
        }
      }
      for (const [key, n] of counts) {
        const [formId, dimension, at, value] = key.split("\u0000") as [string, string, string, string];
        (at.length === 10 ? upsertDay : upsertMonth).run(formId, dimension, at, value, n);
      }
    },
    /** Submissions per day in [from, to], days without any left out. */
    countsPerDay: (formId: string, from: string, to: string) => series.all(formId, from, to),
    /**
     * The ten most frequent values of a dimension, count descending then value ascending, over
     * the days `headDays` and `tailDays` and the whole months `months` (each [first, last]; an
     * empty part has first > last).
     */
    topValues: (formId: string, dimension: Dimension, parts: { headDays: [string, string]; tailDays: [string, string]; months: [string, string] }) =>
      top.all(formId, dimension, ...parts.headDays, ...parts.tailDays, ...parts.months, TOP),
  };
}

export type AnalyticsRepo = ReturnType<typeof createAnalyticsRepo>;
