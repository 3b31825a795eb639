import type { Sql } from "../../db/sql";

/** An owner as login sees it: the password hash, null while none is set. */
export interface Credentials {
  ownerId: string;
  email: string;
  createdAt: string;
  passwordHash: string | null;
  /** The IANA zone the owner reads times in (emails). */
  timeZone: string;
}

/** What a login failure is counted against: the email tried, or the client's address. */
export type FailureScope = "email" | "address";

export interface Session {
  id: string;
  ownerId: string;
  createdAt: string;
  lastSeenAt: string;
  /** Its login proved a second factor (a TOTP or recovery code, a passkey). */
  secondFactor: boolean;
}

/** Where a session was opened: the browser's User-Agent and the client address, as the login saw them (null when unknown or opened before they were kept). */
export interface SessionOrigin {
  userAgent: string | null;
  address: string | null;
}

interface SessionRow {
  id: string;
  owner_id: string;
  created_at: string;
  last_seen_at: string;
  second_factor: number;
}

const SESSION_COLUMNS = "id, owner_id, created_at, last_seen_at, second_factor";

const toSession = (r: SessionRow): Session => ({
  id: r.id,
  ownerId: r.owner_id,
  createdAt: r.created_at,
  lastSeenAt: r.last_seen_at,
  secondFactor: r.second_factor === 1,
});

interface CredentialsRow {
  id: string;
  email: string;
  created_at: string;
  password_hash: string | null;
  time_zone: string;
}

export function createAccountsRepo(sql: Sql) {
  const credentialsBy = async (column: "email" | "id", value: string): Promise<Credentials | null> => {
    const r = await sql.get<CredentialsRow>(
      `SELECT id, email, created_at, password_hash, time_zone FROM owners WHERE ${column} = ?`,
      [value],
    );
    return r
      ? { ownerId: r.id, email: r.email, createdAt: r.created_at, passwordHash: r.password_hash, timeZone: r.time_zone }
      : null;
  };
  const deleteOwnerSessions = (ownerId: string): Promise<number> =>
    sql.run("DELETE FROM sessions WHERE owner_id = ?", [ownerId]);

  return {
    /** Runs `fn`'s statements as one transaction (a savepoint inside another). */
    atomically: <T>(fn: () => Promise<T>): Promise<T> => sql.transaction(fn),
    findCredentialsByEmail: (email: string): Promise<Credentials | null> => credentialsBy("email", email),
    findCredentialsById: (ownerId: string): Promise<Credentials | null> => credentialsBy("id", ownerId),
    /**
     * Sets the owner's password hash and ends every session of theirs, and every login begun with the
     * old password and waiting for its second factor, in one transaction; returns how many sessions ended.
     */
    replacePassword: (ownerId: string, hash: string, at: string): Promise<number> =>
      sql.transaction(async () => {
        await sql.run("UPDATE owners SET password_hash = ?, password_set_at = ? WHERE id = ?", [hash, at, ownerId]);
        await sql.run("DELETE FROM login_challenges WHERE owner_id = ?", [ownerId]);
        return deleteOwnerSessions(ownerId);
      }),
    async setTimeZone(ownerId: string, timeZone: string): Promise<void> {
      await sql.run("UPDATE owners SET time_zone = ? WHERE id = ?", [timeZone, ownerId]);
    },
    /** A rehash at login (new parameters, same password): sessions stay. */
    async updatePasswordHash(ownerId: string, hash: string): Promise<void> {
      await sql.run("UPDATE owners SET password_hash = ? WHERE id = ?", [hash, ownerId]);
    },
    async insertSession(
      s: { id: string; ownerId: string; tokenHash: string; createdAt: string; secondFactor: boolean } & SessionOrigin,
    ): Promise<void> {
      await sql.run(
        "INSERT INTO sessions (id, owner_id, token_hash, created_at, last_seen_at, user_agent, address, second_factor) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [s.id, s.ownerId, s.tokenHash, s.createdAt, s.createdAt, s.userAgent, s.address, s.secondFactor ? 1 : 0],
      );
    },
    /** The session has proved a second factor since its login (its person enrolled one in it). */
    async markSecondFactor(id: string): Promise<void> {
      await sql.run("UPDATE sessions SET second_factor = 1 WHERE id = ?", [id]);
    },
    /** The owner's sessions, newest first (expired ones the housekeeping has not deleted yet among them). */
    listOwnerSessions: async (ownerId: string): Promise<(Session & SessionOrigin)[]> =>
      (
        await sql.all<SessionRow & { user_agent: string | null; address: string | null }>(
          `SELECT ${SESSION_COLUMNS}, user_agent, address FROM sessions WHERE owner_id = ? ORDER BY created_at DESC, id DESC`,
          [ownerId],
        )
      ).map((r) => ({ ...toSession(r), userAgent: r.user_agent, address: r.address })),
    /** Ends the owner's session `id`; false (nothing changed) when they have none by that id. */
    deleteOwnerSession: async (ownerId: string, id: string): Promise<boolean> =>
      (await sql.run("DELETE FROM sessions WHERE id = ? AND owner_id = ?", [id, ownerId])) > 0,
    /** Ends every session of the owner but `keep`; returns how many ended. */
    deleteOtherSessions: (ownerId: string, keep: string): Promise<number> =>
      sql.run("DELETE FROM sessions WHERE owner_id = ? AND id <> ?", [ownerId, keep]),
    async findSessionByTokenHash(hash: string): Promise<Session | null> {
      const row = await sql.get<SessionRow>(`SELECT ${SESSION_COLUMNS} FROM sessions WHERE token_hash = ?`, [hash]);
      return row ? toSession(row) : null;
    },
    async touchSession(id: string, at: string): Promise<void> {
      await sql.run("UPDATE sessions SET last_seen_at = ? WHERE id = ?", [at, id]);
    },
    async deleteSession(id: string): Promise<void> {
      await sql.run("DELETE FROM sessions WHERE id = ?", [id]);
    },
    /** Ends every session of the owner; returns how many there were. */
    deleteOwnerSessions,
    /** Deletes sessions last used before `idleBefore` or created before `createdBefore`; returns how many. */
    deleteExpiredSessions: (idleBefore: string, createdBefore: string): Promise<number> =>
      sql.run("DELETE FROM sessions WHERE last_seen_at < ? OR created_at < ?", [idleBefore, createdBefore]),

    /** Records one failed (or not yet finished) login of `name`. */
    async insertFailure(f: { id: string; scope: FailureScope; name: string; at: string }): Promise<void> {
      await sql.run("INSERT INTO login_failures (id, scope, name, at) VALUES (?, ?, ?, ?)", [
        f.id,
        f.scope,
        f.name,
        f.at,
      ]);
    },
    /** The failures of `name` after `since`, oldest first. */
    recentFailures: (scope: FailureScope, name: string, since: string) =>
      sql.all<{ id: string; at: string }>(
        "SELECT id, at FROM login_failures WHERE scope = ? AND name = ? AND at > ? ORDER BY at, id",
        [scope, name, since],
      ),
    deleteFailure: (id: string) => sql.run("DELETE FROM login_failures WHERE id = ?", [id]),
    clearFailures: (scope: FailureScope, name: string) =>
      sql.run("DELETE FROM login_failures WHERE scope = ? AND name = ?", [scope, name]),
    /** Whether any owner has a password: then first-run setup is over. */
    anyPassword: async (): Promise<boolean> =>
      (await sql.get("SELECT 1 AS one FROM owners WHERE password_hash IS NOT NULL LIMIT 1")) !== null,
    /** How many owners have no password (made on the command line, or not yet set up). */
    countWithoutPassword: async (): Promise<number> =>
      Number(
        (await sql.get<{ n: number | string }>("SELECT COUNT(*) AS n FROM owners WHERE password_hash IS NULL"))!.n,
      ),
    /** Keeps a setup link's hash until `expiresAt`; links lapsed before `now` are forgotten. */
    async insertSetupToken(hash: string, expiresAt: string, now: string): Promise<void> {
      await sql.run("DELETE FROM setup_tokens WHERE expires_at <= ?", [now]);
      await sql.run("INSERT INTO setup_tokens (token_hash, expires_at) VALUES (?, ?)", [hash, expiresAt]);
    },
    /**
     * Uses a setup link: when `hash` is a live link and no owner has a password yet, every link
     * goes (the first owner is being set) and true is returned; otherwise nothing changes. One
     * statement, so two setups racing on two instances cannot both win: the second finds no row.
     */
    useSetupToken: async (hash: string, now: string): Promise<boolean> =>
      (
        await sql.all<{ token_hash: string }>(
          `DELETE FROM setup_tokens WHERE EXISTS (SELECT 1 FROM setup_tokens WHERE token_hash = ?1 AND expires_at > ?2)
             AND NOT EXISTS (SELECT 1 FROM owners WHERE password_hash IS NOT NULL) RETURNING token_hash`,
          [hash, now],
        )
      ).some((r) => r.token_hash === hash),
    /** When the owner last asked for a reset link, if ever (while its row is kept). */
    lastResetAt: async (ownerId: string): Promise<string | null> =>
      (
        await sql.get<{ at: string | null }>("SELECT max(created_at) AS at FROM password_resets WHERE owner_id = ?", [
          ownerId,
        ])
      )?.at ?? null,
    async insertReset(r: { tokenHash: string; ownerId: string; createdAt: string; expiresAt: string }): Promise<void> {
      await sql.run("INSERT INTO password_resets (token_hash, owner_id, created_at, expires_at) VALUES (?, ?, ?, ?)", [
        r.tokenHash,
        r.ownerId,
        r.createdAt,
        r.expiresAt,
      ]);
    },
    /**
     * Uses a reset link and sets its owner's password in one transaction: every other link of the
     * owner is used up with it and every session of theirs ends. Returns the owner's id, or null
     * (nothing changed) for a link unknown, used or lapsed.
     */
    useReset: (tokenHash: string, passwordHash: string, now: string): Promise<string | null> =>
      sql.transaction(async () => {
        const row = await sql.get<{ owner_id: string }>(
          "UPDATE password_resets SET used_at = ?2 WHERE token_hash = ?1 AND used_at IS NULL AND expires_at > ?2 RETURNING owner_id",
          [tokenHash, now],
        );
        if (!row) return null;
        await sql.run("UPDATE password_resets SET used_at = ? WHERE owner_id = ? AND used_at IS NULL", [
          now,
          row.owner_id,
        ]);
        await sql.run("UPDATE owners SET password_hash = ?, password_set_at = ? WHERE id = ?", [
          passwordHash,
          now,
          row.owner_id,
        ]);
        await deleteOwnerSessions(row.owner_id);
        return row.owner_id;
      }),
    /** Forgets reset links lapsed before `before`, used or not. */
    deleteResetsBefore: (before: string): Promise<number> =>
      sql.run("DELETE FROM password_resets WHERE expires_at < ?", [before]),

    /** Deletes failures recorded before `before`; returns how many. */
    deleteFailuresBefore: (before: string) => sql.run("DELETE FROM login_failures WHERE at < ?", [before]),
  };
}

export type AccountsRepo = ReturnType<typeof createAccountsRepo>;
