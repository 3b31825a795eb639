import type { Sql } from "../../db/sql";

/** A passkey as stored: `publicKey` is the COSE key, base64url; `transports` as the browser named them. */
export interface PasskeyRow {
  id: string;
  ownerId: string;
  credentialId: string;
  publicKey: string;
  counter: number;
  transports: string[];
  name: string;
  createdAt: string;
  lastUsedAt: string | null;
}

interface Row {
  id: string;
  owner_id: string;
  credential_id: string;
  public_key: string;
  counter: number | string;
  transports: string;
  name: string;
  created_at: string;
  last_used_at: string | null;
}

const COLUMNS = "id, owner_id, credential_id, public_key, counter, transports, name, created_at, last_used_at";

const toPasskey = (r: Row): PasskeyRow => ({
  id: r.id,
  ownerId: r.owner_id,
  credentialId: r.credential_id,
  publicKey: r.public_key,
  counter: Number(r.counter),
  transports: JSON.parse(r.transports) as string[],
  name: r.name,
  createdAt: r.created_at,
  lastUsedAt: r.last_used_at,
});

export function createPasskeysRepo(sql: Sql) {
  return {
    /** The person's user handle, made (from `fresh`) on first use; two first uses at once agree on one. */
    async userHandle(ownerId: string, fresh: string): Promise<string> {
      await sql.run(
        "INSERT INTO passkey_users (owner_id, user_handle) VALUES (?, ?) ON CONFLICT (owner_id) DO NOTHING",
        [ownerId, fresh],
      );
      return (await sql.get<{ user_handle: string }>("SELECT user_handle FROM passkey_users WHERE owner_id = ?", [
        ownerId,
      ]))!.user_handle;
    },
    /** The person a user handle is of, if any. */
    handleOwner: async (handle: string): Promise<string | null> =>
      (await sql.get<{ owner_id: string }>("SELECT owner_id FROM passkey_users WHERE user_handle = ?", [handle]))
        ?.owner_id ?? null,
    list: async (ownerId: string): Promise<PasskeyRow[]> =>
      (await sql.all<Row>(`SELECT ${COLUMNS} FROM passkeys WHERE owner_id = ? ORDER BY created_at, id`, [ownerId])).map(
        toPasskey,
      ),
    byCredential: async (credentialId: string): Promise<PasskeyRow | null> => {
      const r = await sql.get<Row>(`SELECT ${COLUMNS} FROM passkeys WHERE credential_id = ?`, [credentialId]);
      return r ? toPasskey(r) : null;
    },
    /** Stores a new passkey; false when its credential is registered already (to anyone). */
    insert: async (p: PasskeyRow): Promise<boolean> =>
      (await sql.run(
        `INSERT INTO passkeys (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL) ON CONFLICT (credential_id) DO NOTHING`,
        [p.id, p.ownerId, p.credentialId, p.publicKey, p.counter, JSON.stringify(p.transports), p.name, p.createdAt],
      )) > 0,
    rename: async (ownerId: string, id: string, name: string): Promise<PasskeyRow | null> => {
      const r = await sql.get<Row>(`UPDATE passkeys SET name = ? WHERE id = ? AND owner_id = ? RETURNING ${COLUMNS}`, [
        name,
        id,
        ownerId,
      ]);
      return r ? toPasskey(r) : null;
    },
    remove: async (ownerId: string, id: string): Promise<boolean> =>
      (await sql.run("DELETE FROM passkeys WHERE id = ? AND owner_id = ?", [id, ownerId])) > 0,
    /** Removes every passkey of the person (the operator's second factor reset); returns how many. */
    removeAll: (ownerId: string): Promise<number> => sql.run("DELETE FROM passkeys WHERE owner_id = ?", [ownerId]),
    /**
     * Records a login and its counter, if the stored one is still the one it was checked against
     * (one statement: two logins racing with one counter value cannot both pass).
     */
    used: async (id: string, checkedAgainst: number, counter: number, at: string): Promise<boolean> =>
      (await sql.run("UPDATE passkeys SET counter = ?, last_used_at = ? WHERE id = ? AND counter = ?", [
        counter,
        at,
        id,
        checkedAgainst,
      ])) > 0,
    async insertChallenge(c: { hash: string; ownerId: string | null; expiresAt: string; now: string }): Promise<void> {
      await sql.run("DELETE FROM passkey_challenges WHERE expires_at <= ?", [c.now]);
      await sql.run("INSERT INTO passkey_challenges (challenge_hash, owner_id, expires_at) VALUES (?, ?, ?)", [
        c.hash,
        c.ownerId,
        c.expiresAt,
      ]);
    },
    /**
     * Uses a live challenge up, once (one statement: two instances cannot both use it): a
     * registration's of `ownerId`, or a login's (`ownerId` null). Answers whether it was there.
     */
    takeChallenge: async (hash: string, ownerId: string | null, now: string): Promise<boolean> =>
      (await sql.run(
        `DELETE FROM passkey_challenges WHERE challenge_hash = ? AND expires_at > ? AND ${ownerId === null ? "owner_id IS NULL" : "owner_id = ?"}`,
        ownerId === null ? [hash, now] : [hash, now, ownerId],
      )) > 0,
    /** Forgets challenges that have lapsed unused. */
    deleteLapsedChallenges: (now: string): Promise<number> =>
      sql.run("DELETE FROM passkey_challenges WHERE expires_at <= ?", [now]),
  };
}

export type PasskeysRepo = ReturnType<typeof createPasskeysRepo>;
