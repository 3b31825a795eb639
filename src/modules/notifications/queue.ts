import { isoTime, type Clock } from "../../lib/clock";
import type { NewSubmission } from "../submissions/model";
import type { OutboxRepo } from "../outbox/repo";

/** An inbox submission to a form whose owner asked to be emailed about each one (spam never is). */
export const wantsNotification = (s: NewSubmission) =>
  s.status === "inbox" && s.form.emailEnabled && s.form.developerNotifications;

/**
 * The submit pipeline's writer of owner notifications: one outbox row per submission that asks for
 * an email, inside the batch's transaction. A row is queued (and its retry horizon starts) now,
 * also for a submission moved out of spam long after it arrived.
 */
export const queueNotifications =
  (repo: OutboxRepo, clock: Clock) =>
  async (batch: NewSubmission[]): Promise<number> => {
    let queued = 0;
    const owners = new Map<string, string | null>();
    let now: string | undefined;
    for (const s of batch) {
      if (!wantsNotification(s)) continue;
      if (!owners.has(s.form.ownerId)) owners.set(s.form.ownerId, await repo.ownerEmail(s.form.ownerId));
      const recipient = owners.get(s.form.ownerId);
      if (!recipient) continue;
      now ??= isoTime(clock.now());
      queued += 1;
      await repo.insert({
        kind: "notification",
        formId: s.form.id,
        submissionId: s.id,
        recipient,
        replyTo: s.email,
        formName: s.form.name,
        data: s.json,
        submittedAt: s.createdAt,
        createdAt: now,
      });
    }
    return queued;
  };
