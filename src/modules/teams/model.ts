import { t, type Static } from "elysia";
import { OneOf, UnknownField } from "../../http/schemas";
import { ROLES, type Role } from "../../lib/rights";

const timestamp = t.String({ format: "date-time", description: "ISO 8601, UTC, milliseconds" });
const RoleSchema = t.Unsafe<Role>({
  type: "string",
  enum: [...ROLES],
  description:
    "viewer (reads), editor (forms and submissions), admin (members below owner, keys, webhooks), owner (everything)",
});

/** A team as the API shows it to one of its members: with that member's role (a key's own, for a key). */
export const TeamSchema = t.Object({
  id: t.String(),
  name: t.String(),
  personal: t.Boolean({ description: "a person's personal team, made with them: it is never deleted" }),
  role: RoleSchema,
  createdAt: timestamp,
});
export type Team = Static<typeof TeamSchema>;

export const TeamListSchema = t.Array(TeamSchema, {
  description: "the caller's teams, oldest first, with its role in each",
});

export const TeamMemberSchema = t.Object({
  ownerId: t.String(),
  email: t.String(),
  role: RoleSchema,
  joinedAt: timestamp,
});
export type TeamMember = Static<typeof TeamMemberSchema>;

export const TeamMemberListSchema = t.Array(TeamMemberSchema, { description: "the team's members, oldest first" });

const TeamName = t.String({
  minLength: 1,
  maxLength: 100,
  error: "name must be 1 to 100 characters",
  description: "what the team is called, 1 to 100 characters",
});

/** `POST /teams` and `PATCH /teams/{teamId}`: a team's name is all there is to set. */
export const TeamNameSchema = t.Object({ name: TeamName }, { additionalProperties: UnknownField });
export type TeamNameBody = Static<typeof TeamNameSchema>;

export const MemberRoleSchema = t.Object(
  {
    role: OneOf(ROLES, "role must be viewer, editor, admin or owner", {
      description: "the member's new role; only an owner may make an owner or change one",
    }),
  },
  { additionalProperties: UnknownField },
);
export type MemberRoleBody = Static<typeof MemberRoleSchema>;

export const MoveFormSchema = t.Object(
  {
    teamId: t.String({
      minLength: 1,
      maxLength: 200,
      error: "teamId must be a team id",
      description: "the team the form goes to, where the caller is an admin or owner too",
    }),
  },
  { additionalProperties: UnknownField },
);
export type MoveFormBody = Static<typeof MoveFormSchema>;

export const DeletedTeamSchema = t.Object({ id: t.String(), deleted: t.Literal(true) });
export type DeletedTeam = Static<typeof DeletedTeamSchema>;

const id = { minLength: 1, maxLength: 200 };
export const TeamIdParams = t.Object({ teamId: t.String({ ...id, error: "teamId must be a team id" }) });
export const MemberParams = t.Object({
  teamId: t.String({ ...id, error: "teamId must be a team id" }),
  ownerId: t.String({ ...id, error: "ownerId must be a member's owner id" }),
});

export const AuditQuery = t.Object({
  limit: t.Optional(
    t.String({
      pattern: "^(1000|[1-9][0-9]{0,2})$",
      error: "limit must be a whole number from 1 to 1000",
      description: "at most this many events, newest first, 1 to 1000 (default 100)",
    }),
  ),
});
