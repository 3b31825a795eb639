import { isoTime, type Clock } from "../../lib/clock";
import { newId } from "../../lib/ids";
import type { OutboxRepo } from "../outbox/repo";
import type { NewSubmission } from "../submissions/model";
import type { WebhooksRepo } from "./repo";

/**
 * The submit pipeline's writer of webhook deliveries, inside the batch's transaction: one outbox
 * row per inbox submission and enabled webhook of its form (spam goes nowhere), each with the
 * `webhook-id` it keeps across retries and replays. A form's webhooks are read once per batch.
 */
export const queueWebhooks =
  (repo: WebhooksRepo, outbox: OutboxRepo, clock: Clock) =>
  async (batch: NewSubmission[]): Promise<number> => {
    let queued = 0;
    const hooks = new Map<string, { id: string; url: string }[]>();
    let now: string | undefined;
    for (const s of batch) {
      if (s.status !== "inbox") continue;
      let of = hooks.get(s.form.id);
      if (!of) hooks.set(s.form.id, (of = await repo.enabledWebhooksOfForm(s.form.id)));
      if (of.length === 0) continue;
      now ??= isoTime(clock.now());
      for (const hook of of) {
        queued += 1;
        await outbox.insert({
          kind: "webhook",
          formId: s.form.id,
          submissionId: s.id,
          webhookId: hook.id,
          messageId: newId("msg"),
          recipient: hook.url,
          formName: s.form.name,
          data: s.json,
          // The submission's spam verdict, so every retry and replay sends the same body.
          payload: s.spam ?? null,
          submittedAt: s.createdAt,
          createdAt: now,
        });
      }
    }
    return queued;
  };
