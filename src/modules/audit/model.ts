import { t, type Static } from "elysia";
import type { Actor } from "../../lib/principal";
import { ROLES, type Role } from "../../lib/rights";

/** What the trail records. `owner.login` is written by the accounts module (a session's start). */
export const AUDIT_ACTIONS = [
  "key.created",
  "key.revoked",
  "key.role",
  "form.created",
  "form.updated",
  "form.deleted",
  "form.moved",
  "submission.deleted",
  "submission.moved",
  "submission.updated",
  "note.added",
  "note.deleted",
  "submissions.erased",
  "submissions.expired",
  "owner.login",
  "spam.reset",
  "team.created",
  "team.renamed",
  "team.deleted",
  "member.role",
  "member.removed",
  "member.invited",
  "member.joined",
  "invitation.cancelled",
  // Every call of the MCP endpoint's tools (modules/mcp), reads too: an assistant's reads are worth a trail.
  "mcp.list_forms",
  "mcp.get_form",
  "mcp.form_analytics",
  "mcp.search_submissions",
  "mcp.get_submission",
  "mcp.update_submission",
  "mcp.add_note",
  "mcp.mark_spam",
  "mcp.mark_not_spam",
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

const ACTOR_KINDS = ["key", "session", "cli", "system"] as const;
/** How an actor reached formsvc: an API key, a dashboard session, the command line, or one of formsvc's own jobs. */
export type ActorKind = (typeof ACTOR_KINDS)[number];

/** Who did it: a caller, the command line, or a job acting on a form's settings (retention). */
export type AuditActor = Actor | { job: "retention" };

/** Facts about a change that are neither secrets nor submitted data: field names, counts, a key's kind. */
export type AuditDetail = Record<string, string | number | boolean | null | string[]>;

const oneOf = <const T extends string>(values: readonly T[], description: string) =>
  t.Unsafe<T>({ type: "string", enum: [...values], description });

/** One line of the trail, as `formsvc audit --json` and `GET /teams/{teamId}/audit` show it. */
export const AuditEventSchema = t.Object({
  id: t.Number({ multipleOf: 1, minimum: 1, description: "increases with each event committed" }),
  at: t.String({ format: "date-time", description: "ISO 8601, UTC, milliseconds" }),
  teamId: t.String({ description: "the team whose data changed" }),
  actorKind: oneOf(ACTOR_KINDS, "an API key, a login session, the command line, or a job of formsvc's own"),
  actorId: t.String({ description: "the key's or session's id; cli; the job's name" }),
  actorEmail: t.Nullable(
    t.String({ description: "the person behind a session or who made the key; null for the command line and jobs" }),
  ),
  actorRole: t.Nullable(oneOf(ROLES, "the actor's role in the team when it acted; null for the command line and jobs")),
  action: oneOf(AUDIT_ACTIONS, "what was done"),
  objectId: t.Nullable(t.String({ description: "what it was done to: a form, submission, key, team or member id" })),
  detail: t.Nullable(
    t.Record(t.String(), t.Union([t.String(), t.Number(), t.Boolean(), t.Null(), t.Array(t.String())]), {
      description: "facts about the change that are neither secrets nor submitted data: field names, counts, roles",
    }),
  ),
});
export type AuditEvent = Static<typeof AuditEventSchema>;

export const AuditListSchema = t.Array(AuditEventSchema, { description: "the team's events, newest first" });

/** The kind and id of an actor: a principal's kind follows its keyId (`key_…`, `ses_…`, `cli`). */
export function actorOf(actor: AuditActor): { kind: ActorKind; id: string } {
  if ("job" in actor) return { kind: "system", id: actor.job };
  if ("operator" in actor || actor.keyId === "cli") return { kind: "cli", id: "cli" };
  if (actor.keyId.startsWith("ses_")) return { kind: "session", id: actor.keyId };
  return { kind: "key", id: actor.keyId };
}
