import type { Database } from "bun:sqlite";

/**
 * Cheaper commits for the submit path; measured in bench/RESULTS.md.
 *
 * Submissions arrive in time order, so a form's keyset index is kept ascending: new entries land
 * at the end of the form's range and fill their pages. The descending index took them at the
 * front of the range, split pages on most commits and stayed half empty. SQLite walks the
 * ascending index backwards for newest-first pages at the same cost.
 *
 * Distinct waitlist joiners get a table of their own, written for waitlist forms only; the email
 * index and the "seen this email?" probe it served cost every other form's submissions too.
 */
export function up(db: Database): void {
  db.run("DROP INDEX submissions_by_form");
  db.run("CREATE INDEX submissions_by_form ON submissions (form_id, created_at, id)");
  db.run("DROP INDEX submissions_by_email");

  db.run(`CREATE TABLE waitlist_joiners (
    form_id TEXT NOT NULL REFERENCES forms(id) ON DELETE CASCADE,
    email   TEXT NOT NULL,
    PRIMARY KEY (form_id, email)
  ) STRICT, WITHOUT ROWID`);
  db.run(
    `INSERT INTO waitlist_joiners (form_id, email)
     SELECT DISTINCT s.form_id, s.email FROM submissions s JOIN forms f ON f.id = s.form_id
     WHERE f.form_type = 'waitlist' AND s.email IS NOT NULL`,
  );
}
