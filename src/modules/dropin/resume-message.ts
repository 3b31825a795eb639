import { escapeHtml } from "../../lib/template";
import type { MailMessage } from "../outbox/message";
import type { OutboxRow } from "../outbox/repo";
import { PARTIAL_DAYS } from "./partials-model";

/** The address of a saved answer's page, below formsvc's origin: the hosted form, filled in. */
export const resumePath = (formId: string, token: string) =>
  `/f/${encodeURIComponent(formId)}/resume?token=${encodeURIComponent(token)}`;

/** The email a visitor asked for with the link to finish a saved answer, in a text and an HTML part. */
export function renderResumeLink(row: OutboxRow, publicUrl: string): MailMessage {
  const { token } = JSON.parse(row.payload ?? "{}") as { token?: string };
  if (!token || !row.form_id) throw new Error("the resume link's token is gone (it was sent already)");
  const link = `${publicUrl}${resumePath(row.form_id, token)}`;
  const note = `The link keeps your answers for ${PARTIAL_DAYS} days after you last saved them. Anyone with it can see and send them, so keep it to yourself. If you did not ask for it, ignore this email.`;
  const intro = `You saved your answers to "${row.form_name}" to finish later. Continue here:`;
  return {
    to: row.recipient,
    subject: `Finish your answers to ${row.form_name}`,
    text: [intro, "", link, "", note].join("\n"),
    html: [
      `<!doctype html><html><body style="font-family:sans-serif">`,
      `<p>${escapeHtml(intro)}</p>`,
      `<p><a href="${escapeHtml(link)}">Continue where you left off</a></p>`,
      `<p style="color:#666">${escapeHtml(note)}</p>`,
      `</body></html>`,
    ].join("\n"),
    headers: { "Auto-Submitted": "auto-generated" },
  };
}
