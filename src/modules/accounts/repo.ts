import type { Database } from "bun:sqlite";

/** An owner as login sees it: the password hash, null while none is set. */
export interface Credentials {
  ownerId: string;
  email: string;
  createdAt: string;
  passwordHash: string | null;
}

export interface Session {
  id: string;
  ownerId: string;
  createdAt: string;
  lastSeenAt: string;
}

interface SessionRow {
  id: string;
  owner_id: string;
  created_at: string;
  last_seen_at: string;
}

const toSession = (r: SessionRow): Session => ({ id: r.id, ownerId: r.owner_id, createdAt: r.created_at, lastSeenAt: r.last_seen_at });

export function createAccountsRepo(db: Database) {
  const credentialsBy = (column: "email" | "id") =>
    db.query<{ id: string; email: string; created_at: string; password_hash: string | null }, [string]>(
      `SELECT id, email, created_at, password_hash FROM owners WHERE ${column} = ?`,
    );
  const byEmail = credentialsBy("email");
  const byId = credentialsBy("id");
  const toCredentials = (r: { id: string; email: string; created_at: string; password_hash: string | null } | null): Credentials | null =>
    r ? { ownerId: r.id, email: r.email, createdAt: r.created_at, passwordHash: r.password_hash } : null;
  const setHash = db.query("UPDATE owners SET password_hash = ?, password_set_at = ? WHERE id = ?");
  const deleteOwnerSessions = db.query("DELETE FROM sessions WHERE owner_id = ?");

  return {
    findCredentialsByEmail: (email: string): Credentials | null => toCredentials(byEmail.get(email)),
    findCredentialsById: (ownerId: string): Credentials | null => toCredentials(byId.get(ownerId)),
    /** Sets the owner's password hash and ends every session of theirs, in one transaction; returns how many ended. */
    replacePassword: db.transaction((ownerId: string, hash: string, at: string): number => {
      setHash.run(hash, at, ownerId);
      return deleteOwnerSessions.run(ownerId).changes;
    }),
    /** A rehash at login (new parameters, same password): sessions stay. */
    updatePasswordHash(ownerId: string, hash: string): void {
      db.query("UPDATE owners SET password_hash = ? WHERE id = ?").run(hash, ownerId);
    },
    insertSession(s: { id: string; ownerId: string; tokenHash: string; createdAt: string }): void {
      db.query("INSERT INTO sessions (id, owner_id, token_hash, created_at, last_seen_at) VALUES (?, ?, ?, ?, ?)").run(s.id, s.ownerId, s.tokenHash, s.createdAt, s.createdAt);
    },
    findSessionByTokenHash(hash: string): Session | null {
      const row = db.query<SessionRow, [string]>("SELECT id, owner_id, created_at, last_seen_at FROM sessions WHERE token_hash = ?").get(hash);
      return row ? toSession(row) : null;
    },
    touchSession(id: string, at: string): void {
      db.query("UPDATE sessions SET last_seen_at = ? WHERE id = ?").run(at, id);
    },
    deleteSession(id: string): void {
      db.query("DELETE FROM sessions WHERE id = ?").run(id);
    },
    /** Ends every session of the owner; returns how many there were. */
    deleteOwnerSessions: (ownerId: string): number => deleteOwnerSessions.run(ownerId).changes,
    /** Deletes sessions last used before `idleBefore` or created before `createdBefore`; returns how many. */
    deleteExpiredSessions(idleBefore: string, createdBefore: string): number {
      return db.query("DELETE FROM sessions WHERE last_seen_at < ? OR created_at < ?").run(idleBefore, createdBefore).changes;
    },
  };
}

export type AccountsRepo = ReturnType<typeof createAccountsRepo>;
