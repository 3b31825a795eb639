import { Elysia } from "elysia";
import { noBody, requestContext, secret } from "../../http/context";
import { responses } from "../../http/docs";
import { FormIdParams } from "../../http/schemas";
import { AuditListSchema } from "../audit/model";
import { FormSchema, toFormJson } from "../forms/settings";
import {
  AuditQuery,
  DeletedTeamSchema,
  MemberParams,
  MemberRoleSchema,
  MoveFormSchema,
  TeamIdParams,
  TeamListSchema,
  TeamMemberListSchema,
  TeamMemberSchema,
  TeamNameSchema,
  TeamSchema,
} from "./model";
import type { TeamsService } from "./service";

const SCOPE =
  "Needs a secret key of all the team's forms or a session (a publishable or bound key is refused with 403 KEY_SCOPE); a caller outside the team gets 403 FORBIDDEN, a role too low 403 ROLE_TOO_LOW.";
const tags = ["Teams"];
// Listing one's teams asks no role in any team: it states the least right, which every member holds.
const ANY_MEMBER = "forms.read";

/** Teams, their members, their audit trail, and forms moving between them. Invitations are routes of their own. */
export function teamsRoutes(teams: TeamsService) {
  return new Elysia({ name: "teams-routes" })
    .use(requestContext)
    .get("/teams", async ({ principal }) => await teams.listTeams(principal), {
      auth: noBody(secret(ANY_MEMBER)),
      detail: {
        summary: "List the caller's teams",
        description:
          "The teams the caller reaches, oldest first, with its role in each: a session's memberships, a key's one team. A publishable key is refused with 403 KEY_SCOPE.",
        tags,
        responses: responses({ schema: TeamListSchema, description: "the caller's teams" }, 401, 403, 429),
      },
    })
    .post("/teams", async ({ body, principal }) => await teams.createTeam(principal, { name: body.name }), {
      // Teams are people's: a key acts in its one team and makes none.
      auth: "session",
      body: TeamNameSchema,
      detail: {
        summary: "Create a team",
        description:
          "A new team, of which the person logged in becomes the owner; forms, keys and members come later. Teams are people's: it takes a login session, not an API key, which acts in its one team (formsvc teams create makes one from the command line).",
        tags,
        responses: responses(
          { schema: TeamSchema, description: "the new team, the caller its owner" },
          400,
          401,
          403,
          429,
        ),
      },
    })
    .patch(
      "/teams/:teamId",
      async ({ body, params, principal }) => await teams.renameTeam(principal, params.teamId, body.name),
      {
        auth: secret("team.edit"),
        params: TeamIdParams,
        body: TeamNameSchema,
        detail: {
          summary: "Rename a team",
          description: `Sets the team's name. ${SCOPE}`,
          tags,
          responses: responses({ schema: TeamSchema, description: "the team as it is now" }, 400, 401, 403, 404, 429),
        },
      },
    )
    .delete("/teams/:teamId", async ({ params, principal }) => await teams.deleteTeam(principal, params.teamId), {
      auth: secret("team.delete"),
      params: TeamIdParams,
      detail: {
        summary: "Delete a team",
        description: `Deletes the team with its keys (which stop working at once), members and invitations; its audit trail stays for the operator. A personal team cannot be deleted, nor a team that still has forms: move them (POST /api/v1/forms/{formId}/move) or delete them first (409 CONFLICT). ${SCOPE}`,
        tags,
        responses: responses({ schema: DeletedTeamSchema, description: "deleted" }, 400, 401, 403, 404, 409, 429),
      },
    })
    .get("/teams/:teamId/members", async ({ params, principal }) => await teams.listMembers(principal, params.teamId), {
      auth: noBody(secret("members.read")),
      params: TeamIdParams,
      detail: {
        summary: "List a team's members",
        description: `Every member with their role, oldest first. ${SCOPE}`,
        tags,
        responses: responses(
          { schema: TeamMemberListSchema, description: "the team's members" },
          400,
          401,
          403,
          404,
          429,
        ),
      },
    })
    .patch(
      "/teams/:teamId/members/:ownerId",
      async ({ body, params, principal }) =>
        await teams.setMemberRole(principal, params.teamId, params.ownerId, body.role),
      {
        auth: secret("members.manage"),
        params: MemberParams,
        body: MemberRoleSchema,
        detail: {
          summary: "Change a member's role",
          description: `Admins manage the members below owner; only an owner may make an owner or change one (403 ROLE_TOO_LOW). The last owner cannot be demoted, nor a personal team's person (409 CONFLICT). The member's sessions act with the new role from their next request on. ${SCOPE}`,
          tags,
          responses: responses(
            { schema: TeamMemberSchema, description: "the member with their new role" },
            400,
            401,
            403,
            404,
            409,
            429,
          ),
        },
      },
    )
    .delete(
      "/teams/:teamId/members/:ownerId",
      async ({ params, principal }) => await teams.removeMember(principal, params.teamId, params.ownerId),
      {
        auth: secret("members.manage"),
        params: MemberParams,
        detail: {
          summary: "Remove a member, or leave a team",
          description: `Takes the member out of the team: admins remove members below owner, owners anyone. A person may remove themselves (leave) whatever their role, with their session. The last owner cannot leave or be removed, nor a personal team's person (409 CONFLICT). The member's sessions lose the team from their next request on; the keys they made stay the team's. ${SCOPE}`,
          tags,
          responses: responses(
            { schema: TeamMemberSchema, description: "the member as they were" },
            400,
            401,
            403,
            404,
            409,
            429,
          ),
        },
      },
    )
    .get(
      "/teams/:teamId/audit",
      async ({ params, query, principal }) =>
        await teams.auditTrail(principal, params.teamId, query.limit === undefined ? 100 : Number(query.limit)),
      {
        auth: noBody(secret("audit.read")),
        params: TeamIdParams,
        query: AuditQuery,
        detail: {
          summary: "A team's audit trail",
          description: `Who changed what in the team, newest first: the actor (a key or a member's session, with the person behind it, or the command line), the role it acted with, the action and its object; never a secret or submitted data. ${SCOPE}`,
          tags,
          responses: responses({ schema: AuditListSchema, description: "the newest events" }, 400, 401, 403, 404, 429),
        },
      },
    )
    .post(
      "/forms/:formId/move",
      async ({ body, params, principal }) => toFormJson(await teams.moveForm(principal, params.formId, body.teamId)),
      {
        auth: secret("forms.move"),
        params: FormIdParams,
        body: MoveFormSchema,
        detail: {
          summary: "Move a form to another team",
          description: `The form goes to the team named, with its submissions, files, webhooks and settings; the keys of the team it leaves no longer reach it. The caller must be an admin or owner of both teams (403 ROLE_TOO_LOW, or 403 FORBIDDEN outside either): so a key, which acts in one team, cannot move a form. Moving a form to its own team changes nothing. Needs a secret key of all the team's forms or a session.`,
          tags: ["Forms"],
          responses: responses(
            { schema: FormSchema, description: "the form in its new team, as Get Form shows it" },
            400,
            401,
            403,
            404,
            429,
          ),
        },
      },
    );
}
