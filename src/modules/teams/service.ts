import type { Atomically } from "../../db/sql";
import { isoTime, type Clock } from "../../lib/clock";
import { AppError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { isOperator, publishableScope, requireOwnerScope, type Actor, type Principal } from "../../lib/principal";
import { authorize, type Right, type Role } from "../../lib/rights";
import type { AuditEvent } from "../audit/model";
import type { AuditService } from "../audit/service";
import type { Form } from "../forms/model";
import type { FormsService } from "../forms/service";
import type { KeysService } from "../keys/service";
import type { OwnersService } from "../owners/service";
import type { DeletedTeam, Team, TeamMember } from "./model";
import type { TeamRow, TeamsRepo } from "./repo";

export interface TeamsDeps {
  repo: TeamsRepo;
  owners: OwnersService;
  forms: Pick<FormsService, "moveForm">;
  audit: Pick<AuditService, "record" | "list" | "requireBelow">;
  atomically: Atomically;
  clock: Clock;
  /** The keys a member made follow their role, or stop when they leave (in the change's transaction); `forget` drops the key cache once it committed. */
  keys: Pick<KeysService, "followMember" | "forget">;
  /** What a form takes with it to another team, in the move's transaction; answers what to run once it committed. */
  formMoving: (form: Form, teamId: string) => Promise<() => void>;
  /** What a member's leaving changes beyond the team's own tables, in its transaction (their assignments). */
  memberLeaving?: (teamId: string, ownerId: string) => Promise<void>;
}

const NAME_MAX = 100;
/** Teams one person may make a day: each can send invitations, whose limit is per team. */
const TEAMS_PER_DAY = 10;
const DAY_MS = 24 * 60 * 60 * 1000;
// Control and format characters (a right-to-left override among them): a name is shown in invitation emails.
const UNPRINTABLE = /[\p{Cc}\p{Cf}]/u;

/** A team's name as given, trimmed: 400 when nothing (or too much) is left, or it holds what cannot be shown. */
function checkedName(name: string): string {
  const trimmed = name.trim();
  if (!trimmed || trimmed.length > NAME_MAX)
    throw new AppError("INVALID_PARAMETER", `name must be 1 to ${NAME_MAX} characters`);
  if (UNPRINTABLE.test(trimmed))
    throw new AppError("INVALID_PARAMETER", "name must not hold control or formatting characters");
  return trimmed;
}

/** A key acts in its one team; a session (or the command line acting as one person) is a person. */
const isKey = (p: Principal) => p.keyId.startsWith("key_");

const toTeam = (row: TeamRow, role: Role): Team => ({
  id: row.id,
  name: row.name,
  personal: row.personal_of !== null,
  role,
  createdAt: row.created_at,
});

/**
 * Teams and their members. A principal reaches a team it is a member of, with the right its route
 * states (`authorize`); the operator reaches every team and holds every right, as an owner would.
 * What holds for every team whoever acts: the last owner cannot leave or be demoted, a personal
 * team is never deleted and stays its person's, and a team with forms is not deleted. Each change
 * is recorded in the audit trail, in the transaction of the change.
 */
export function createTeamsService({
  repo,
  owners,
  forms,
  audit,
  atomically,
  clock,
  keys,
  formMoving,
  memberLeaving,
}: TeamsDeps) {
  /**
   * The team `actor` may act on with `right` (by default its route's), and its role there (null
   * for the operator): a publishable or bound key is refused (KEY_SCOPE), a non-member gets 403
   * FORBIDDEN as for another team's form, and a role below the right 403 ROLE_TOO_LOW.
   */
  const teamFor = async (
    actor: Actor,
    teamId: string,
    right?: Right,
  ): Promise<{ team: TeamRow; role: Role | null }> => {
    let role: Role | null = null;
    if (!isOperator(actor)) {
      requireOwnerScope(actor);
      role = authorize(actor, teamId, right);
    }
    // A session's memberships are read per request, a key's team is cached: either may outlive the team by a moment.
    const team = await repo.findTeam(teamId);
    if (!team) throw new AppError("NOT_FOUND", `no team with id ${teamId}`);
    return { team, role };
  };

  /** The member as the team lists them: 404 when they are none of its. */
  const memberOf = async (teamId: string, ownerId: string): Promise<TeamMember> => {
    const member = (await repo.members(teamId)).find((m) => m.ownerId === ownerId);
    if (!member) throw new AppError("NOT_FOUND", `team ${teamId} has no member ${ownerId}`);
    return member;
  };

  /** The checks every change to a member passes, whoever asks (the team locked meanwhile). */
  const mayChange = async (team: TeamRow, member: TeamMember, mine: Role | null, change: "demote" | "remove") => {
    if (team.personal_of === member.ownerId)
      throw new AppError(
        "CONFLICT",
        `this is ${member.email}'s personal team: they stay its owner, and cannot be ${change === "remove" ? "removed" : "demoted"}`,
      );
    if (member.role !== "owner") return;
    if (mine !== null && mine !== "owner")
      throw new AppError("ROLE_TOO_LOW", `only an owner can change or remove an owner; the caller is ${mine}`);
    if ((await repo.countOwners(team.id)) === 1)
      throw new AppError(
        "CONFLICT",
        change === "remove"
          ? "the last owner cannot leave the team: make another member an owner first, or delete the team"
          : "the last owner cannot be demoted: make another member an owner first",
      );
  };

  return {
    teamFor,

    /**
     * The caller's teams, oldest first, with its role in each: a session's memberships, a key's one
     * team. The operator names an owner (`owner`), whose teams these are (none for an owner never named).
     */
    async listTeams(actor: Actor, filter: { owner?: string } = {}): Promise<Team[]> {
      if (isOperator(actor)) {
        if (filter.owner === undefined) throw new AppError("INVALID_PARAMETER", "name the owner (--owner EMAIL)");
        const owner = await owners.findOwner(filter.owner);
        return owner ? (await repo.teamsOf(owner.id)).map((row) => toTeam(row, row.role)) : [];
      }
      // A bound key may still say which team it is in; it only may not change it.
      if (actor.kind === "publishable") throw publishableScope();
      const teams: Team[] = [];
      for (const [id, role] of actor.teams) {
        const row = await repo.findTeam(id);
        if (row) teams.push(toTeam(row, role));
      }
      return teams.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
    },

    /**
     * A new team, whose owner is the person acting (the operator names them: `owner`, created if
     * new). An API key cannot make one (403 KEY_SCOPE): a key acts in its one team, and teams are people's.
     */
    async createTeam(actor: Actor, input: { name: string; owner?: string }): Promise<Team> {
      const name = checkedName(input.name);
      let ownerId: string;
      if (isOperator(actor)) {
        if (input.owner === undefined) throw new AppError("INVALID_PARAMETER", "name the team's owner (--owner EMAIL)");
        ownerId = (await owners.ensureOwner(input.owner)).id;
      } else {
        // The route takes a session alone; a key acts in its one team and makes none.
        if (isKey(actor) || actor.kind === "publishable")
          throw new Error("teams are made by people: a session or the operator");
        ownerId = actor.ownerId;
        await audit.requireBelow(
          TEAMS_PER_DAY,
          "team.created",
          DAY_MS,
          { ownerId },
          (wait) =>
            new AppError(
              "RATE_LIMITED",
              `a person makes at most ${TEAMS_PER_DAY} teams in 24 hours: try again in ${Math.ceil(wait / 3600)} h`,
              { "retry-after": String(wait) },
            ),
        );
      }
      const row = { id: newId("tm"), name, personal_of: null, created_at: isoTime(clock.now()) };
      // Recorded as the owner the person now is there (the command line's line stays the command line's).
      const recorded = isOperator(actor)
        ? actor
        : { ...actor, teams: new Map<string, Role>([...actor.teams, [row.id, "owner"]]) };
      await atomically(async () => {
        await repo.insertTeam({ id: row.id, name, personalOf: null, createdAt: row.created_at });
        await repo.insertMember({ teamId: row.id, ownerId, role: "owner", at: row.created_at });
        await audit.record(recorded, row.id, "team.created", row.id, { name });
      });
      return toTeam(row, "owner");
    },

    /** Renames the team (right team.edit); the operator is answered as an owner would be. */
    async renameTeam(actor: Actor, teamId: string, name: string): Promise<Team> {
      const { team, role } = await teamFor(actor, teamId);
      const renamed = checkedName(name);
      if (renamed !== team.name)
        await atomically(async () => {
          await repo.renameTeam(teamId, renamed);
          await audit.record(actor, teamId, "team.renamed", teamId, { from: team.name, to: renamed });
        });
      return toTeam({ ...team, name: renamed }, role ?? "owner");
    },

    /**
     * Deletes the team with its keys, members and invitations (right team.delete): 409 for a
     * personal team, and for one that still has forms (they are moved or deleted first, so that no
     * submission goes with a team by accident). Its audit trail stays, for the operator.
     */
    async deleteTeam(actor: Actor, teamId: string): Promise<DeletedTeam> {
      const { team } = await teamFor(actor, teamId);
      if (team.personal_of !== null)
        throw new AppError("CONFLICT", "a personal team is made with its person and cannot be deleted");
      await atomically(async () => {
        await repo.lockTeam(teamId);
        const count = await repo.countForms(teamId);
        if (count > 0)
          throw new AppError(
            "CONFLICT",
            `the team still has ${count} form${count === 1 ? "" : "s"}: move them to another team (POST /api/v1/forms/{formId}/move) or delete them first`,
          );
        await audit.record(actor, teamId, "team.deleted", teamId, { name: team.name });
        await repo.deleteTeam(teamId);
      });
      keys.forget();
      return { id: teamId, deleted: true };
    },

    /** The team's members, oldest first (right members.read). */
    async listMembers(actor: Actor, teamId: string): Promise<TeamMember[]> {
      await teamFor(actor, teamId);
      return repo.members(teamId);
    },

    /**
     * Gives a member another role (right members.manage): only an owner (or the operator) may make an
     * owner or change one; the last owner is not demoted (409), nor a personal team's person.
     */
    async setMemberRole(actor: Actor, teamId: string, ownerId: string, role: Role): Promise<TeamMember> {
      const { team, role: mine } = await teamFor(actor, teamId);
      return atomically(async () => {
        await repo.lockTeam(teamId);
        const member = await memberOf(teamId, ownerId);
        if (member.role === role) return member;
        if (role === "owner" && mine !== null && mine !== "owner")
          throw new AppError("ROLE_TOO_LOW", `only an owner can make an owner; the caller is ${mine}`);
        await mayChange(team, member, mine, "demote");
        await repo.setRole(teamId, ownerId, role);
        await audit.record(actor, teamId, "member.role", ownerId, { email: member.email, from: member.role, to: role });
        await keys.followMember(actor, teamId, ownerId, role);
        return { ...member, role };
      }).finally(keys.forget);
    },

    /**
     * Takes a member out of the team (right members.manage; an owner only by an owner), or lets a
     * person leave it, whatever their role; never its last owner, nor a personal team's person (409).
     * Their sessions lose the team from their next request on, and the keys they made there stop.
     */
    async removeMember(actor: Actor, teamId: string, ownerId: string): Promise<TeamMember> {
      const leaving = !isOperator(actor) && !isKey(actor) && actor.ownerId === ownerId;
      const { team, role: mine } = await teamFor(actor, teamId, leaving ? "members.read" : undefined);
      return atomically(async () => {
        await repo.lockTeam(teamId);
        const member = await memberOf(teamId, ownerId);
        await mayChange(team, member, leaving ? null : mine, "remove");
        await repo.removeMember(teamId, ownerId);
        await memberLeaving?.(teamId, ownerId);
        await audit.record(actor, teamId, "member.removed", ownerId, {
          email: member.email,
          role: member.role,
          left: leaving,
        });
        await keys.followMember(actor, teamId, ownerId, null);
        return member;
      }).finally(keys.forget);
    },

    /**
     * Moves a form into another team, the caller an admin or owner of both (forms.moveForm), with
     * what it takes along (`formMoving`: its files; the spam lessons its submissions taught the team
     * it leaves are taken back out of that team's filter).
     */
    moveForm: (actor: Actor, formId: string, teamId: string): Promise<Form> =>
      forms.moveForm(actor, formId, teamId, {
        teamExists: async (id) => (await repo.findTeam(id)) !== null,
        moving: formMoving,
      }),

    /** The team's audit trail, newest first (right audit.read). */
    async auditTrail(actor: Actor, teamId: string, limit: number): Promise<AuditEvent[]> {
      await teamFor(actor, teamId);
      return audit.list({ teamId, limit });
    },
  };
}

export type TeamsService = ReturnType<typeof createTeamsService>;
