import type { Database } from "bun:sqlite";

/**
 * The learning spam filter, its rules and reCAPTCHA.
 * - `submissions.spam`: the filter's `{score, reasons}` as JSON; NULL for submissions from before.
 * - The rules of `spamSettings` as columns of `forms`.
 * - `forms.challenge` takes `recaptcha`: SQLite cannot change a CHECK in place (and refuses to
 *   edit its schema table), so the column is made again beside the old one and renamed.
 * - Per owner: `spam_filters` (how many submissions it learned from, a version every lesson moves
 *   on, so each instance's cached model knows it is stale), `spam_tokens` (hashed features and
 *   their counts), `spam_lessons` (which submission taught which label, as hashes, so an opposite
 *   mark undoes it). `spam_recent`: a hash of each submission's fields and visitor, for the
 *   duplicate rule. No table holds readable text.
 */
export function up(db: Database): void {
  db.run("ALTER TABLE submissions ADD COLUMN spam TEXT");
  db.run("ALTER TABLE forms ADD COLUMN spam_blocked_words TEXT NOT NULL DEFAULT '[]'");
  db.run("ALTER TABLE forms ADD COLUMN spam_blocked_email_domains TEXT NOT NULL DEFAULT '[]'");
  db.run("ALTER TABLE forms ADD COLUMN spam_block_disposable INTEGER NOT NULL DEFAULT 0");
  db.run("ALTER TABLE forms ADD COLUMN spam_max_links INTEGER");
  db.run("ALTER TABLE forms ADD COLUMN spam_duplicate_window INTEGER");
  db.run("ALTER TABLE forms ADD COLUMN spam_threshold REAL NOT NULL DEFAULT 0.9");
  db.run("ALTER TABLE forms ADD COLUMN recaptcha_min_score REAL NOT NULL DEFAULT 0.5");
  db.run(
    "ALTER TABLE forms ADD COLUMN challenge_next TEXT NOT NULL DEFAULT 'none' CHECK (challenge_next IN ('none', 'pow', 'turnstile', 'hcaptcha', 'recaptcha'))",
  );
  db.run("UPDATE forms SET challenge_next = challenge");
  db.run("ALTER TABLE forms DROP COLUMN challenge");
  db.run("ALTER TABLE forms RENAME COLUMN challenge_next TO challenge");
  db.run(`CREATE TABLE spam_filters (
    owner_id     TEXT PRIMARY KEY REFERENCES owners(id) ON DELETE CASCADE,
    spam         INTEGER NOT NULL DEFAULT 0,
    ham          INTEGER NOT NULL DEFAULT 0,
    version      INTEGER NOT NULL DEFAULT 0,
    filing_since TEXT
  ) STRICT`);
  db.run(`CREATE TABLE spam_tokens (
    owner_id TEXT NOT NULL REFERENCES owners(id) ON DELETE CASCADE,
    token    INTEGER NOT NULL,
    spam     INTEGER NOT NULL,
    ham      INTEGER NOT NULL,
    PRIMARY KEY (owner_id, token)
  ) STRICT, WITHOUT ROWID`);
  db.run(`CREATE TABLE spam_lessons (
    submission_id TEXT PRIMARY KEY,
    owner_id      TEXT NOT NULL REFERENCES owners(id) ON DELETE CASCADE,
    label         TEXT NOT NULL CHECK (label IN ('spam', 'ham')),
    tokens        TEXT NOT NULL,
    created_at    TEXT NOT NULL
  ) STRICT`);
  db.run("CREATE INDEX spam_lessons_by_owner ON spam_lessons (owner_id)");
  db.run(`CREATE TABLE spam_recent (
    form_id TEXT NOT NULL REFERENCES forms(id) ON DELETE CASCADE,
    digest  TEXT NOT NULL,
    seen_at TEXT NOT NULL,
    PRIMARY KEY (form_id, digest)
  ) STRICT, WITHOUT ROWID`);
  db.run("CREATE INDEX spam_recent_by_time ON spam_recent (form_id, seen_at)");
}
