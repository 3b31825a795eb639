import { isoTime, type Clock } from "../../lib/clock";
import type { AppError } from "../../lib/errors";
import { actorOf, type AuditActor, type AuditAction, type AuditDetail, type AuditEvent } from "./model";
import type { AuditRepo } from "./repo";

/**
 * The audit trail: who changed what, in which team, with which role. Callers record inside the transaction of
 * the change itself, so a change is never committed without its line. Never pass a secret or
 * submitted data (a key's secret, an erased address, a field's value): the trail keeps ids,
 * field names and counts.
 */
export function createAuditService(repo: AuditRepo, clock: Clock) {
  return {
    /** Records one change made by `actor` to `objectId`, in team `teamId`'s data. */
    record(
      actor: AuditActor,
      teamId: string,
      action: AuditAction,
      objectId: string | null,
      detail?: AuditDetail,
    ): Promise<void> {
      const { kind, id } = actorOf(actor);
      const person = "keyId" in actor && kind !== "cli" ? actor : null;
      return repo.insertEvent({
        at: isoTime(clock.now()),
        teamId,
        ownerId: person?.ownerId ?? "",
        actorRole: person?.teams.get(teamId) ?? null,
        actorKind: kind,
        actorId: id,
        action,
        objectId,
        detail: detail ? JSON.stringify(detail) : null,
      });
    },

    /**
     * Throws `refusal` (a 429, with Retry-After) when `action` was recorded `limit` times within the
     * last `withinMs`, in one team or by one person: the trail holds every such change, so the limits
     * on them count here.
     */
    async requireBelow(
      limit: number,
      action: AuditAction,
      withinMs: number,
      by: { teamId: string } | { ownerId: string },
      refusal: (retryAfterSeconds: number) => AppError,
    ): Promise<void> {
      const now = clock.now();
      const { n, oldest } = await repo.countSince(action, isoTime(now - withinMs), by);
      if (n < limit) return;
      throw refusal(Math.max(1, Math.ceil((Date.parse(oldest!) + withinMs - now) / 1000)));
    },

    /** The newest events first, of one team or of every team. */
    list(filter: { teamId: string | null; limit: number }): Promise<AuditEvent[]> {
      return repo.listEvents(filter.teamId, filter.limit);
    },
  };
}

export type AuditService = ReturnType<typeof createAuditService>;
