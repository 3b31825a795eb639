import type { Sql } from "../../db/sql";
import type { Role } from "../../lib/rights";
import type { TeamMember } from "./model";

interface TeamRow {
  id: string;
  name: string;
  personal_of: string | null;
  created_at: string;
}

export function createTeamsRepo(sql: Sql) {
  return {
    async insertTeam(t: { id: string; name: string; personalOf: string | null; createdAt: string }): Promise<void> {
      await sql.run("INSERT INTO teams (id, name, personal_of, created_at) VALUES (?, ?, ?, ?)", [
        t.id,
        t.name,
        t.personalOf,
        t.createdAt,
      ]);
    },
    findTeam: (id: string): Promise<TeamRow | null> =>
      sql.get<TeamRow>("SELECT id, name, personal_of, created_at FROM teams WHERE id = ?", [id]),
    /**
     * Holds the team's row until the transaction ends: changes to its members wait for each other
     * (PostgreSQL), so two owners demoting each other at once cannot leave it without one. SQLite's
     * writers wait for each other anyway.
     */
    async lockTeam(id: string): Promise<void> {
      await sql.run("UPDATE teams SET name = name WHERE id = ?", [id]);
    },
    async renameTeam(id: string, name: string): Promise<void> {
      await sql.run("UPDATE teams SET name = ? WHERE id = ?", [name, id]);
    },
    async deleteTeam(id: string): Promise<void> {
      await sql.run("DELETE FROM teams WHERE id = ?", [id]);
    },
    countForms: async (teamId: string): Promise<number> =>
      (await sql.get<{ n: number }>("SELECT CAST(count(*) AS INTEGER) AS n FROM forms WHERE team_id = ?", [teamId]))!.n,

    /** An owner's teams with their role in each, oldest first (the personal team is made with the owner). */
    teamsOf: (ownerId: string): Promise<(TeamRow & { role: Role })[]> =>
      sql.all<TeamRow & { role: Role }>(
        `SELECT t.id, t.name, t.personal_of, t.created_at, m.role FROM team_members m JOIN teams t ON t.id = m.team_id
         WHERE m.owner_id = ? ORDER BY t.created_at, t.id`,
        [ownerId],
      ),
    /** An owner's role in each of their teams: what a session reaches. */
    rolesOf: (ownerId: string): Promise<{ team_id: string; role: Role }[]> =>
      sql.all<{ team_id: string; role: Role }>("SELECT team_id, role FROM team_members WHERE owner_id = ?", [ownerId]),

    async insertMember(m: { teamId: string; ownerId: string; role: Role; at: string }): Promise<void> {
      await sql.run("INSERT INTO team_members (team_id, owner_id, role, created_at) VALUES (?, ?, ?, ?)", [
        m.teamId,
        m.ownerId,
        m.role,
        m.at,
      ]);
    },
    /** As insertMember, but a member already (say, by a sign-in a moment before) stays as they are. */
    async joinTeam(m: { teamId: string; ownerId: string; role: Role; at: string }): Promise<void> {
      await sql.run(
        "INSERT INTO team_members (team_id, owner_id, role, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (team_id, owner_id) DO NOTHING",
        [m.teamId, m.ownerId, m.role, m.at],
      );
    },
    async members(teamId: string): Promise<TeamMember[]> {
      const rows = await sql.all<{ owner_id: string; email: string; role: Role; created_at: string }>(
        `SELECT m.owner_id, o.email, m.role, m.created_at FROM team_members m JOIN owners o ON o.id = m.owner_id
         WHERE m.team_id = ? ORDER BY m.created_at, o.email`,
        [teamId],
      );
      return rows.map((r) => ({ ownerId: r.owner_id, email: r.email, role: r.role, joinedAt: r.created_at }));
    },
    member: (teamId: string, ownerId: string): Promise<{ role: Role } | null> =>
      sql.get<{ role: Role }>("SELECT role FROM team_members WHERE team_id = ? AND owner_id = ?", [teamId, ownerId]),
    countOwners: async (teamId: string): Promise<number> =>
      (await sql.get<{ n: number }>(
        "SELECT CAST(count(*) AS INTEGER) AS n FROM team_members WHERE team_id = ? AND role = 'owner'",
        [teamId],
      ))!.n,
    async setRole(teamId: string, ownerId: string, role: Role): Promise<void> {
      await sql.run("UPDATE team_members SET role = ? WHERE team_id = ? AND owner_id = ?", [role, teamId, ownerId]);
    },
    async removeMember(teamId: string, ownerId: string): Promise<void> {
      await sql.run("DELETE FROM team_members WHERE team_id = ? AND owner_id = ?", [teamId, ownerId]);
    },
  };
}

export type TeamsRepo = ReturnType<typeof createTeamsRepo>;
export type { TeamRow };
