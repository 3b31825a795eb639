import { escapeHtml } from "../../lib/template";
import type { MailMessage } from "../outbox/message";
import type { OutboxRow } from "../outbox/repo";

/** Where the dashboard's page for a reset link lives, below FORMSVC_PUBLIC_URL. */
export const RESET_PAGE = "/dashboard/reset";

/** The owner's password reset email: one link to the dashboard's reset page, in a text and an HTML part. */
export function renderPasswordReset(row: OutboxRow, publicUrl: string): MailMessage {
  const { token } = JSON.parse(row.payload ?? "{}") as { token?: string };
  if (!token) throw new Error("the reset's token is gone (it was sent already)");
  const link = `${publicUrl}${RESET_PAGE}?token=${encodeURIComponent(token)}`;
  const note =
    "The link works once, for 1 hour. If you did not ask for it, ignore this email: your password stays as it is.";
  const text = ["Someone (you, we hope) asked to set a new password for formsvc. Choose it here:", "", link, "", note];
  const html = [
    `<!doctype html><html><body style="font-family:sans-serif">`,
    `<p>Someone (you, we hope) asked to set a new password for formsvc.</p>`,
    `<p><a href="${escapeHtml(link)}">Choose a new password</a></p>`,
    `<p style="color:#666">${escapeHtml(note)}</p>`,
    `</body></html>`,
  ];
  return {
    to: row.recipient,
    subject: "Set a new formsvc password",
    text: text.join("\n"),
    html: html.join("\n"),
    headers: { "Auto-Submitted": "auto-generated" },
  };
}
