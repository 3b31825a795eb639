import type { Database } from "bun:sqlite";
import { randomBytes } from "node:crypto";

/**
 * File uploads: a form's `files` setting, and one row per stored file. A row is written `pending`
 * before its bytes go to the store, so a file whose submission never commits is found and removed
 * (the orphan sweep); the submission's transaction makes it `stored`. When the submission goes (any
 * way: deleted, erased, expired, with its form), `submission_id` becomes NULL and the bytes are
 * removed from the store. `files_secret` signs the download links in notifications and webhooks.
 */
export function up(db: Database): void {
  db.run("ALTER TABLE forms ADD COLUMN files TEXT");
  db.run(`CREATE TABLE files (
    id            TEXT PRIMARY KEY,
    submission_id TEXT REFERENCES submissions(id) ON DELETE SET NULL,
    form_id       TEXT,
    owner_id      TEXT NOT NULL,
    key           TEXT NOT NULL,
    field         TEXT NOT NULL,
    name          TEXT NOT NULL,
    type          TEXT NOT NULL,
    size          INTEGER NOT NULL,
    sha256        TEXT NOT NULL,
    state         TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'stored')),
    created_at    TEXT NOT NULL
  ) STRICT`);
  db.run("CREATE INDEX files_by_submission ON files (submission_id)");
  db.run("CREATE INDEX files_unattached ON files (created_at) WHERE submission_id IS NULL");
  db.run("INSERT INTO settings (key, value) VALUES ('files_secret', ?)", [randomBytes(32).toString("base64url")]);
}
