import { escapeHtml } from "../../lib/template";
import type { MailMessage } from "../outbox/message";
import { oneLine } from "../outbox/message";
import type { OutboxRow } from "../outbox/repo";

/** The joiner's confirmation email: one link to `publicUrl`/confirm/<token>, in a text and an HTML part. */
export function renderConfirmation(row: OutboxRow, publicUrl: string): MailMessage {
  const { token } = JSON.parse(row.payload ?? "{}") as { token?: string };
  if (!token) throw new Error("the confirmation's token is gone (it was sent already)");
  const link = `${publicUrl}/confirm/${token}`;
  const name = oneLine(row.form_name);
  const subject = `Confirm your place on ${name}`;
  const text = [
    `Please confirm that you want to join ${name}:`,
    "",
    link,
    "",
    "The link works for 7 days. If you did not sign up, ignore this email: nothing happens without your click.",
  ].join("\n");
  const html = [
    `<!doctype html><html><body style="font-family:sans-serif">`,
    `<p>Please confirm that you want to join <b>${escapeHtml(name)}</b>:</p>`,
    `<p><a href="${escapeHtml(link)}">Confirm my place</a></p>`,
    `<p style="color:#666">The link works for 7 days. If you did not sign up, ignore this email: nothing happens without your click.</p>`,
    `</body></html>`,
  ].join("\n");
  return { to: row.recipient, subject, text, html, headers: { "Auto-Submitted": "auto-generated" } };
}
