import type { Database } from "bun:sqlite";

/**
 * Owner accounts: a password (an argon2id hash in the standard `$argon2id$…` form; NULL = none set,
 * so the owner cannot log in) and sessions. A session is stored as the SHA-256 of its token, never
 * the token; it ends after its idle or absolute lifetime (settings, checked when it is used), at
 * logout, or when the owner's sessions are revoked or their password changes (rows deleted).
 */
export function up(db: Database): void {
  db.run("ALTER TABLE owners ADD COLUMN password_hash TEXT");
  db.run("ALTER TABLE owners ADD COLUMN password_set_at TEXT");

  db.run(`CREATE TABLE sessions (
    id           TEXT PRIMARY KEY,
    owner_id     TEXT NOT NULL REFERENCES owners(id) ON DELETE CASCADE,
    token_hash   TEXT NOT NULL UNIQUE,
    created_at   TEXT NOT NULL,
    last_seen_at TEXT NOT NULL
  ) STRICT`);
  // Revoking one owner's sessions; the cascade from a deleted owner.
  db.run("CREATE INDEX sessions_by_owner ON sessions (owner_id)");
  // The housekeeping job deletes sessions idle too long.
  db.run("CREATE INDEX sessions_by_last_seen ON sessions (last_seen_at)");
}
