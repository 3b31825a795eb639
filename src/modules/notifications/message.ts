import { display, escapeHtml } from "../../lib/template";
import { oneLine, type MailMessage } from "../outbox/message";
import type { OutboxRow } from "../outbox/repo";

/** The owner's notification for one queued submission: every field, in a text and an HTML part. */
export function renderNotification(row: OutboxRow): MailMessage {
  const { _meta: meta, ...fields } = JSON.parse(row.data) as Record<string, unknown> & {
    _meta?: Record<string, unknown>;
  };
  const entries = Object.entries(fields).map(([k, v]) => [k, display(v)] as const);
  const summary: [string, string][] = meta
    ? [
        ["browser", [meta.browser, meta.browserVersion].filter(Boolean).join(" ") || "unknown"],
        ["os", [meta.os, meta.osVersion].filter(Boolean).join(" ") || "unknown"],
        ["device", String(meta.device ?? "unknown")],
        ["country", String(meta.country ?? "ZZ")],
      ]
    : [];
  const title = `New submission: ${oneLine(row.form_name)}`;
  const text = [
    `${title}`,
    `Received ${row.submitted_at} (submission ${row.submission_id})`,
    "",
    ...(entries.length ? entries.map(([k, v]) => `${k}: ${v}`) : ["(no fields)"]),
    "",
    summary.map(([k, v]) => `${k}: ${v}`).join(" · "),
  ].join("\n");
  const rows = entries.map(
    ([k, v]) =>
      `<tr><th align="left" valign="top">${escapeHtml(k)}</th><td style="white-space:pre-wrap">${escapeHtml(v)}</td></tr>`,
  );
  const html = [
    `<!doctype html><html><body style="font-family:sans-serif">`,
    `<h2>${escapeHtml(title)}</h2>`,
    `<p>Received ${escapeHtml(row.submitted_at)} (submission ${escapeHtml(row.submission_id ?? "")})</p>`,
    `<table cellpadding="4">${rows.join("") || "<tr><td>(no fields)</td></tr>"}</table>`,
    `<p style="color:#666">${summary.map(([k, v]) => `${escapeHtml(k)}: ${escapeHtml(v)}`).join(" &middot; ")}</p>`,
    `</body></html>`,
  ].join("\n");
  return { to: row.recipient, ...(row.reply_to ? { replyTo: row.reply_to } : {}), subject: title, text, html };
}
