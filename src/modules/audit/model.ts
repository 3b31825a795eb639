import type { Principal } from "../../lib/principal";

/** What the trail records. `owner.login` is written by the accounts module (a session's start). */
export const AUDIT_ACTIONS = [
  "key.created",
  "key.revoked",
  "form.created",
  "form.updated",
  "form.deleted",
  "submission.deleted",
  "submission.moved",
  "submissions.erased",
  "submissions.expired",
  "owner.login",
  "spam.reset",
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** How an actor reached formsvc: an API key, a dashboard session, the command line, or one of formsvc's own jobs. */
export type ActorKind = "key" | "session" | "cli" | "system";

/** Who did it: a caller, or a job acting on an owner's settings (retention). */
export type AuditActor = Principal | { job: "retention"; ownerId: string };

/** Facts about a change that are neither secrets nor submitted data: field names, counts, a key's kind. */
export type AuditDetail = Record<string, string | number | boolean | null | string[]>;

/** One line of the trail, as `formsvc audit --json` prints it. */
export interface AuditEvent {
  id: number;
  at: string;
  owner: string;
  actorKind: ActorKind;
  actorId: string;
  action: AuditAction;
  objectId: string | null;
  detail: AuditDetail | null;
}

/** The kind and id of an actor: a principal's kind follows its keyId (`key_…`, `ses_…`, `cli`). */
export function actorOf(actor: AuditActor): { kind: ActorKind; id: string } {
  if ("job" in actor) return { kind: "system", id: actor.job };
  if (actor.keyId.startsWith("ses_")) return { kind: "session", id: actor.keyId };
  if (actor.keyId === "cli") return { kind: "cli", id: "cli" };
  return { kind: "key", id: actor.keyId };
}
