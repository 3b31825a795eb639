import { escapeHtml } from "../../lib/template";
import type { MailMessage } from "../outbox/message";
import type { OutboxRow } from "../outbox/repo";

/** Where an invitation's link points, below FORMSVC_PUBLIC_URL: the page for people that accepts it. */
export const invitationLink = (publicUrl: string, token: string) =>
  `${publicUrl}/invitations/${encodeURIComponent(token)}`;

/** What an `invitation` outbox row carries until its email is out (then only the link's hash is kept). */
export interface InvitationPayload {
  token: string;
  team: string;
  role: string;
  /** The email of who invited, or `cli`. */
  invitedBy: string;
}

/** The invitation email: who invites to which team with which role, and the one link (7 days, once). */
export function renderInvitation(row: OutboxRow, publicUrl: string): MailMessage {
  const payload = JSON.parse(row.payload ?? "{}") as Partial<InvitationPayload>;
  if (!payload.token) throw new Error("the invitation's token is gone (it was sent already)");
  const link = invitationLink(publicUrl, payload.token);
  const who = payload.invitedBy && payload.invitedBy !== "cli" ? payload.invitedBy : "The operator of this formsvc";
  const sentence = `${who} invites you to join the team “${payload.team}” on formsvc as ${payload.role}.`;
  const note =
    "The link works once, for 7 days. Without a formsvc account you choose a password there; with one you log in. If you did not expect this, ignore this email.";
  const text = [sentence, "Accept here:", "", link, "", note];
  const html = [
    `<!doctype html><html><body style="font-family:sans-serif">`,
    `<p>${escapeHtml(sentence)}</p>`,
    `<p><a href="${escapeHtml(link)}">Accept the invitation</a></p>`,
    `<p style="color:#666">${escapeHtml(note)}</p>`,
    `</body></html>`,
  ];
  return {
    to: row.recipient,
    subject: `You are invited to ${payload.team} on formsvc`,
    text: text.join("\n"),
    html: html.join("\n"),
    headers: { "Auto-Submitted": "auto-generated" },
  };
}
