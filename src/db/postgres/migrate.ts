import { migrations as sqliteMigrations } from "../migrations";
import { OUTBOX_KINDS_RELABEL } from "../migrations/025-outbox-kinds";
import type { Sql } from "../sql";
import type { SqlValue } from "../sql";
import {
  CHANGE_SEQUENCES,
  COUNTER_DELTAS,
  POSTGRES_SCHEMA,
  POSTGRES_SCHEMA_VERSION as BASELINE,
  POSTGRES_SEED,
} from "./schema";

// The spam lessons of honeypot catches the owner has not moved since (SQLite's twin: 022-honeypot-lessons.ts).
const HONEYPOT_LESSONS = `SELECT l.submission_id, l.owner_id, l.tokens FROM spam_lessons l JOIN submissions s ON s.id = l.submission_id
  WHERE l.label = 'spam' AND CAST(s.spam AS jsonb) -> 'reasons' @> '["honeypot"]'
    AND NOT EXISTS (SELECT 1 FROM audit_events a WHERE a.object_id = l.submission_id AND a.action = 'submission.moved')`;
// Their tokens (base64 of 32-bit little-endian integers), each with how many of them counted it.
const HONEYPOT_TOKENS = `WITH packed AS (SELECT owner_id, decode(tokens, 'base64') AS b FROM (${HONEYPOT_LESSONS}) caught),
  unsigned AS (SELECT owner_id, get_byte(b, 4 * i) + 256 * get_byte(b, 4 * i + 1) + 65536 * get_byte(b, 4 * i + 2)
      + CAST(16777216 AS bigint) * get_byte(b, 4 * i + 3) AS u
    FROM packed, generate_series(0, length(b) / 4 - 1) AS i)
  SELECT owner_id, CAST(CASE WHEN u >= 2147483648 THEN u - 4294967296 ELSE u END AS integer) AS token, count(*) AS n
  FROM unsigned GROUP BY owner_id, token`;
/** A honeypot catch teaches nothing any more: what earlier versions' catches taught is taken back out. */
const HONEYPOT_LESSONS_OUT = [
  `UPDATE spam_tokens t SET spam = greatest(t.spam - c.n, 0) FROM (${HONEYPOT_TOKENS}) c
   WHERE t.owner_id = c.owner_id AND t.token = c.token`,
  "DELETE FROM spam_tokens WHERE spam = 0 AND ham = 0",
  `UPDATE spam_filters f SET spam = greatest(f.spam - c.n, 0), version = f.version + 1,
     filing_since = CASE WHEN f.spam - c.n < 20 OR f.ham < 20 THEN NULL ELSE f.filing_since END
   FROM (SELECT owner_id, count(*) AS n FROM (${HONEYPOT_LESSONS}) caught GROUP BY owner_id) c WHERE f.owner_id = c.owner_id`,
  `DELETE FROM spam_lessons WHERE submission_id IN (SELECT submission_id FROM (${HONEYPOT_LESSONS}) caught)`,
];

/**
 * Schema changes for a database made by an earlier version, each with its SQLite twin's version;
 * the baseline above already holds them, so a new database skips them.
 */
const LATER: { version: number; name: string; statements: string[] }[] = [
  {
    version: 12,
    name: "drop-in",
    statements: [
      "ALTER TABLE forms ADD COLUMN public_endpoint integer NOT NULL DEFAULT 0",
      'ALTER TABLE forms ADD COLUMN fields text COLLATE "C"',
      "ALTER TABLE forms ADD COLUMN allow_extra_fields integer NOT NULL DEFAULT 0",
      "ALTER TABLE forms ADD COLUMN paused integer NOT NULL DEFAULT 0",
      'ALTER TABLE forms ADD COLUMN closes_at text COLLATE "C"',
      "ALTER TABLE forms ADD COLUMN max_submissions integer CHECK (max_submissions IS NULL OR max_submissions > 0)",
      'ALTER TABLE forms ADD COLUMN success_url text COLLATE "C"',
      'ALTER TABLE forms ADD COLUMN error_url text COLLATE "C"',
    ],
  },
  {
    version: 13,
    name: "operations",
    statements: [
      'CREATE TABLE setup_tokens (token_hash text COLLATE "C" PRIMARY KEY, expires_at text COLLATE "C" NOT NULL)',
      `CREATE TABLE password_resets (
        token_hash text COLLATE "C" PRIMARY KEY,
        owner_id   text COLLATE "C" NOT NULL REFERENCES owners(id) ON DELETE CASCADE,
        created_at text COLLATE "C" NOT NULL,
        expires_at text COLLATE "C" NOT NULL,
        used_at    text COLLATE "C"
      )`,
      "CREATE INDEX password_resets_by_owner ON password_resets (owner_id, created_at)",
      "ALTER TABLE outbox DROP CONSTRAINT outbox_kind_check",
      "ALTER TABLE outbox ADD CONSTRAINT outbox_kind_check CHECK (kind IN ('notification', 'autoresponse', 'confirmation', 'webhook', 'password_reset'))",
      "ALTER TABLE outbox ALTER COLUMN form_id DROP NOT NULL",
    ],
  },
  {
    version: 14,
    name: "notifications",
    statements: [
      `ALTER TABLE forms ADD COLUMN recipients text COLLATE "C" NOT NULL DEFAULT '[]'`,
      'ALTER TABLE forms ADD COLUMN notification_template text COLLATE "C"',
      'ALTER TABLE forms ADD COLUMN from_name text COLLATE "C"',
      `CREATE TABLE recipient_confirmations (
        form_id    text COLLATE "C" NOT NULL REFERENCES forms(id) ON DELETE CASCADE,
        email      text COLLATE "C" NOT NULL,
        token_hash text COLLATE "C" NOT NULL UNIQUE,
        created_at text COLLATE "C" NOT NULL,
        expires_at text COLLATE "C" NOT NULL,
        PRIMARY KEY (form_id, email)
      )`,
    ],
  },
  {
    version: 15,
    name: "digests",
    statements: [
      `ALTER TABLE forms ADD COLUMN notify_mode text COLLATE "C" NOT NULL DEFAULT 'each' CHECK (notify_mode IN ('each', 'daily'))`,
      `CREATE TABLE notification_digests (
        form_id     text COLLATE "C" NOT NULL REFERENCES forms(id) ON DELETE CASCADE,
        day         text COLLATE "C" NOT NULL,
        submissions integer NOT NULL,
        created_at  text COLLATE "C" NOT NULL,
        PRIMARY KEY (form_id, day)
      )`,
    ],
  },
  {
    version: 16,
    name: "files",
    statements: [
      'ALTER TABLE forms ADD COLUMN files text COLLATE "C"',
      `CREATE TABLE files (
    id            text COLLATE "C" PRIMARY KEY,
    submission_id text COLLATE "C" REFERENCES submissions(id) ON DELETE SET NULL,
    form_id       text COLLATE "C",
    owner_id      text COLLATE "C" NOT NULL,
    key           text COLLATE "C" NOT NULL,
    field         text COLLATE "C" NOT NULL,
    name          text COLLATE "C" NOT NULL,
    type          text COLLATE "C" NOT NULL,
    size          integer NOT NULL,
    sha256        text COLLATE "C" NOT NULL,
    state         text COLLATE "C" NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'stored')),
    created_at    text COLLATE "C" NOT NULL
  )`,
      "CREATE INDEX files_by_submission ON files (submission_id)",
      "CREATE INDEX files_unattached ON files (created_at) WHERE submission_id IS NULL",
      "INSERT INTO settings (key, value) VALUES ('files_secret', replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''))",
    ],
  },
  // Counters and rollups as appended deltas (SQLite's twin changes nothing); what was on the rows stays there.
  { version: 17, name: "counter-deltas", statements: COUNTER_DELTAS },
  {
    version: 18,
    name: "spam-filter",
    statements: [
      'ALTER TABLE submissions ADD COLUMN spam text COLLATE "C"',
      `ALTER TABLE forms ADD COLUMN spam_blocked_words text COLLATE "C" NOT NULL DEFAULT '[]'`,
      `ALTER TABLE forms ADD COLUMN spam_blocked_email_domains text COLLATE "C" NOT NULL DEFAULT '[]'`,
      "ALTER TABLE forms ADD COLUMN spam_block_disposable integer NOT NULL DEFAULT 0",
      "ALTER TABLE forms ADD COLUMN spam_max_links integer",
      "ALTER TABLE forms ADD COLUMN spam_duplicate_window integer",
      "ALTER TABLE forms ADD COLUMN spam_threshold double precision NOT NULL DEFAULT 0.9",
      "ALTER TABLE forms ADD COLUMN recaptcha_min_score double precision NOT NULL DEFAULT 0.5",
      // Made again last, as SQLite must, so both engines keep the same column order.
      `ALTER TABLE forms ADD COLUMN challenge_next text COLLATE "C" NOT NULL DEFAULT 'none' CHECK (challenge_next IN ('none', 'pow', 'turnstile', 'hcaptcha', 'recaptcha'))`,
      "UPDATE forms SET challenge_next = challenge",
      "ALTER TABLE forms DROP COLUMN challenge",
      "ALTER TABLE forms RENAME COLUMN challenge_next TO challenge",
      `CREATE TABLE spam_filters (
        owner_id     text COLLATE "C" PRIMARY KEY REFERENCES owners(id) ON DELETE CASCADE,
        spam         integer NOT NULL DEFAULT 0,
        ham          integer NOT NULL DEFAULT 0,
        version      integer NOT NULL DEFAULT 0,
        filing_since text COLLATE "C"
      )`,
      `CREATE TABLE spam_tokens (
        owner_id text COLLATE "C" NOT NULL REFERENCES owners(id) ON DELETE CASCADE,
        token    integer NOT NULL,
        spam     integer NOT NULL,
        ham      integer NOT NULL,
        PRIMARY KEY (owner_id, token)
      )`,
      `CREATE TABLE spam_lessons (
        submission_id text COLLATE "C" PRIMARY KEY,
        owner_id      text COLLATE "C" NOT NULL REFERENCES owners(id) ON DELETE CASCADE,
        label         text COLLATE "C" NOT NULL CHECK (label IN ('spam', 'ham')),
        tokens        text COLLATE "C" NOT NULL,
        created_at    text COLLATE "C" NOT NULL
      )`,
      "CREATE INDEX spam_lessons_by_owner ON spam_lessons (owner_id)",
      `CREATE TABLE spam_recent (
        form_id text COLLATE "C" NOT NULL REFERENCES forms(id) ON DELETE CASCADE,
        digest  text COLLATE "C" NOT NULL,
        seen_at text COLLATE "C" NOT NULL,
        PRIMARY KEY (form_id, digest)
      )`,
      "CREATE INDEX spam_recent_by_time ON spam_recent (form_id, seen_at)",
    ],
  },
  {
    version: 19,
    name: "outbox-due-by-kind",
    statements: ["CREATE INDEX outbox_due_by_kind ON outbox (status, kind, next_attempt_at)"],
  },
  {
    version: 20,
    name: "outbox-due",
    statements: [
      "DROP INDEX outbox_due",
      "DROP INDEX outbox_due_by_kind",
      "CREATE INDEX outbox_unsent ON outbox (status, kind, next_attempt_at) WHERE status <> 'sent'",
    ],
  },
  // The one sequence of earlier versions stays: their instances, still serving during a rolling
  // upgrade, keep looking at it instead of failing every request, and see this version's commits
  // within the caches' maximum age (a second). A later version drops it.
  { version: 21, name: "change-kinds", statements: CHANGE_SEQUENCES },
  { version: 22, name: "honeypot-lessons", statements: HONEYPOT_LESSONS_OUT },
  {
    version: 23,
    name: "confirmation-emails",
    statements: [
      `CREATE TABLE confirmation_emails (
        owner_id text COLLATE "C" NOT NULL REFERENCES owners(id) ON DELETE CASCADE,
        email    text COLLATE "C" NOT NULL,
        due_at   text COLLATE "C" NOT NULL
      )`,
      "CREATE INDEX confirmation_emails_by_owner ON confirmation_emails (owner_id, due_at)",
    ],
  },
  {
    version: 24,
    name: "form-warnings",
    statements: [`ALTER TABLE forms ADD COLUMN warnings text COLLATE "C" NOT NULL DEFAULT '[]'`],
  },
  {
    version: 25,
    name: "outbox-kinds",
    statements: ["ALTER TABLE outbox DROP CONSTRAINT outbox_kind_check", ...OUTBOX_KINDS_RELABEL],
  },
];

/**
 * Brings a PostgreSQL database's schema up to date in one transaction, under an advisory lock:
 * instances that start together wait for the first, then find nothing left to do. A new database
 * gets the whole schema at once, recorded as the SQLite migrations it equals, so both engines
 * name a schema by the same version.
 */
export async function migratePostgres(sql: Sql): Promise<void> {
  await sql.transaction(async () => {
    await sql.get("SELECT pg_advisory_xact_lock(hashtext('formsvc:migrate'))");
    await sql.run(
      "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)",
    );
    const applied = new Set(
      (await sql.all<{ version: number }>("SELECT version FROM schema_migrations")).map((r) => r.version),
    );
    const now = new Date().toISOString();
    const record = (version: number, name: string) =>
      sql.run("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)", [version, name, now]);
    if (applied.size === 0) {
      for (const statement of POSTGRES_SCHEMA) await sql.run(statement);
      for (const seed of POSTGRES_SEED) await sql.run(seed.sql, seed.params() as SqlValue[]);
      for (const m of sqliteMigrations.filter((m) => m.version <= BASELINE)) {
        await record(m.version, m.name);
        applied.add(m.version);
      }
    }
    for (const m of LATER.filter((m) => !applied.has(m.version))) {
      for (const statement of m.statements) await sql.run(statement);
      await record(m.version, m.name);
    }
  });
}
