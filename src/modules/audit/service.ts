import { isoTime, type Clock } from "../../lib/clock";
import { actorOf, type AuditActor, type AuditAction, type AuditDetail, type AuditEvent } from "./model";
import type { AuditRepo } from "./repo";

/**
 * The audit trail: who changed what, for which owner. Callers record inside the transaction of
 * the change itself, so a change is never committed without its line. Never pass a secret or
 * submitted data (a key's secret, an erased address, a field's value): the trail keeps ids,
 * field names and counts.
 */
export function createAuditService(repo: AuditRepo, clock: Clock) {
  return {
    /** Records one change made by `actor` to `objectId`, on the actor's owner's data. */
    record(actor: AuditActor, action: AuditAction, objectId: string | null, detail?: AuditDetail): Promise<void> {
      const { kind, id } = actorOf(actor);
      return repo.insertEvent({
        at: isoTime(clock.now()),
        ownerId: actor.ownerId,
        actorKind: kind,
        actorId: id,
        action,
        objectId,
        detail: detail ? JSON.stringify(detail) : null,
      });
    },

    /** The newest events first, of one owner (by id) or of everyone. */
    list(filter: { ownerId: string | null; limit: number }): Promise<AuditEvent[]> {
      return repo.listEvents(filter.ownerId, filter.limit);
    },
  };
}

export type AuditService = ReturnType<typeof createAuditService>;
