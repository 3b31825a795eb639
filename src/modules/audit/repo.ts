import type { Sql } from "../../db/sql";
import type { ActorKind, AuditAction, AuditEvent } from "./model";

interface Row {
  id: number;
  at: string;
  owner_email: string | null;
  owner_id: string;
  actor_kind: ActorKind;
  actor_id: string;
  action: AuditAction;
  object_id: string | null;
  detail: string | null;
}

export function createAuditRepo(sql: Sql) {
  return {
    async insertEvent(e: {
      at: string;
      ownerId: string;
      actorKind: ActorKind;
      actorId: string;
      action: AuditAction;
      objectId: string | null;
      detail: string | null;
    }): Promise<void> {
      await sql.run(
        "INSERT INTO audit_events (at, owner_id, actor_kind, actor_id, action, object_id, detail) VALUES (?, ?, ?, ?, ?, ?, ?)",
        [e.at, e.ownerId, e.actorKind, e.actorId, e.action, e.objectId, e.detail],
      );
    },
    /** The newest `limit` events, of one owner or of all; in the order they were committed, newest first. */
    async listEvents(ownerId: string | null, limit: number): Promise<AuditEvent[]> {
      const rows = await sql.all<Row>(
        `SELECT a.*, o.email AS owner_email FROM audit_events a LEFT JOIN owners o ON o.id = a.owner_id
         WHERE CAST(?1 AS TEXT) IS NULL OR a.owner_id = ?1 ORDER BY a.id DESC LIMIT ?2`,
        [ownerId, limit],
      );
      return rows.map((r) => ({
        id: r.id,
        at: r.at,
        owner: r.owner_email ?? r.owner_id,
        actorKind: r.actor_kind,
        actorId: r.actor_id,
        action: r.action,
        objectId: r.object_id,
        detail: r.detail === null ? null : (JSON.parse(r.detail) as AuditEvent["detail"]),
      }));
    },
  };
}

export type AuditRepo = ReturnType<typeof createAuditRepo>;
