import { isoTime, type Clock } from "../../lib/clock";
import { newId } from "../../lib/ids";
import type { OutboxRepo, QueuedMessage } from "../outbox/repo";
import type { CommittedForms } from "../submissions/committed-forms";
import type { NewSubmission } from "../submissions/model";

/**
 * The submit pipeline's writer of webhook deliveries, inside the batch's transaction: one outbox
 * row per inbox submission and enabled webhook of its form (spam goes nowhere), each with the
 * `webhook-id` it keeps across retries and replays. The webhooks are those the batch's one read
 * of its forms found (committed-forms.ts).
 */
export const queueWebhooks =
  (forms: CommittedForms, outbox: OutboxRepo, clock: Clock) =>
  async (batch: NewSubmission[]): Promise<number> => {
    const messages: QueuedMessage[] = [];
    let now: string | undefined;
    for (const s of batch) {
      if (s.status !== "inbox") continue;
      const of = forms.of(s)?.webhooks ?? [];
      if (of.length === 0) continue;
      now ??= isoTime(clock.now());
      for (const hook of of) {
        messages.push({
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
    await outbox.insertAll(messages);
    return messages.length;
  };
