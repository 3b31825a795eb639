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

/** What a triage change or its submitter's edit did to a submission: the `data` of its `submission.updated` event. */
export interface SubmissionUpdate {
  id: string;
  formId: string;
  /** Which of state, assignee, tags, notes and (the submitter's edit) data changed. */
  changed: ("state" | "assignee" | "tags" | "notes" | "data")[];
  state: string;
  assignee: string | null;
  tags: string[];
  noteCount: number;
  /** What the changed fields were before (not notes; of data, the fields that changed). */
  previous: { state?: string; assignee?: string | null; tags?: string[]; data?: Record<string, unknown> };
  /** The submitter's edit: the values now, and the revision that keeps the earlier ones. */
  data?: Record<string, unknown>;
  revision?: number;
  /** The note added, or the id of the one deleted. */
  note?: { id: string; author: string | null; text: string; createdAt: string };
  deletedNote?: string;
}

/**
 * Queues a `submission.updated` delivery to each enabled webhook of the form, inside the change's
 * transaction; the event is kept whole in the row (`data`), so every retry and replay sends the
 * same bytes. Resolves with how many it queued.
 */
export const queueUpdates =
  (outbox: Pick<OutboxRepo, "insertAll">, clock: Clock) =>
  async (
    form: { id: string; name: string },
    hooks: { id: string; url: string; enabled: boolean }[],
    updates: { update: SubmissionUpdate; submittedAt: string }[],
  ): Promise<number> => {
    const enabled = hooks.filter((h) => h.enabled);
    if (enabled.length === 0 || updates.length === 0) return 0;
    const now = isoTime(clock.now());
    const messages: QueuedMessage[] = updates.flatMap(({ update, submittedAt }) =>
      enabled.map((hook) => ({
        kind: "webhook_update" as const,
        formId: form.id,
        submissionId: update.id,
        webhookId: hook.id,
        messageId: newId("msg"),
        recipient: hook.url,
        formName: form.name,
        data: JSON.stringify(update),
        submittedAt,
        createdAt: now,
      })),
    );
    await outbox.insertAll(messages);
    return messages.length;
  };
