import type { Database } from "bun:sqlite";

/**
 * Counts per form and UTC day, and per form and UTC month: the total, and per country, browser
 * and device. Analytics reads only these, so its cost follows the days asked for, not the
 * submissions in them; whole months inside a range are read from the monthly table, so a year
 * costs about a dozen monthly rows per value instead of 365 daily ones. Submissions stored before
 * this migration are counted in here.
 */
export function up(db: Database): void {
  for (const [table, unit] of [
    ["form_daily_counts", "day"],
    ["form_monthly_counts", "month"],
  ]) {
    db.run(`CREATE TABLE ${table} (
      form_id   TEXT NOT NULL REFERENCES forms(id) ON DELETE CASCADE,
      dimension TEXT NOT NULL CHECK (dimension IN ('total', 'country', 'browser', 'device')),
      ${unit}   TEXT NOT NULL,
      value     TEXT NOT NULL,
      count     INTEGER NOT NULL,
      PRIMARY KEY (form_id, dimension, ${unit}, value)
    ) STRICT, WITHOUT ROWID`);
  }

  const dims: [string, string][] = [
    ["total", "''"],
    ["country", "coalesce(nullif(json_extract(data, '$._meta.country'), ''), 'ZZ')"],
    ["browser", "coalesce(nullif(json_extract(data, '$._meta.browser'), ''), 'unknown')"],
    ["device", "coalesce(nullif(json_extract(data, '$._meta.device'), ''), 'unknown')"],
  ];
  for (const [table, unit, length] of [
    ["form_daily_counts", "day", 10],
    ["form_monthly_counts", "month", 7],
  ] as const) {
    const key = `substr(created_at, 1, ${length})`;
    for (const [dimension, value] of dims) {
      db.run(
        `INSERT INTO ${table} (form_id, dimension, ${unit}, value, count)
         SELECT form_id, '${dimension}', ${key}, ${value}, count(*) FROM submissions GROUP BY form_id, ${key}, ${value}`,
      );
    }
  }
}
