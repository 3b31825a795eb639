import type { Step } from "../portable";

/**
 * Edits after sending (the form setting `editableDays`): a submitter may change their answers
 * through a signed link for that many days. Each change keeps the values it replaced as a revision,
 * numbered from 1 per submission; revisions go with their submission (ON DELETE CASCADE): a
 * deletion, an erasure, retention and a form's deletion take them.
 */
export const steps: Step[] = [
  "ALTER TABLE forms ADD COLUMN editable_days INTEGER",
  `CREATE TABLE submission_revisions (
    submission_id TEXT NOT NULL REFERENCES submissions(id) ON DELETE CASCADE,
    revision      INTEGER NOT NULL,
    data          TEXT NOT NULL,
    created_at    TEXT NOT NULL,
    PRIMARY KEY (submission_id, revision)
  ) STRICT, WITHOUT ROWID`,
];
