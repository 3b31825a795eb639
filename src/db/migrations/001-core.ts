import type { Database } from "bun:sqlite";
import { randomBytes } from "node:crypto";

/** Owners, their API keys and forms, and the server's own settings. */
export function up(db: Database): void {
  db.run(`CREATE TABLE settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
  ) STRICT`);
  db.run("INSERT INTO settings (key, value) VALUES ('cursor_secret', ?)", [randomBytes(32).toString("base64url")]);

  db.run(`CREATE TABLE owners (
    id         TEXT PRIMARY KEY,
    email      TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL
  ) STRICT`);

  db.run(`CREATE TABLE api_keys (
    id           TEXT PRIMARY KEY,
    owner_id     TEXT NOT NULL REFERENCES owners(id) ON DELETE CASCADE,
    name         TEXT NOT NULL,
    prefix       TEXT NOT NULL,
    hash         TEXT NOT NULL UNIQUE,
    active       INTEGER NOT NULL DEFAULT 1,
    created_at   TEXT NOT NULL,
    last_used_at TEXT,
    revoked_at   TEXT
  ) STRICT`);
  db.run("CREATE INDEX api_keys_by_owner ON api_keys (owner_id, created_at)");

  db.run(`CREATE TABLE forms (
    id                      TEXT PRIMARY KEY,
    owner_id                TEXT NOT NULL REFERENCES owners(id) ON DELETE CASCADE,
    name                    TEXT NOT NULL,
    description             TEXT NOT NULL DEFAULT '',
    form_type               TEXT NOT NULL,
    email_enabled           INTEGER NOT NULL DEFAULT 0,
    developer_notifications INTEGER NOT NULL DEFAULT 0,
    users_joined_enabled    INTEGER NOT NULL DEFAULT 0,
    submission_count        INTEGER NOT NULL DEFAULT 0,
    users_joined_count      INTEGER NOT NULL DEFAULT 0,
    created_at              TEXT NOT NULL,
    updated_at              TEXT NOT NULL
  ) STRICT`);
  // The forms list: one owner's forms, newest first.
  db.run("CREATE INDEX forms_by_owner ON forms (owner_id, created_at DESC, id DESC)");
}
