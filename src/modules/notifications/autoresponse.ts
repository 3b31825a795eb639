import { isoTime, type Clock } from "../../lib/clock";
import { escapeHtml, renderHtml, renderText } from "../../lib/template";
import type { NewSubmission } from "../submissions/model";
import { oneLine, type MailMessage } from "../outbox/message";
import type { OutboxRepo, OutboxRow, QueuedMessage } from "../outbox/repo";

/** At most one autoresponse per address and form in this window. */
export const AUTORESPONSE_WINDOW_MS = 60 * 60 * 1000;

/** An inbox submission with an address, to a form whose email switch and autoresponse are on. */
const wantsAutoresponse = (s: NewSubmission) =>
  s.status === "inbox" && s.email !== null && s.form.emailEnabled && s.form.autoresponse.enabled;

/** A submission's edit link, absolute, and until when it works (editableDays); null when its form takes no edits or no link can be made. */
export type EditLinkOf = (s: NewSubmission) => { url: string; until: string } | null;

/**
 * The submit pipeline's writer of autoresponses, inside the batch's transaction: one email to the
 * submitter's extracted address, unless that address had one from this form within the hour (the
 * throttle is taken in the same transaction, so two submissions in one batch cannot both pass).
 * The row keeps the templates as they are now; a later edit of the form does not change it. With
 * edits allowed, it carries the submission's edit link.
 */
export const queueAutoresponses =
  (repo: OutboxRepo, clock: Clock, editLinkOf: EditLinkOf = () => null) =>
  async (batch: NewSubmission[]): Promise<number> => {
    const messages: QueuedMessage[] = [];
    let now: number | undefined;
    const owners = new Map<string, string | null>();
    for (const s of batch) {
      if (!wantsAutoresponse(s)) continue;
      now ??= clock.now();
      if (!(await repo.takeAutoresponseSlot(s.form.id, s.email!, isoTime(now), isoTime(now - AUTORESPONSE_WINDOW_MS))))
        continue;
      if (!owners.has(s.form.ownerId)) owners.set(s.form.ownerId, await repo.ownerEmail(s.form.ownerId));
      messages.push({
        kind: "autoresponse",
        formId: s.form.id,
        submissionId: s.id,
        recipient: s.email!,
        // Replies reach the owner, not formsvc's sender address.
        replyTo: owners.get(s.form.ownerId) ?? null,
        formName: s.form.name,
        data: s.json,
        payload: JSON.stringify({
          subject: s.form.autoresponse.subject,
          text: s.form.autoresponse.text,
          ...(s.form.editableDays !== null ? { edit: editLinkOf(s) ?? undefined } : {}),
        }),
        submittedAt: s.createdAt,
        createdAt: isoTime(now),
      });
    }
    await repo.insertAll(messages);
    return messages.length;
  };

/**
 * The autoresponse of a queued row: its templates filled from the submission's data, escaped in the
 * HTML part; then the edit link, when it carries one.
 */
export function renderAutoresponse(row: OutboxRow): MailMessage {
  const { subject, text, edit } = JSON.parse(row.payload ?? "{}") as {
    subject: string;
    text: string;
    edit?: { url: string; until: string };
  };
  const view = JSON.parse(row.data) as Record<string, unknown>;
  const until = edit && new Date(edit.until).toUTCString();
  return {
    to: row.recipient,
    ...(row.reply_to ? { replyTo: row.reply_to } : {}),
    subject: oneLine(renderText(subject, view)).slice(0, 250),
    text: renderText(text, view) + (edit ? `\n\nYou can change your answers until ${until}: ${edit.url}` : ""),
    html: `<!doctype html><html><body style="font-family:sans-serif"><div style="white-space:pre-wrap">${renderHtml(text, view)}</div>${edit ? `<p>You can <a href="${escapeHtml(edit.url)}">change your answers</a> until ${escapeHtml(until!)}.</p>` : ""}</body></html>`,
    // RFC 3834: an automatic answer; well-behaved mail systems do not answer it in turn.
    headers: { "Auto-Submitted": "auto-replied" },
  };
}
