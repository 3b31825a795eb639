import { isoTime, type Clock } from "../../lib/clock";
import type { OutboxRepo, QueuedMessage } from "../outbox/repo";
import type { NewSubmission } from "../submissions/model";
import type { Form } from "../forms/model";
import type { ConfirmationsRepo } from "./repo";
import type { CommittedForms } from "../submissions/committed-forms";
import { CONFIRMATION_TTL_MS, hashConfirmationToken, newConfirmationToken } from "./token";

/**
 * The submit pipeline's writer of confirmation emails (double opt-in), inside the batch's
 * transaction: an inbox submission to a waitlist that asks for confirmation, from an address that
 * has no confirmation yet (or only an expired one), gets a new token and one email with its link.
 * The token rides in the outbox row until its email is sent; only its hash is kept after that.
 * Sent whether or not the form's email switch is on: the joiner cannot count without it.
 */
export const queueConfirmations =
  (repo: ConfirmationsRepo, forms: CommittedForms, outbox: OutboxRepo, clock: Clock) =>
  async (batch: NewSubmission[]): Promise<number> => {
    const messages: QueuedMessage[] = [];
    let now: number | undefined;
    for (const s of batch) {
      // The settings as committed, read once for the batch, as the joiners' tally reads them.
      if (s.status !== "inbox" || s.email === null || forms.of(s)?.rule !== "confirmed") continue;
      now ??= clock.now();
      const at = isoTime(now);
      if (!(await repo.needsConfirmation(s.form.id, s.email, at))) continue;
      const token = newConfirmationToken();
      await repo.issue(s.form.id, s.email, hashConfirmationToken(token), at, isoTime(now + CONFIRMATION_TTL_MS));
      messages.push({
        kind: "confirmation",
        formId: s.form.id,
        submissionId: s.id,
        recipient: s.email,
        formName: s.form.name,
        data: "{}",
        payload: JSON.stringify({ token }),
        submittedAt: s.createdAt,
        createdAt: at,
      });
    }
    await outbox.insertAll(messages);
    return messages.length;
  };

/**
 * The forms service's writer of recipients' confirmation emails, inside the form's transaction:
 * each address newly listed as a recipient gets a token and one email with its link
 * (`/confirm/<token>`, as a joiner's), and nothing else until it is opened. Sent whatever the
 * form's email switch: it is how the address agrees to be written to.
 */
export const queueRecipientConfirmations =
  (repo: ConfirmationsRepo, outbox: OutboxRepo, clock: Clock) =>
  async (form: Form, emails: string[]): Promise<void> => {
    const now = clock.now();
    const at = isoTime(now);
    for (const email of emails) {
      const token = newConfirmationToken();
      await repo.issueRecipient(form.id, email, hashConfirmationToken(token), at, isoTime(now + CONFIRMATION_TTL_MS));
      await outbox.insert({
        kind: "confirmation",
        formId: form.id,
        submissionId: null,
        recipient: email,
        formName: form.name,
        data: "{}",
        payload: JSON.stringify({ token, recipient: true }),
        submittedAt: at,
        createdAt: at,
      });
    }
  };
