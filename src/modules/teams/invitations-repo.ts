import type { Sql } from "../../db/sql";
import type { Role } from "../../lib/rights";

export interface InvitationRow {
  id: string;
  team_id: string;
  email: string;
  role: Role;
  invited_by: string;
  created_at: string;
  expires_at: string;
  accepted_at: string | null;
}

const COLUMNS = "id, team_id, email, role, invited_by, created_at, expires_at, accepted_at";

/** Invitations to teams: only a link's SHA-256 is kept, as for password resets. */
export function createInvitationsRepo(sql: Sql) {
  return {
    async insertInvitation(i: {
      id: string;
      teamId: string;
      email: string;
      role: Role;
      tokenHash: string;
      invitedBy: string;
      createdAt: string;
      expiresAt: string;
    }): Promise<void> {
      await sql.run(
        `INSERT INTO invitations (id, team_id, email, role, token_hash, invited_by, created_at, expires_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
        [i.id, i.teamId, i.email, i.role, i.tokenHash, i.invitedBy, i.createdAt, i.expiresAt],
      );
    },
    /** Drops the invitations of `email` to the team not yet accepted: a new one replaces them, and their links stop working. */
    deleteUnaccepted: (teamId: string, email: string): Promise<number> =>
      sql.run("DELETE FROM invitations WHERE team_id = ? AND email = ? AND accepted_at IS NULL", [teamId, email]),
    /** The team's invitations still usable at `now`, oldest first. */
    listPending: (teamId: string, now: string): Promise<InvitationRow[]> =>
      sql.all<InvitationRow>(
        `SELECT ${COLUMNS} FROM invitations WHERE team_id = ? AND accepted_at IS NULL AND expires_at > ?
         ORDER BY created_at, id`,
        [teamId, now],
      ),
    /** The role of a pending invitation (not yet accepted) of the team, by its address or its id; null for none. */
    pendingRole: async (teamId: string, by: { email: string } | { id: string }): Promise<Role | null> =>
      (
        await sql.get<{ role: Role }>(
          `SELECT role FROM invitations WHERE team_id = ?1 AND ${"email" in by ? "email" : "id"} = ?2 AND accepted_at IS NULL`,
          [teamId, "email" in by ? by.email : by.id],
        )
      )?.role ?? null,
    /** Deletes one of the team's invitations not yet accepted; false when there is none. */
    deletePending: async (teamId: string, id: string): Promise<boolean> =>
      (await sql.run("DELETE FROM invitations WHERE team_id = ? AND id = ? AND accepted_at IS NULL", [teamId, id])) > 0,
    /** The invitation of this link if it is still usable at `now` (not accepted, not expired), with its team's name. */
    findUsable: (tokenHash: string, now: string): Promise<(InvitationRow & { team_name: string }) | null> =>
      sql.get<InvitationRow & { team_name: string }>(
        `SELECT i.id, i.team_id, i.email, i.role, i.invited_by, i.created_at, i.expires_at, i.accepted_at, t.name AS team_name
         FROM invitations i JOIN teams t ON t.id = i.team_id
         WHERE i.token_hash = ? AND i.accepted_at IS NULL AND i.expires_at > ?`,
        [tokenHash, now],
      ),
    /** Marks the link's invitation accepted if it still is usable at `now`; the invitation, or null (used, expired, replaced, unknown). */
    use: (tokenHash: string, now: string): Promise<InvitationRow | null> =>
      sql.get<InvitationRow>(
        `UPDATE invitations SET accepted_at = ?2 WHERE token_hash = ?1 AND accepted_at IS NULL AND expires_at > ?2
         RETURNING ${COLUMNS}`,
        [tokenHash, now],
      ),
    /** Forgets invitations whose link lapsed before `now`, accepted or not (the audit trail keeps what happened). */
    deleteLapsed: (now: string): Promise<number> => sql.run("DELETE FROM invitations WHERE expires_at <= ?", [now]),
    /** The role in the team of the owner with this email, or null when they are no member. */
    roleOf: async (teamId: string, email: string): Promise<Role | null> =>
      (
        await sql.get<{ role: Role }>(
          "SELECT m.role FROM team_members m JOIN owners o ON o.id = m.owner_id WHERE m.team_id = ? AND o.email = ?",
          [teamId, email],
        )
      )?.role ?? null,
  };
}

export type InvitationsRepo = ReturnType<typeof createInvitationsRepo>;
