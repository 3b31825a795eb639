import { portable } from "../../src/db/portable";

/**
 * A test-only migration written once for both engines, using every rule of the translation (a rowid,
 * TEXT, REAL, defaults, CHECK, REFERENCES, a table constraint, STRICT and WITHOUT ROWID, a comment
 * holding a comma, an added column, an index) and a step written per engine: the schema test applies
 * it to each engine and compares the results as it compares the real schema.
 */
export const DEMO_MIGRATION = portable(1000, "test-only-demo", [
  `CREATE TABLE demo_notes (
    id      INTEGER PRIMARY KEY,
    form_id TEXT NOT NULL REFERENCES forms(id) ON DELETE CASCADE,
    -- what the owner wrote, trimmed
    body    TEXT NOT NULL DEFAULT '',
    score   REAL NOT NULL DEFAULT 0.5,
    state   TEXT NOT NULL DEFAULT 'open' CHECK (state IN ('open', 'closed'))
  ) STRICT`,
  "CREATE INDEX demo_notes_by_form ON demo_notes (form_id, id)",
  `CREATE TABLE demo_tags (
    note_id INTEGER NOT NULL REFERENCES demo_notes(id) ON DELETE CASCADE,
    tag     TEXT NOT NULL,
    PRIMARY KEY (note_id, tag)
  ) STRICT, WITHOUT ROWID`,
  "ALTER TABLE demo_notes ADD COLUMN closed_at TEXT",
  {
    sqlite: ["UPDATE demo_notes SET closed_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE state = 'closed'"],
    postgres: [
      `UPDATE demo_notes SET closed_at = to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') WHERE state = 'closed'`,
    ],
  },
]);
