import type { Database } from "bun:sqlite";
import type { NewSubmission } from "../submissions/model";

/** The dimensions a caller may group by, each a fixed value of the `dimension` column: never SQL built from input. */
export const DIMENSIONS = ["country", "browser", "device"] as const;
export type Dimension = (typeof DIMENSIONS)[number];

const TOP = 10;

export function createAnalyticsRepo(db: Database) {
  const upsert = db.prepare(
    `INSERT INTO form_daily_counts (form_id, dimension, day, value, count) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (form_id, dimension, day, value) DO UPDATE SET count = count + excluded.count`,
  );
  const series = db.prepare<{ day: string; count: number }, [string, string, string]>(
    "SELECT day, count FROM form_daily_counts WHERE form_id = ? AND dimension = 'total' AND day BETWEEN ? AND ? ORDER BY day",
  );
  const top = db.prepare<{ value: string; count: number }, [string, Dimension, string, string, number]>(
    `SELECT value, sum(count) AS count FROM form_daily_counts
     WHERE form_id = ? AND dimension = ? AND day BETWEEN ? AND ?
     GROUP BY value ORDER BY count DESC, value ASC LIMIT ?`,
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
        const day = s.createdAt.slice(0, 10);
        add(s.form.id, "total", day, "");
        add(s.form.id, "country", day, s.meta.country || "ZZ");
        add(s.form.id, "browser", day, s.meta.browser || "unknown");
        add(s.form.id, "device", day, s.meta.device || "unknown");
      }
      for (const [key, n] of counts) {
        const [formId, dimension, day, value] = key.split("\u0000") as [string, string, string, string];
        upsert.run(formId, dimension, day, value, n);
      }
    },
    /** Submissions per day in [from, to], days without any left out. */
    countsPerDay: (formId: string, from: string, to: string) => series.all(formId, from, to),
    /** The ten most frequent values of a dimension in [from, to], count descending then value ascending. */
    topValues: (formId: string, dimension: Dimension, from: string, to: string) => top.all(formId, dimension, from, to, TOP),
  };
}

export type AnalyticsRepo = ReturnType<typeof createAnalyticsRepo>;
