import { display } from "../../lib/template";
import { oneLine } from "../outbox/message";
import type { OutboxRow } from "../outbox/repo";
import { submissionJson } from "../submissions/model";
import { filesOf, type FileLinker } from "../files/model";
import type { WebhookFormat } from "./model";
import type { SubmissionUpdate } from "./queue";

/**
 * The body of a delivery, built from its outbox row alone, so every retry and replay sends the same
 * bytes: `standard` is the event `{type, timestamp, data}` (data: the submission as the API lists
 * it), `slack` and `discord` a message in their incoming-webhook format naming the form and its fields.
 * A row without a submission is a test event; a `webhook_update` row a `submission.updated` event.
 */
export function webhookBody(row: OutboxRow, format: WebhookFormat, link?: FileLinker): string {
  if (row.kind === "webhook_update") return updateBody(row, format);
  if (format === "standard") {
    if (!row.submission_id)
      return JSON.stringify({
        type: "webhook.test",
        timestamp: row.created_at,
        data: { formId: row.form_id, webhookId: row.webhook_id },
      });
    const submission = submissionJson({
      id: row.submission_id,
      formId: row.form_id!, // a delivery always belongs to its webhook's form
      data: link ? withLinks(row, link) : row.data,
      email: null,
      createdAt: row.submitted_at,
      spam: row.payload,
    });
    return `{"type":"submission.created","timestamp":${JSON.stringify(row.created_at)},"data":${submission}}`;
  }
  const name = oneLine(row.form_name);
  const title = row.submission_id ? `New submission: ${name}` : `Test message from formsvc for ${name}`;
  const { _meta: _m, ...fields } = JSON.parse(row.data) as Record<string, unknown>;
  const entries = Object.entries(fields).map(([k, v]) => {
    const files = link && row.submission_id ? filesOf(v) : null;
    const shown = files?.map((f) => `${f.name} ${link!(f.file, row.submission_id!, row.queued_at)}`).join("\n");
    return [k, shown ?? display(v)] as const;
  });
  return format === "slack" ? slackMessage(title, entries) : discordMessage(title, entries, row.submitted_at);
}

/**
 * The submission's data with a signed `url` beside each file entry (`{"file","name","type","size","sha256","url"}`),
 * made from when the delivery was queued, so every retry sends the same bytes.
 */
function withLinks(row: OutboxRow, link: FileLinker): string {
  const data = JSON.parse(row.data) as Record<string, unknown>;
  let changed = false;
  // Built anew (never assigned by name): a field named __proto__ stays a field.
  const linked = Object.fromEntries(
    Object.entries(data).map(([name, value]) => {
      const files = filesOf(value);
      if (!files) return [name, value];
      changed = true;
      const urls = files.map((f) => ({ ...f, url: link(f.file, row.submission_id!, row.queued_at) }));
      return [name, Array.isArray(value) ? urls : urls[0]];
    }),
  );
  return changed ? JSON.stringify(linked) : row.data;
}

/**
 * `submission.updated`: `data` is what the change did (queue.ts `SubmissionUpdate`: what changed,
 * the new values, the earlier ones); Slack and Discord get one line naming the form and the changes.
 */
function updateBody(row: OutboxRow, format: WebhookFormat): string {
  if (format === "standard")
    return `{"type":"submission.updated","timestamp":${JSON.stringify(row.created_at)},"data":${row.data}}`;
  const u = JSON.parse(row.data) as SubmissionUpdate;
  const title = `Submission updated: ${oneLine(row.form_name)}`;
  const entries: [string, string][] = [];
  if (u.changed.includes("state")) entries.push(["state", u.state]);
  if (u.changed.includes("assignee")) entries.push(["assignee", u.assignee ?? "nobody"]);
  if (u.changed.includes("tags")) entries.push(["tags", u.tags.join(", ") || "none"]);
  if (u.note) entries.push(["note", `${u.note.author ?? "the command line"}: ${u.note.text}`]);
  if (u.deletedNote) entries.push(["note", "one deleted"]);
  // The submitter's edit: each changed field's new value.
  for (const field of Object.keys(u.previous.data ?? {}))
    entries.push([
      field,
      typeof u.data?.[field] === "string" ? u.data[field] : JSON.stringify(u.data?.[field] ?? null),
    ]);
  entries.push(["submission", u.id]);
  return format === "slack" ? slackMessage(title, entries) : discordMessage(title, entries, row.created_at);
}

const cut = (s: string, max: number) => ([...s].length > max ? `${[...s].slice(0, max - 1).join("")}…` : s);

// Slack's mrkdwn treats &, < and > as markup (<!channel> pings everyone): they are escaped.
const slackEscape = (s: string) => s.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");

/** A Slack incoming-webhook message: the title in bold, then one `field: value` line per field. */
function slackMessage(title: string, entries: (readonly [string, string])[]): string {
  const lines = entries
    .slice(0, 50)
    .map(([k, v]) => `*${slackEscape(cut(oneLine(k), 100))}*: ${slackEscape(cut(v, 1000))}`);
  if (entries.length > 50) lines.push(`…and ${entries.length - 50} more fields`);
  const text = cut([`*${slackEscape(title)}*`, ...(lines.length ? lines : ["(no fields)"])].join("\n"), 3000);
  return JSON.stringify({ text });
}

/**
 * A Discord webhook message: the title as content, the fields in an embed within Discord's limits
 * (25 fields, 256-character names, 1,024-character values, 6,000 characters in all), and no
 * mentions: a submitted "@everyone" pings no one.
 */
function discordMessage(title: string, entries: (readonly [string, string])[], at: string): string {
  const shown = entries.slice(0, entries.length > 25 ? 24 : 25);
  const room = Math.min(1024, Math.floor(4500 / Math.max(1, shown.length)));
  const fields = shown.map(([k, v]) => ({
    name: cut(oneLine(k) || "(unnamed)", 256),
    value: cut(v, room) || "(empty)",
    inline: false,
  }));
  if (entries.length > shown.length)
    fields.push({ name: "…", value: `and ${entries.length - shown.length} more fields`, inline: false });
  return JSON.stringify({
    content: cut(title, 2000),
    embeds: [
      { title: cut(title, 256), timestamp: at, ...(fields.length ? { fields } : { description: "(no fields)" }) },
    ],
    allowed_mentions: { parse: [] },
  });
}
