import type { Database } from "bun:sqlite";
import { atomically } from "../../db/transaction";
import type { KeyKind } from "../../lib/principal";

export interface ApiKey {
  id: string;
  ownerId: string;
  ownerEmail: string;
  name: string;
  kind: KeyKind;
  /** The forms a key is bound to; null = all its owner's forms. */
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
  name: string;
  kind: string;
  form_ids: string | null;
  prefix: string;
  active: number;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

const SELECT = `SELECT k.id, k.owner_id, o.email AS owner_email, k.name, k.kind, k.form_ids, k.prefix, k.active, k.created_at, k.last_used_at, k.revoked_at
  FROM api_keys k JOIN owners o ON o.id = k.owner_id`;

const toKey = (r: KeyRow): ApiKey => ({
  id: r.id,
  ownerId: r.owner_id,
  ownerEmail: r.owner_email,
  name: r.name,
  kind: r.kind as KeyKind,
  forms: r.form_ids === null ? null : (JSON.parse(r.form_ids) as string[]),
  prefix: r.prefix,
  active: r.active === 1,
  createdAt: r.created_at,
  lastUsedAt: r.last_used_at,
  revokedAt: r.revoked_at,
});

export function createKeysRepo(db: Database) {
  return {
    /** Runs writes (a change and its audit line) in one transaction. */
    atomically: atomically(db),
    insertKey(k: { id: string; ownerId: string; name: string; kind: KeyKind; forms: string[] | null; prefix: string; hash: string; createdAt: string }): void {
      db.query("INSERT INTO api_keys (id, owner_id, name, kind, form_ids, prefix, hash, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)").run(
        k.id, k.ownerId, k.name, k.kind, k.forms === null ? null : JSON.stringify(k.forms), k.prefix, k.hash, k.createdAt,
      );
    },
    findKeyByHash(hash: string): ApiKey | null {
      const row = db.query<KeyRow, [string]>(`${SELECT} WHERE k.hash = ?`).get(hash);
      return row ? toKey(row) : null;
    },
    findKeyById(id: string): ApiKey | null {
      const row = db.query<KeyRow, [string]>(`${SELECT} WHERE k.id = ?`).get(id);
      return row ? toKey(row) : null;
    },
    listKeys(ownerId: string | null): ApiKey[] {
      return db
        .query<KeyRow, [string | null]>(`${SELECT} WHERE ?1 IS NULL OR k.owner_id = ?1 ORDER BY k.created_at, k.id`)
        .all(ownerId)
        .map(toKey);
    },
    /** Whether it was active until now. */
    revokeKey(id: string, at: string): boolean {
      return db.query("UPDATE api_keys SET active = 0, revoked_at = ? WHERE id = ? AND active = 1").run(at, id).changes === 1;
    },
    touchKey(id: string, at: string): void {
      db.query("UPDATE api_keys SET last_used_at = ? WHERE id = ?").run(at, id);
    },
  };
}

export type KeysRepo = ReturnType<typeof createKeysRepo>;
