import type { Database } from "bun:sqlite";

/**
 * Daily counts per form: the total, and per country, browser and device. Analytics reads only
 * these, so its cost follows the days asked for, not the submissions in them. Submissions stored
 * before this migration are counted into it here.
 */
export function up(db: Database): void {
  db.run(`CREATE TABLE form_daily_counts (
    form_id   TEXT NOT NULL REFERENCES forms(id) ON DELETE CASCADE,
    dimension TEXT NOT NULL CHECK (dimension IN ('total', 'country', 'browser', 'device')),
    day       TEXT NOT NULL,
    value     TEXT NOT NULL,
    count     INTEGER NOT NULL,
    PRIMARY KEY (form_id, dimension, day, value)
  ) STRICT, WITHOUT ROWID`);

  const day = "substr(created_at, 1, 10)";
  const dims: [string, string][] = [
    ["total", "''"],
    ["country", "coalesce(nullif(json_extract(data, '$._meta.country'), ''), 'ZZ')"],
    ["browser", "coalesce(nullif(json_extract(data, '$._meta.browser'), ''), 'unknown')"],
    ["device", "coalesce(nullif(json_extract(data, '$._meta.device'), ''), 'unknown')"],
  ];
  for (const [dimension, value] of dims) {
    db.run(
      `INSERT INTO form_daily_counts (form_id, dimension, day, value, count)
       SELECT form_id, '${dimension}', ${day}, ${value}, count(*) FROM submissions GROUP BY form_id, ${day}, ${value}`,
    );
  }
}
