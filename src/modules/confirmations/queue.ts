import { isoTime, type Clock } from "../../lib/clock";
import { AppError } from "../../lib/errors";
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

/** How many recipients' confirmation emails one sender's forms may queue a day, all forms together. */
export const RECIPIENT_CONFIRMATIONS_PER_DAY = 50;
/** The window the daily limit counts in; what is older counts no more (and is forgotten). */
export const LIMIT_WINDOW_MS = 24 * 60 * 60 * 1000;

/** Whose daily limit a form's confirmation emails count against: its team's, all its forms together. */
const senderOf = (form: Form) => form.teamId;

/**
 * The forms service's writer of recipients' confirmation emails, inside the form's transaction:
 * each address newly listed as a recipient gets a token and one email with its link
 * (`/confirm/<token>`, as a joiner's), and nothing else until it confirms. Sent whatever the form's
 * email switch: it is how the address agrees to be written to. The emails are limits' business, as
 * anyone with an account could otherwise mail anyone: an address that still has a link to the form
 * (removed and listed again) keeps it and gets nothing; one the sender wrote to within a day gets
 * its email a day after that one; more than RECIPIENT_CONFIRMATIONS_PER_DAY a day is a 429, and the
 * transaction's rollback leaves the settings as they were.
 */
export const queueRecipientConfirmations =
  (repo: ConfirmationsRepo, outbox: OutboxRepo, clock: Clock) =>
  async (form: Form, emails: string[]): Promise<void> => {
    const now = clock.now();
    const at = isoTime(now);
    const unlinked: string[] = [];
    for (const email of emails) if (!(await repo.hasRecipientLink(form.id, email, at))) unlinked.push(email);
    if (unlinked.length === 0) return;
    const sender = senderOf(form);
    const recent = await repo.emailsSince(sender, isoTime(now - LIMIT_WINDOW_MS));
    if (recent.length + unlinked.length > RECIPIENT_CONFIRMATIONS_PER_DAY) {
      const oldest = Math.min(...recent.map((r) => Date.parse(r.due_at)));
      const wait = Math.max(1, Math.ceil((oldest + LIMIT_WINDOW_MS - now) / 1000));
      throw new AppError(
        "TOO_MANY_CONFIRMATIONS",
        `your forms may send ${RECIPIENT_CONFIRMATIONS_PER_DAY} recipient confirmation emails in 24 hours and have sent ${recent.length}; ` +
          `${unlinked.length} more would pass that, so nothing was changed: try again in ${Math.ceil(wait / 3600)} h`,
        { "retry-after": String(wait) },
      );
    }
    const lastTo = new Map<string, number>();
    for (const r of recent) lastTo.set(r.email, Math.max(lastTo.get(r.email) ?? 0, Date.parse(r.due_at)));
    for (const email of unlinked) {
      const last = lastTo.get(email);
      const due = last === undefined ? now : Math.max(now, last + LIMIT_WINDOW_MS);
      const dueAt = isoTime(due);
      const token = newConfirmationToken();
      await repo.issueRecipient(form.id, email, hashConfirmationToken(token), at, isoTime(due + CONFIRMATION_TTL_MS));
      await repo.recordEmail(sender, email, dueAt);
      // Queued to fall due then: the outbox sends nothing before.
      await outbox.insert({
        kind: "confirmation",
        formId: form.id,
        submissionId: null,
        recipient: email,
        formName: form.name,
        data: "{}",
        payload: JSON.stringify({ token, recipient: true }),
        submittedAt: at,
        createdAt: dueAt,
      });
    }
  };
