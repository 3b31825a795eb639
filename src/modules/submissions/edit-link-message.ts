import { escapeHtml } from "../../lib/template";
import type { MailMessage } from "../outbox/message";
import type { OutboxRow } from "../outbox/repo";

/** What an `edit_link` outbox row carries until its email is out: the link's path (it is the credential) and its time. */
export interface EditLinkPayload {
  path: string;
  until: string;
}

/** The email a submitter asked for when the form refused a second answer: the link to change the first. */
export function renderEditLink(row: OutboxRow, publicUrl: string): MailMessage {
  const payload = JSON.parse(row.payload ?? "{}") as Partial<EditLinkPayload>;
  if (!payload.path) throw new Error("the edit link is gone (it was sent already)");
  const link = `${publicUrl.replace(/\/$/, "")}${payload.path}`;
  const until = new Date(payload.until ?? "").toUTCString();
  const sentence = `You asked for the link to change your answer to “${row.form_name}”. It works until ${until}.`;
  const note = "If you did not ask for it, ignore this email: nothing changes unless the link is used.";
  return {
    to: row.recipient,
    subject: `Change your answer to ${row.form_name}`.slice(0, 250),
    text: [sentence, "", link, "", note].join("\n"),
    html: [
      `<!doctype html><html><body style="font-family:sans-serif">`,
      `<p>${escapeHtml(sentence)}</p>`,
      `<p><a href="${escapeHtml(link)}">Change your answer</a></p>`,
      `<p style="color:#666">${escapeHtml(note)}</p>`,
      `</body></html>`,
    ].join("\n"),
    headers: { "Auto-Submitted": "auto-generated" },
  };
}
