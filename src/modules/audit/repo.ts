import type { Sql } from "../../db/sql";
import type { Role } from "../../lib/rights";
import type { ActorKind, AuditAction, AuditEvent } from "./model";

interface Row {
  id: number;
  at: string;
  team_id: string;
  owner_email: string | null;
  actor_role: Role | null;
  actor_kind: ActorKind;
  actor_id: string;
  action: AuditAction;
  object_id: string | null;
  detail: string | null;
}

export function createAuditRepo(sql: Sql) {
  return {
    /** `ownerId` is the person behind the actor ("" for the command line and jobs). */
    async insertEvent(e: {
      at: string;
      teamId: string;
      ownerId: string;
      actorRole: Role | null;
      actorKind: ActorKind;
      actorId: string;
      action: AuditAction;
      objectId: string | null;
      detail: string | null;
    }): Promise<void> {
      await sql.run(
        `INSERT INTO audit_events (at, team_id, owner_id, actor_role, actor_kind, actor_id, action, object_id, detail)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [e.at, e.teamId, e.ownerId, e.actorRole, e.actorKind, e.actorId, e.action, e.objectId, e.detail],
      );
    },
    /** How many times `action` was recorded since `since`, in one team or by one person. */
    countSince: async (action: AuditAction, since: string, by: { teamId: string } | { ownerId: string }) =>
      (await sql.get<{ n: number; oldest: string | null }>(
        `SELECT CAST(count(*) AS INTEGER) AS n, min(at) AS oldest FROM audit_events
         WHERE ${"teamId" in by ? "team_id" : "owner_id"} = ?1 AND action = ?2 AND at > ?3`,
        ["teamId" in by ? by.teamId : by.ownerId, action, since],
      ))!,
    /** The newest `limit` events, of one team or of all; in the order they were committed, newest first. */
    async listEvents(teamId: string | null, limit: number): Promise<AuditEvent[]> {
      const rows = await sql.all<Row>(
        `SELECT a.*, o.email AS owner_email FROM audit_events a LEFT JOIN owners o ON o.id = a.owner_id
         WHERE CAST(?1 AS TEXT) IS NULL OR a.team_id = ?1 ORDER BY a.id DESC LIMIT ?2`,
        [teamId, limit],
      );
      return rows.map((r) => ({
        id: r.id,
        at: r.at,
        teamId: r.team_id,
        actorKind: r.actor_kind,
        actorId: r.actor_id,
        actorEmail: r.actor_kind === "key" || r.actor_kind === "session" ? r.owner_email : null,
        actorRole: r.actor_role,
        action: r.action,
        objectId: r.object_id,
        detail: r.detail === null ? null : (JSON.parse(r.detail) as AuditEvent["detail"]),
      }));
    },
  };
}

export type AuditRepo = ReturnType<typeof createAuditRepo>;
