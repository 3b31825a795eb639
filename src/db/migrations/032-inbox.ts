import type { Step } from "../portable";

/**
 * The inbox: each submission gets a `state` (new until someone works on it), an `assignee` (a member
 * of the form's team; unset when its person leaves the team or is deleted) and a count of its notes,
 * kept with the note in one transaction so a list shows it without counting. Tags are rows of their
 * own (not a JSON column), carrying the submission's form and time, so that a search for one tag
 * walks `submission_tags_by_tag` newest first within each form it may read instead of reading every
 * submission; a submission's own tags are read by its primary key. Tags and notes go with their
 * submission (ON DELETE CASCADE): a deletion, an erasure, retention and a form's deletion take them.
 *
 * `unread_count` (inbox, state new) is kept as `submission_count` is: on the form's row, and on
 * PostgreSQL also in the appended deltas that a fold moves into it; it starts as a recount, every
 * submission so far being new.
 */
export const steps: Step[] = [
  "ALTER TABLE submissions ADD COLUMN state TEXT NOT NULL DEFAULT 'new' CHECK (state IN ('new', 'open', 'done', 'archived'))",
  "ALTER TABLE submissions ADD COLUMN assignee TEXT REFERENCES owners(id) ON DELETE SET NULL",
  "ALTER TABLE submissions ADD COLUMN note_count INTEGER NOT NULL DEFAULT 0",
  // Also what an owner's deletion (SET NULL) and a member's leaving look up.
  "CREATE INDEX submissions_by_assignee ON submissions (assignee, form_id) WHERE assignee IS NOT NULL",
  `CREATE TABLE submission_tags (
    submission_id TEXT NOT NULL REFERENCES submissions(id) ON DELETE CASCADE,
    tag           TEXT NOT NULL,
    form_id       TEXT NOT NULL,
    created_at    TEXT NOT NULL,
    PRIMARY KEY (submission_id, tag)
  ) STRICT, WITHOUT ROWID`,
  "CREATE INDEX submission_tags_by_tag ON submission_tags (form_id, tag, created_at, submission_id)",
  `CREATE TABLE submission_notes (
    id            TEXT PRIMARY KEY,
    submission_id TEXT NOT NULL REFERENCES submissions(id) ON DELETE CASCADE,
    author_id     TEXT REFERENCES owners(id) ON DELETE SET NULL,
    text          TEXT NOT NULL,
    created_at    TEXT NOT NULL
  ) STRICT`,
  "CREATE INDEX submission_notes_by_submission ON submission_notes (submission_id, created_at, id)",
  "CREATE INDEX submission_notes_by_author ON submission_notes (author_id) WHERE author_id IS NOT NULL",
  "ALTER TABLE forms ADD COLUMN unread_count INTEGER NOT NULL DEFAULT 0",
  "UPDATE forms SET unread_count = (SELECT count(*) FROM submissions s WHERE s.form_id = forms.id AND s.status = 'inbox')",
  { sqlite: [], postgres: ["ALTER TABLE form_count_deltas ADD COLUMN unread integer NOT NULL DEFAULT 0"] },
];
