import type { Database } from "bun:sqlite";
import { markLegacyResidue } from "../shred";

/**
 * The data lifecycle and the audit trail. Submissions and their outbox rows can be found by id, and
 * waitlist joiners count their submissions. Forms get `retention_days` (NULL = keep forever): a
 * job deletes their submissions once they are older. `audit_events` records who changed what:
 * the owner whose data it is, the actor (an API key, a session, the command line, or the system's
 * own jobs) and the object changed; never a secret, never submitted data. It has no foreign keys:
 * the record of a deleted form or a revoked key outlives them.
 */
export function up(db: Database): void {
  // A submission by its id (delete, spam, not-spam over HTTP): ids are time-ordered, so new ones
  // land at the end of this index. Without it each lookup read the whole table.
  db.run("CREATE UNIQUE INDEX submissions_by_id ON submissions (id)");
  // What a deleted submission left in the outbox goes with it. (The outbox may have become another
  // table by the time this runs on a database; then that table brings its own index.)
  if (db.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'outbox'").get())
    db.run("CREATE INDEX outbox_by_submission ON outbox (submission_id)");

  // Rows deleted before every connection ran with secure_delete may linger in free space.
  markLegacyResidue(db);

  // A waitlist joiner carries how many inbox submissions of the form have their email, so a deleted
  // or moved submission tells at once whether its joiner leaves (it used to read the form's
  // submissions to find another one: tens of ms per deletion on a large waitlist). Counted afresh.
  db.run("ALTER TABLE waitlist_joiners ADD COLUMN submissions INTEGER NOT NULL DEFAULT 1 CHECK (submissions > 0)");
  db.run("DELETE FROM waitlist_joiners");
  db.run(
    `INSERT INTO waitlist_joiners (form_id, email, submissions)
     SELECT s.form_id, s.email, count(*) FROM submissions s JOIN forms f ON f.id = s.form_id
     WHERE f.form_type = 'waitlist' AND s.status = 'inbox' AND s.email IS NOT NULL GROUP BY s.form_id, s.email`,
  );
  db.run(
    `UPDATE forms SET users_joined_count = (SELECT count(*) FROM waitlist_joiners j WHERE j.form_id = forms.id)
       + (SELECT count(*) FROM submissions s WHERE s.form_id = forms.id AND s.status = 'inbox' AND s.email IS NULL)
     WHERE form_type = 'waitlist'`,
  );

  db.run("ALTER TABLE forms ADD COLUMN retention_days INTEGER CHECK (retention_days IS NULL OR retention_days > 0)");

  db.run(`CREATE TABLE audit_events (
    id         INTEGER PRIMARY KEY,
    at         TEXT NOT NULL,
    owner_id   TEXT NOT NULL,
    actor_kind TEXT NOT NULL CHECK (actor_kind IN ('key', 'session', 'cli', 'system')),
    actor_id   TEXT NOT NULL,
    action     TEXT NOT NULL,
    object_id  TEXT,
    detail     TEXT
  ) STRICT`);
  // One owner's trail, newest first (the id is the order of commits).
  db.run("CREATE INDEX audit_events_by_owner ON audit_events (owner_id, id)");
}
