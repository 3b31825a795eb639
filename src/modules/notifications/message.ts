import { fieldLabel } from "../../lib/field-label";
import { countryName, peopleTime } from "../../lib/people-time";
import { display, escapeHtml, renderHtml, renderText, shown } from "../../lib/template";
import { filesOf, humanSize, type FileLinker, type FileRef } from "../files/model";
import { oneLine, type MailMessage } from "../outbox/message";
import type { OutboxRow } from "../outbox/repo";
import type { Attached } from "./attachments";
import type { NotificationPayload } from "./queue";

const NO_ATTACHMENTS: Attached = { attachments: [], note: "" };

/**
 * Every inline style of the owner notification's HTML part. The dashboard's preview shows that part
 * in a frame under the dashboard's CSP, which allows these declarations (by hash) and no other.
 */
export const MAIL_STYLES = {
  body: "font-family:sans-serif",
  pre: "white-space:pre-wrap",
  quiet: "color:#666",
} as const;

// Subjects longer than this are cut: mail clients show far less, and a page's _subject is capped at 200.
const MAX_SUBJECT = 250;

/** A file as the email shows it, with its signed link when FORMSVC_PUBLIC_URL makes one an email can carry. */
interface MailFile {
  name: string;
  type: string;
  size: number;
  url: string | null;
}

/** The files of a submission's fields as the email shows them, by field (a link only when it is absolute). */
function mailFiles(
  row: Pick<OutboxRow, "submission_id" | "queued_at">,
  fields: Record<string, unknown>,
  link: FileLinker | undefined,
): Map<string, MailFile[]> {
  const found = new Map<string, MailFile[]>();
  for (const [name, value] of Object.entries(fields)) {
    const files = filesOf(value);
    if (!files) continue;
    const url = (f: FileRef) => {
      const made = link && row.submission_id ? link(f.file, row.submission_id, row.queued_at) : null;
      return made && /^https?:\/\//.test(made) ? made : null;
    };
    found.set(
      name,
      files.map((f) => ({ name: f.name, type: f.type, size: f.size, url: url(f) })),
    );
  }
  return found;
}

/** One file as a line of text: its name, type and size, then its link (or why there is none). */
const fileText = (f: MailFile) =>
  `${f.name} (${f.type}, ${humanSize(f.size)}) ${f.url ?? "[no link: FORMSVC_PUBLIC_URL is not set; download it from the dashboard]"}`;

/** What a notification template sees: every field by its name (a file as its name and link), the form, the submission and the field list. */
export function notificationView(
  row: Pick<OutboxRow, "form_name" | "submission_id" | "submitted_at" | "queued_at">,
  fields: Record<string, unknown>,
  link?: FileLinker,
): Record<string, unknown> {
  const files = mailFiles(row, fields, link);
  // Built anew (never assigned by name): a field named __proto__ stays a field.
  const viewed = Object.fromEntries(
    Object.entries(fields).map(([name, value]) => {
      const list = files.get(name);
      if (!list) return [name, value];
      const items = list.map((f) =>
        shown(f.url ? `${f.name} ${f.url}` : f.name, { ...f, url: f.url ?? "", size: humanSize(f.size) }),
      );
      return [name, Array.isArray(value) ? items : items[0]];
    }),
  );
  return {
    ...viewed,
    form: { name: row.form_name },
    submission: { id: row.submission_id ?? "", createdAt: row.submitted_at },
    fields: Object.entries(viewed).map(([name, value]) => ({ name, value: display(value) })),
  };
}

/** What the email says of the sender's browser, system, device and country, leaving out what is not known. */
function aboutSender(meta: Record<string, unknown>): [string, string][] {
  const joined = (...parts: unknown[]) => parts.filter((x) => typeof x === "string" && x).join(" ");
  const device = typeof meta.device === "string" && meta.device !== "unknown" ? meta.device : "";
  const about: [string, string][] = [
    ["Browser", joined(meta.browser, meta.browserVersion)],
    ["System", joined(meta.os, meta.osVersion)],
    ["Device", device],
    ["Country", countryName(meta.country) ?? ""],
  ];
  return about.filter(([, v]) => v !== "");
}

/** What the owner is told of a redirect target the post named and was not allowed, or nothing. */
const redirectWarning = (target: string | undefined): string =>
  target === undefined
    ? ""
    : `The page asked to send the visitor on to ${oneLine(target)}, which this form does not allow (add its origin to the form's allowed origins, or post from a page on it); the submission was stored and the visitor shown formsvc's thank-you page.`;

/**
 * The owner's notification for one queued submission: formsvc's (every field, in a text and an
 * HTML part) or the form's template (its text, and the same text escaped as the HTML part); the
 * page's `_subject` ahead of either subject.
 */
export function renderNotification(
  row: OutboxRow,
  link?: FileLinker,
  attached: Attached = NO_ATTACHMENTS,
): MailMessage {
  const { _meta: meta, ...fields } = JSON.parse(row.data) as Record<string, unknown> & {
    _meta?: Record<string, unknown>;
  };
  const p: Partial<NotificationPayload> = row.payload ? JSON.parse(row.payload) : {};
  const envelope = {
    ...(attached.attachments.length ? { attachments: attached.attachments } : {}),
    to: row.recipient,
    ...(row.reply_to ? { replyTo: row.reply_to } : {}),
    ...(p.fromName ? { fromName: p.fromName } : {}),
  };
  const notes = [attached.note, redirectWarning(p.droppedRedirect)].filter(Boolean);
  const warning = notes.join("\n\n");
  const warningHtml = notes.map((n) => `<p style="${MAIL_STYLES.quiet}">${escapeHtml(n)}</p>`).join("");
  // A submitter's change reads as one from the subject on, whoever wrote the subject.
  const edited = p.edited === undefined ? "" : "Edited: ";
  if (p.template) {
    const view = notificationView(row, fields, link);
    return {
      ...envelope,
      subject: (edited + oneLine(p.subject ?? renderText(p.template.subject, view))).slice(0, MAX_SUBJECT),
      text: renderText(p.template.text, view) + (warning && `\n\n${warning}`),
      html: `<!doctype html><html><body style="${MAIL_STYLES.body}"><div style="${MAIL_STYLES.pre}">${renderHtml(p.template.text, view)}</div>${warningHtml}</body></html>`,
    };
  }
  const files = mailFiles(row, fields, link);
  const entries = Object.entries(fields).map(([name, v]) => {
    const listed = files.get(name);
    return { name, label: fieldLabel(name, p.labels), value: listed ? listed.map(fileText).join("\n") : display(v) };
  });
  const summary = meta ? aboutSender(meta) : [];
  const title = `${p.edited === undefined ? "New" : "Edited"} submission: ${oneLine(row.form_name)}`;
  const received = `Received ${peopleTime(row.submitted_at, p.timeZone)}`;
  const text = [
    `${title}`,
    `${received} (submission ${row.submission_id})`,
    "",
    ...(entries.length ? entries.map((e) => `${e.label}: ${e.value}`) : ["(no fields)"]),
    "",
    summary.map(([k, v]) => `${k}: ${v}`).join(" · "),
    ...(p.link ? ["", `Open it in the dashboard: ${p.link}`] : []),
    ...(warning ? ["", warning] : []),
  ].join("\n");
  const fileHtml = (f: MailFile) =>
    `${f.url ? `<a href="${escapeHtml(f.url)}">${escapeHtml(f.name)}</a>` : escapeHtml(f.name)} <span style="${MAIL_STYLES.quiet}">(${escapeHtml(f.type)}, ${humanSize(f.size)})</span>`;
  const rows = entries.map((e) => {
    const listed = files.get(e.name);
    const cell = listed ? listed.map(fileHtml).join("<br>") : escapeHtml(e.value);
    return `<tr><th align="left" valign="top">${escapeHtml(e.label)}</th><td style="${MAIL_STYLES.pre}">${cell}</td></tr>`;
  });
  const html = [
    `<!doctype html><html><body style="${MAIL_STYLES.body}">`,
    `<h2>${escapeHtml(title)}</h2>`,
    `<p>${escapeHtml(received)} (submission ${escapeHtml(row.submission_id ?? "")})</p>`,
    `<table cellpadding="4">${rows.join("") || "<tr><td>(no fields)</td></tr>"}</table>`,
    `<p style="${MAIL_STYLES.quiet}">${summary.map(([k, v]) => `${escapeHtml(k)}: ${escapeHtml(v)}`).join(" &middot; ")}</p>`,
    p.link ? `<p><a href="${escapeHtml(p.link)}">Open it in the dashboard</a></p>` : "",
    warningHtml,
    `</body></html>`,
  ].join("\n");
  return { ...envelope, subject: p.subject ? (edited + oneLine(p.subject)).slice(0, MAX_SUBJECT) : title, text, html };
}
