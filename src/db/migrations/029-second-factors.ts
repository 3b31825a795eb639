import type { Step } from "../portable";

/**
 * Second factors: a person's TOTP secret (AES-256-GCM ciphertext under a key kept outside the
 * database; `confirmed_at` null while enrolment is unfinished; `last_step` the last time step a
 * code was accepted for, so each code works once), their recovery codes (SHA-256, each used once),
 * and the challenges a password login leaves for its second factor (SHA-256 of a random token).
 */
export const steps: Step[] = [
  `CREATE TABLE totp_secrets (
    owner_id     TEXT PRIMARY KEY REFERENCES owners(id) ON DELETE CASCADE,
    ciphertext   TEXT NOT NULL,
    created_at   TEXT NOT NULL,
    confirmed_at TEXT,
    last_step    INTEGER
  ) STRICT`,
  `CREATE TABLE recovery_codes (
    code_hash TEXT PRIMARY KEY,
    owner_id  TEXT NOT NULL REFERENCES owners(id) ON DELETE CASCADE,
    used_at   TEXT
  ) STRICT`,
  "CREATE INDEX recovery_codes_by_owner ON recovery_codes (owner_id)",
  `CREATE TABLE login_challenges (
    token_hash TEXT PRIMARY KEY,
    owner_id   TEXT NOT NULL REFERENCES owners(id) ON DELETE CASCADE,
    expires_at TEXT NOT NULL
  ) STRICT`,
];
