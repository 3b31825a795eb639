import type { Sql } from "../../db/sql";

/** A person's TOTP secret as stored: sealed (secret-box.ts); unconfirmed while enrolment is unfinished. */
export interface TotpRow {
  ciphertext: string;
  confirmedAt: string | null;
  lastStep: number | null;
}

export function createSecondFactorRepo(sql: Sql) {
  const putRecoveryCodes = async (ownerId: string, codeHashes: string[]) => {
    await sql.run("DELETE FROM recovery_codes WHERE owner_id = ?", [ownerId]);
    for (const hash of codeHashes)
      await sql.run("INSERT INTO recovery_codes (code_hash, owner_id) VALUES (?, ?)", [hash, ownerId]);
  };
  const confirmed = async (ownerId: string) =>
    (await sql.get("SELECT 1 AS one FROM totp_secrets WHERE owner_id = ? AND confirmed_at IS NOT NULL", [ownerId])) !==
    null;
  return {
    atomically: <T>(fn: () => Promise<T>): Promise<T> => sql.transaction(fn),
    async findTotp(ownerId: string): Promise<TotpRow | null> {
      const r = await sql.get<{ ciphertext: string; confirmed_at: string | null; last_step: number | string | null }>(
        "SELECT ciphertext, confirmed_at, last_step FROM totp_secrets WHERE owner_id = ?",
        [ownerId],
      );
      return r
        ? {
            ciphertext: r.ciphertext,
            confirmedAt: r.confirmed_at,
            lastStep: r.last_step === null ? null : Number(r.last_step),
          }
        : null;
    },
    /** Whether the person has a confirmed TOTP second factor. */
    enrolled: confirmed,
    /** Whether any TOTP secret is stored sealed (a key file missing beside them is a lost key). */
    anySealed: async (): Promise<boolean> => (await sql.get("SELECT 1 AS one FROM totp_secrets LIMIT 1", [])) !== null,
    /** A new, unconfirmed secret in place of an unconfirmed one; a confirmed one stays (false). */
    startTotp: async (ownerId: string, ciphertext: string, at: string): Promise<boolean> =>
      (await sql.run(
        `INSERT INTO totp_secrets (owner_id, ciphertext, created_at) VALUES (?1, ?2, ?3)
           ON CONFLICT (owner_id) DO UPDATE SET ciphertext = ?2, created_at = ?3 WHERE totp_secrets.confirmed_at IS NULL`,
        [ownerId, ciphertext, at],
      )) > 0,
    /** Confirms the secret and replaces the recovery codes, in one transaction. */
    confirmTotp: (ownerId: string, step: number, at: string, codeHashes: string[]): Promise<boolean> =>
      sql.transaction(async () => {
        const changed = await sql.run(
          "UPDATE totp_secrets SET confirmed_at = ?, last_step = ? WHERE owner_id = ? AND confirmed_at IS NULL",
          [at, step, ownerId],
        );
        if (!changed) return false;
        await putRecoveryCodes(ownerId, codeHashes);
        return true;
      }),
    /** Takes a time step for a login: only past the last one taken, so a code is accepted once (one statement: two logins racing cannot both take it). */
    takeStep: async (ownerId: string, step: number): Promise<boolean> =>
      (await sql.run(
        "UPDATE totp_secrets SET last_step = ?1 WHERE owner_id = ?2 AND confirmed_at IS NOT NULL AND (last_step IS NULL OR last_step < ?1)",
        [step, ownerId],
      )) > 0,
    /** Uses a recovery code, once. */
    useRecoveryCode: async (ownerId: string, hash: string, at: string): Promise<boolean> =>
      (await sql.run("UPDATE recovery_codes SET used_at = ? WHERE code_hash = ? AND owner_id = ? AND used_at IS NULL", [
        at,
        hash,
        ownerId,
      ])) > 0,
    async insertChallenge(c: { tokenHash: string; ownerId: string; expiresAt: string; now: string }): Promise<void> {
      await sql.run("DELETE FROM login_challenges WHERE expires_at <= ?", [c.now]);
      await sql.run("INSERT INTO login_challenges (token_hash, owner_id, expires_at) VALUES (?, ?, ?)", [
        c.tokenHash,
        c.ownerId,
        c.expiresAt,
      ]);
    },
    /** The person a live challenge is for. */
    challengeOwner: async (tokenHash: string, now: string): Promise<string | null> =>
      (
        await sql.get<{ owner_id: string }>(
          "SELECT owner_id FROM login_challenges WHERE token_hash = ? AND expires_at > ?",
          [tokenHash, now],
        )
      )?.owner_id ?? null,
    deleteChallenge: (tokenHash: string) => sql.run("DELETE FROM login_challenges WHERE token_hash = ?", [tokenHash]),
    recoveryCodesLeft: async (ownerId: string): Promise<number> =>
      Number(
        (
          await sql.get<{ n: number | string }>(
            "SELECT COUNT(*) AS n FROM recovery_codes WHERE owner_id = ? AND used_at IS NULL",
            [ownerId],
          )
        )?.n ?? 0,
      ),
    /** New recovery codes in place of every old one, while TOTP is on (false otherwise, changing nothing). */
    replaceRecoveryCodes: (ownerId: string, codeHashes: string[]): Promise<boolean> =>
      sql.transaction(async () => {
        if (!(await confirmed(ownerId))) return false;
        await putRecoveryCodes(ownerId, codeHashes);
        return true;
      }),
    /** The person's own turning off: TOTP, recovery codes and pending challenges go; sessions stay. */
    turnOff: (ownerId: string): Promise<void> =>
      sql.transaction(async () => {
        await sql.run("DELETE FROM totp_secrets WHERE owner_id = ?", [ownerId]);
        await sql.run("DELETE FROM recovery_codes WHERE owner_id = ?", [ownerId]);
        await sql.run("DELETE FROM login_challenges WHERE owner_id = ?", [ownerId]);
      }),
    /** Turns every second factor of the person off, and ends their sessions; returns whether TOTP was on. */
    reset: (ownerId: string): Promise<boolean> =>
      sql.transaction(async () => {
        const had = await sql.run("DELETE FROM totp_secrets WHERE owner_id = ?", [ownerId]);
        await sql.run("DELETE FROM recovery_codes WHERE owner_id = ?", [ownerId]);
        await sql.run("DELETE FROM login_challenges WHERE owner_id = ?", [ownerId]);
        await sql.run("DELETE FROM sessions WHERE owner_id = ?", [ownerId]);
        return had > 0;
      }),
  };
}

export type SecondFactorRepo = ReturnType<typeof createSecondFactorRepo>;
