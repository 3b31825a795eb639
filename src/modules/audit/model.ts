import type { Actor } from "../../lib/principal";
import type { Role } from "../../lib/rights";

/** What the trail records. `owner.login` is written by the accounts module (a session's start). */
export const AUDIT_ACTIONS = [
  "key.created",
  "key.revoked",
  "form.created",
  "form.updated",
  "form.deleted",
  "form.moved",
  "submission.deleted",
  "submission.moved",
  "submissions.erased",
  "submissions.expired",
  "owner.login",
  "spam.reset",
  "member.invited",
  "member.joined",
  "invitation.cancelled",
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** How an actor reached formsvc: an API key, a dashboard session, the command line, or one of formsvc's own jobs. */
export type ActorKind = "key" | "session" | "cli" | "system";

/** Who did it: a caller, the command line, or a job acting on a form's settings (retention). */
export type AuditActor = Actor | { job: "retention" };

/** Facts about a change that are neither secrets nor submitted data: field names, counts, a key's kind. */
export type AuditDetail = Record<string, string | number | boolean | null | string[]>;

/** One line of the trail, as `formsvc audit --json` and `GET /teams/{teamId}/audit` show it. */
export interface AuditEvent {
  id: number;
  at: string;
  /** The team whose data changed. */
  teamId: string;
  actorKind: ActorKind;
  actorId: string;
  /** The person behind a session or who made the key; null for the command line and jobs. */
  actorEmail: string | null;
  /** The actor's role in the team when it acted; null for the command line and jobs. */
  actorRole: Role | null;
  action: AuditAction;
  objectId: string | null;
  detail: AuditDetail | null;
}

/** The kind and id of an actor: a principal's kind follows its keyId (`key_…`, `ses_…`, `cli`). */
export function actorOf(actor: AuditActor): { kind: ActorKind; id: string } {
  if ("job" in actor) return { kind: "system", id: actor.job };
  if ("operator" in actor || actor.keyId === "cli") return { kind: "cli", id: "cli" };
  if (actor.keyId.startsWith("ses_")) return { kind: "session", id: actor.keyId };
  return { kind: "key", id: actor.keyId };
}
