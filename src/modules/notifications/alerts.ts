import { escapeHtml } from "../../lib/template";
import { oneLine, type MailMessage } from "../outbox/message";
import type { OutboxRow } from "../outbox/repo";
import { MAIL_STYLES } from "./message";

/** An alert's payload: the sentence, and (an operator's alert, which belongs to no form) its subject. */
interface AlertPayload {
  alert: string;
  subject?: string;
}

const alertMail = (row: OutboxRow, subject: string, text: string): MailMessage => ({
  to: row.recipient,
  subject,
  text,
  html: `<!doctype html><html><body style="${MAIL_STYLES.body}"><p>${escapeHtml(text)}</p></body></html>`,
  headers: { "Auto-Submitted": "auto-generated" },
});

/** The form's owner, told of a webhook delivery that failed for good (outbox/service.ts's alertFor says what happened). */
export function renderWebhookAlert(row: OutboxRow): MailMessage {
  const { alert } = JSON.parse(row.payload ?? "{}") as AlertPayload;
  return alertMail(row, `Webhook problem on ${oneLine(row.form_name)}`, `On the form ${row.form_name}, ${alert}`);
}

/** Every owner, told of a scheduled backup that failed: an operator's alert, with the subject it was queued with. */
export function renderBackupAlert(row: OutboxRow): MailMessage {
  const { alert, subject } = JSON.parse(row.payload ?? "{}") as AlertPayload;
  return alertMail(row, oneLine(subject ?? "formsvc: a scheduled backup failed"), alert);
}
