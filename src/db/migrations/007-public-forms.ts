import type { Database } from "bun:sqlite";
import { randomBytes } from "node:crypto";

/**
 * Public forms. Keys get a kind: `secret` (full API) or `publishable` (submit and challenge only,
 * safe in a web page), optionally bound to some forms (`form_ids`, a JSON array; NULL = all the
 * owner's forms). Forms get their settings for public submission: the origins allowed to post
 * with a publishable key (a JSON array; empty = any), the honeypot field (NULL = none) and the
 * challenge. Proof-of-work challenges are signed with a secret of their own, and each solution
 * is remembered until its challenge expires, so it is accepted once.
 */
export function up(db: Database): void {
  db.run(
    "ALTER TABLE api_keys ADD COLUMN kind TEXT NOT NULL DEFAULT 'secret' CHECK (kind IN ('secret', 'publishable'))",
  );
  db.run("ALTER TABLE api_keys ADD COLUMN form_ids TEXT");

  db.run("ALTER TABLE forms ADD COLUMN allowed_origins TEXT NOT NULL DEFAULT '[]'");
  db.run("ALTER TABLE forms ADD COLUMN honeypot_field TEXT DEFAULT '_gotcha'");
  db.run(
    "ALTER TABLE forms ADD COLUMN challenge TEXT NOT NULL DEFAULT 'none' CHECK (challenge IN ('none', 'pow', 'turnstile', 'hcaptcha'))",
  );

  db.run("INSERT INTO settings (key, value) VALUES ('challenge_secret', ?)", [randomBytes(32).toString("base64url")]);
  db.run(`CREATE TABLE used_challenges (
    signature  TEXT PRIMARY KEY,
    expires_at TEXT NOT NULL
  ) STRICT, WITHOUT ROWID`);
  db.run("CREATE INDEX used_challenges_by_expiry ON used_challenges (expires_at)");
}
