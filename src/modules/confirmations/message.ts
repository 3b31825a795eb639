import { escapeHtml } from "../../lib/template";
import type { MailMessage } from "../outbox/message";
import { oneLine } from "../outbox/message";
import type { OutboxRow } from "../outbox/repo";

/** The joiner's confirmation email: one link to `publicUrl`/confirm/<token>, in a text and an HTML part. */
export function renderConfirmation(row: OutboxRow, publicUrl: string): MailMessage {
  const { token, recipient } = JSON.parse(row.payload ?? "{}") as { token?: string; recipient?: boolean };
  if (!token) throw new Error("the confirmation's token is gone (it was sent already)");
  const link = `${publicUrl}/confirm/${token}`;
  const name = oneLine(row.form_name);
  if (recipient) return recipientConfirmation(row.recipient, name, link);
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

/** A notification recipient's confirmation: nothing of the form's submissions reaches the address before its click. */
function recipientConfirmation(to: string, name: string, link: string): MailMessage {
  // Not the form's name, which anyone with an account chooses: no subject line of theirs to an address of their choosing.
  const subject = "Confirm that you want a form's submissions by email";
  const why =
    "The link works for 7 days. If you did not expect this, ignore this email: without your click you get nothing more.";
  const text = [
    `You were added as a recipient of the submissions of the form ${name}. To receive them, open this page and confirm:`,
    "",
    link,
    "",
    why,
  ].join("\n");
  const html = [
    `<!doctype html><html><body style="font-family:sans-serif">`,
    `<p>You were added as a recipient of the submissions of the form <b>${escapeHtml(name)}</b>. To receive them, open this page and confirm:</p>`,
    `<p><a href="${escapeHtml(link)}">Yes, send them to me</a></p>`,
    `<p style="color:#666">${escapeHtml(why)}</p>`,
    `</body></html>`,
  ].join("\n");
  return { to, subject, text, html, headers: { "Auto-Submitted": "auto-generated" } };
}
