import type { Step } from "../portable";

/**
 * Passkeys (WebAuthn): each person's random user handle (what an authenticator keeps in place of
 * their email), their credentials (the public key as COSE, base64url; the signature counter last
 * seen; the transports the browser named), and the challenges of registrations and logins begun
 * (SHA-256 of the challenge; `owner_id` null for a login, whose person is not known until the
 * passkey answers), each used once.
 */
export const steps: Step[] = [
  `CREATE TABLE passkey_users (
    owner_id    TEXT PRIMARY KEY REFERENCES owners(id) ON DELETE CASCADE,
    user_handle TEXT NOT NULL UNIQUE
  ) STRICT`,
  `CREATE TABLE passkeys (
    id            TEXT PRIMARY KEY,
    owner_id      TEXT NOT NULL REFERENCES owners(id) ON DELETE CASCADE,
    credential_id TEXT NOT NULL UNIQUE,
    public_key    TEXT NOT NULL,
    counter       INTEGER NOT NULL,
    transports    TEXT NOT NULL,
    name          TEXT NOT NULL,
    created_at    TEXT NOT NULL,
    last_used_at  TEXT
  ) STRICT`,
  "CREATE INDEX passkeys_by_owner ON passkeys (owner_id)",
  `CREATE TABLE passkey_challenges (
    challenge_hash TEXT PRIMARY KEY,
    owner_id       TEXT REFERENCES owners(id) ON DELETE CASCADE,
    expires_at     TEXT NOT NULL
  ) STRICT`,
];
