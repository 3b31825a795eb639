import type { Step } from "../portable";

/**
 * Edits after sending (the form setting `editableDays`): a submitter may change their answers
 * through a signed link for that many days. Each change keeps the values it replaced as a revision,
 * numbered from 1 per submission, with the extracted email they had: a person's erasure and export
 * find a submission by an address it held before an edit too. Revisions go with their submission
 * (ON DELETE CASCADE): a deletion, an erasure, retention and a form's deletion take them.
 */
export const steps: Step[] = [
  "ALTER TABLE forms ADD COLUMN editable_days INTEGER",
  `CREATE TABLE submission_revisions (
    submission_id TEXT NOT NULL REFERENCES submissions(id) ON DELETE CASCADE,
    revision      INTEGER NOT NULL,
    data          TEXT NOT NULL,
    email         TEXT,
    created_at    TEXT NOT NULL,
    PRIMARY KEY (submission_id, revision)
  ) STRICT, WITHOUT ROWID`,
  "CREATE INDEX submission_revisions_by_email ON submission_revisions (email) WHERE email IS NOT NULL",
];
