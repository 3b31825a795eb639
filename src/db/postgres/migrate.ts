import { migrations as sqliteMigrations } from "../migrations";
import type { Sql } from "../sql";
import type { SqlValue } from "../sql";
import { POSTGRES_SCHEMA, POSTGRES_SCHEMA_VERSION as BASELINE, POSTGRES_SEED } from "./schema";

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
    version: 19,
    name: "outbox-due-by-kind",
    statements: ["CREATE INDEX outbox_due_by_kind ON outbox (status, kind, next_attempt_at)"],
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
