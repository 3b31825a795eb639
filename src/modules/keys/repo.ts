import type { Sql } from "../../db/sql";
import type { KeyKind } from "../../lib/principal";
import type { KeyRole } from "../../lib/rights";

export interface ApiKey {
  id: string;
  /** Who made it. */
  ownerId: string;
  ownerEmail: string;
  /** The team it acts in, and its role there. */
  teamId: string;
  role: KeyRole;
  name: string;
  kind: KeyKind;
  /** The forms a key is bound to; null = all its team's forms. */
  forms: string[] | null;
  prefix: string;
  active: boolean;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

interface KeyRow {
  id: string;
  owner_id: string;
  owner_email: string;
  team_id: string;
  role: KeyRole;
  name: string;
  kind: string;
  form_ids: string | null;
  prefix: string;
  active: number;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

const SELECT = `SELECT k.id, k.owner_id, o.email AS owner_email, k.team_id, k.role, k.name, k.kind, k.form_ids, k.prefix, k.active, k.created_at, k.last_used_at, k.revoked_at
  FROM api_keys k JOIN owners o ON o.id = k.owner_id`;

const toKey = (r: KeyRow): ApiKey => ({
  id: r.id,
  ownerId: r.owner_id,
  ownerEmail: r.owner_email,
  teamId: r.team_id,
  role: r.role,
  name: r.name,
  kind: r.kind as KeyKind,
  forms: r.form_ids === null ? null : (JSON.parse(r.form_ids) as string[]),
  prefix: r.prefix,
  active: r.active === 1,
  createdAt: r.created_at,
  lastUsedAt: r.last_used_at,
  revokedAt: r.revoked_at,
});

export function createKeysRepo(sql: Sql) {
  const one = async (where: string, value: string) => {
    const row = await sql.get<KeyRow>(`${SELECT} WHERE ${where} = ?`, [value]);
    return row ? toKey(row) : null;
  };
  return {
    async insertKey(k: {
      id: string;
      ownerId: string;
      teamId: string;
      role: KeyRole;
      name: string;
      kind: KeyKind;
      forms: string[] | null;
      prefix: string;
      hash: string;
      createdAt: string;
    }): Promise<void> {
      await sql.run(
        "INSERT INTO api_keys (id, owner_id, team_id, role, name, kind, form_ids, prefix, hash, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
          k.id,
          k.ownerId,
          k.teamId,
          k.role,
          k.name,
          k.kind,
          k.forms === null ? null : JSON.stringify(k.forms),
          k.prefix,
          k.hash,
          k.createdAt,
        ],
      );
    },
    findKeyByHash: (hash: string): Promise<ApiKey | null> => one("k.hash", hash),
    findKeyById: (id: string): Promise<ApiKey | null> => one("k.id", id),
    /** One team's keys, or every key. */
    async listKeys(teamId: string | null): Promise<ApiKey[]> {
      return (
        await sql.all<KeyRow>(
          `${SELECT} WHERE CAST(?1 AS TEXT) IS NULL OR k.team_id = ?1 ORDER BY k.created_at, k.id`,
          [teamId],
        )
      ).map(toKey);
    },
    /** The active keys one person made in one team. */
    activeKeysMadeBy: async (teamId: string, ownerId: string): Promise<ApiKey[]> =>
      (
        await sql.all<KeyRow>(`${SELECT} WHERE k.team_id = ?1 AND k.owner_id = ?2 AND k.active = 1 ORDER BY k.id`, [
          teamId,
          ownerId,
        ])
      ).map(toKey),
    async setKeyRole(id: string, role: KeyRole): Promise<void> {
      await sql.run("UPDATE api_keys SET role = ? WHERE id = ?", [role, id]);
    },
    /** Whether it was active until now. */
    async revokeKey(id: string, at: string): Promise<boolean> {
      return (
        (await sql.run("UPDATE api_keys SET active = 0, revoked_at = ? WHERE id = ? AND active = 1", [at, id])) === 1
      );
    },
    async touchKey(id: string, at: string): Promise<void> {
      await sql.run("UPDATE api_keys SET last_used_at = ? WHERE id = ?", [at, id]);
    },
  };
}

export type KeysRepo = ReturnType<typeof createKeysRepo>;
