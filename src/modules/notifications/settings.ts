/** The rows of the settings table about email (forms/settings.ts composes them in Get Form's order). */
import { Type } from "@sinclair/typebox";
import { t } from "elysia";
import { humanSize } from "../files/refs";
import { OneOf, UnknownField } from "../../http/schemas";
import { normalizeEmail } from "../../lib/email";
import { group, NOT_BLANK, on, readJsonFile, setting, templateProblem } from "../forms/setting-row";
import { NOTIFY_MODES, type NotifyMode } from "../forms/model";

/** At most this many notification recipients per form. */
export const MAX_RECIPIENTS = 10;
// A notification template's subject or text: room for any email, far below a hostile 100 KB.
const MAX_TEMPLATE = 10_000;
// One line (no control character) holding something trim() keeps: a JSON Schema pattern.
const ONE_LINE_NAME = `^[^\\u0000-\\u001f\\u007f]*${NOT_BLANK}[^\\u0000-\\u001f\\u007f]*$`;
const recipientEmail = (r: string | { email: string }) => (typeof r === "string" ? r : r.email);
/** The most of a submission's files an owner notification carries: 25 MiB, which most mail servers still take. */
export const MAX_ATTACHED_BYTES = 25 * 1024 * 1024;

export const EMAIL_SETTINGS = group({
  error:
    "emailSettings may hold enabled, developerNotificationsEnabled and attachPdf (each true or false), and attachFilesUpTo (bytes)",
  settings: {
    enabled: setting({
      schema: t.Boolean(),
      input: t.Boolean({
        error: "emailSettings.enabled must be true or false",
      }),
      field: "emailEnabled",
      column: "email_enabled",
      stored: "boolean",
      default: false,
      example: true,
      cli: {
        flag: "--email-notifications",
        no: { help: "turn all email for this form off", value: false },
      },
      show: { label: "email notifications", text: on },
    }),
    developerNotificationsEnabled: setting({
      schema: t.Boolean(),
      input: t.Boolean({
        error: "emailSettings.developerNotificationsEnabled must be true or false",
      }),
      field: "developerNotifications",
      column: "developer_notifications",
      stored: "boolean",
      default: false,
      example: true,
      cli: {
        flag: "--developer-notifications",
        hint: "needs --email-notifications",
        no: { help: "stop emailing the owner on every submission", value: false },
      },
      show: { label: "developer notifications", text: on },
    }),
    attachPdf: setting({
      schema: t.Boolean(),
      input: t.Boolean({ error: "emailSettings.attachPdf must be true or false" }),
      field: "attachPdf",
      column: "attach_pdf",
      stored: "boolean",
      default: false,
      example: true,
      cli: {
        flag: "--attach-pdf",
        no: { help: "send the owner notification without the submission's PDF", value: false },
      },
      show: { label: "PDF attached", text: on },
    }),
    attachFilesUpTo: setting({
      schema: t.Unsafe<number>({ type: "integer", minimum: 0, maximum: MAX_ATTACHED_BYTES }),
      input: Type.Integer({
        minimum: 0,
        maximum: MAX_ATTACHED_BYTES,
        error: `emailSettings.attachFilesUpTo must be a number of bytes from 0 (no files) to ${MAX_ATTACHED_BYTES.toLocaleString("en")} (25 MiB)`,
      }),
      field: "attachFilesUpTo",
      column: "attach_files_up_to",
      stored: "plain",
      default: 0,
      example: 5 * 1024 * 1024,
      cli: {
        flag: "--attach-files-up-to <bytes>",
        hint: `0 to ${MAX_ATTACHED_BYTES} (25 MiB)`,
        parse: (text) => (/^\d+$/.test(text) ? Number(text) : NaN),
      },
      show: { label: "files attached", text: (v) => (v === 0 ? "none" : `up to ${humanSize(v)} in all`) },
    }),
  },
});

export const AUTORESPONSE_SETTINGS = group({
  description:
    "an email to the submitter's extracted address for each inbox submission, at most once per address and form per hour (needs emailSettings.enabled)",
  error: "autoresponse may hold enabled (true or false), subject and text (templates)",
  settings: {
    enabled: setting({
      schema: t.Boolean(),
      input: t.Boolean({
        description: "left out, a subject or text given turns it on",
        error: "autoresponse.enabled must be true or false",
      }),
      field: "autoresponse.enabled",
      column: "autoresponse_enabled",
      stored: "boolean",
      default: false,
      example: true,
      cli: {
        flag: "--autoresponse",
        hint: "turns it back on, with the subject and text it has",
        updateOnly: true,
        no: { help: "stop emailing submitters (the templates are kept)", value: false },
      },
      show: { label: "autoresponse", text: (v, f) => (v ? `on: "${f.autoresponse.subject}"` : "off") },
    }),
    subject: setting({
      schema: t.String(),
      input: t.String({ maxLength: 200, error: "autoresponse.subject must be a template of at most 200 characters" }),
      field: "autoresponse.subject",
      column: "autoresponse_subject",
      stored: "plain",
      default: "",
      check: (v: string) => templateProblem("autoresponse.subject (the autoresponse subject)", v),
      example: "Thanks, {{name}}",
      cli: {
        flag: "--autoresponse-subject <template>",
      },
    }),
    text: setting({
      schema: t.String(),
      input: t.String({
        maxLength: 10_000,
        error: "autoresponse.text must be a template of at most 10,000 characters",
      }),
      field: "autoresponse.text",
      column: "autoresponse_text",
      stored: "plain",
      default: "",
      check: (v: string) => templateProblem("autoresponse.text (the autoresponse text)", v),
      example: "We got your message and will answer soon.",
      cli: {
        flag: "--autoresponse-text <template>",
        hint: "needs --email-notifications",
      },
    }),
  },
});

export const RECIPIENTS = setting({
  schema: t.Array(t.Object({ email: t.String(), confirmed: t.Boolean() })),
  input: t.Array(
    t.Union([
      t.String({ maxLength: 320 }),
      t.Object(
        { email: t.String({ maxLength: 320 }), confirmed: t.Optional(t.Boolean()) },
        { additionalProperties: UnknownField },
      ),
    ]),
    {
      maxItems: MAX_RECIPIENTS,
      error: `recipients must be a list of at most ${MAX_RECIPIENTS} email addresses (or {email} objects; confirmed is the server's)`,
    },
  ),
  field: "recipients",
  column: "recipients",
  stored: "json",
  default: [],
  check: (v: (string | { email: string })[]) => {
    const bad = v.map(recipientEmail).filter((e) => normalizeEmail(e) === null);
    return bad.length
      ? `recipients: ${bad.map((e) => JSON.stringify(e.slice(0, 100))).join(", ")} ${bad.length === 1 ? "is not an email address" : "are not email addresses"}`
      : undefined;
  },
  // Confirmed is the server's: only the link confirms (forms/service.ts carries it over for addresses kept).
  normalize: (v: (string | { email: string })[]) =>
    [...new Map(v.map((r) => [normalizeEmail(recipientEmail(r))!, false])).entries()].map(([email, confirmed]) => ({
      email,
      confirmed,
    })),
  example: [{ email: "team@example.com", confirmed: false }],
  cli: {
    flag: "--recipients <emails>",
    hint: "comma-separated",
    parse: (text) => text.split(",").filter((v) => v.trim() !== ""),
    no: { help: "list no addresses: only the team's members who want it hear", value: [] },
  },
  show: {
    label: "recipients",
    text: (v) =>
      v.length
        ? v.map((r) => `${r.email}${r.confirmed ? "" : " (waiting for confirmation)"}`).join(", ")
        : "none (the team's members who want it)",
  },
});

export const NOTIFICATION_TEMPLATE = setting({
  schema: t.Nullable(t.Object({ subject: t.String(), text: t.String() })),
  input: t.Nullable(
    t.Object(
      {
        subject: t.String({ minLength: 1, maxLength: MAX_TEMPLATE, pattern: NOT_BLANK }),
        text: t.String({ minLength: 1, maxLength: MAX_TEMPLATE, pattern: NOT_BLANK }),
      },
      { additionalProperties: UnknownField },
    ),
    {
      error: `notificationTemplate needs a subject and a text, templates of at most ${MAX_TEMPLATE.toLocaleString("en")} characters each (null for formsvc's email)`,
    },
  ),
  field: "notificationTemplate",
  column: "notification_template",
  stored: "json",
  default: null,
  check: (v: { subject: string; text: string } | null) =>
    v === null
      ? undefined
      : [
          templateProblem("notificationTemplate.subject", v.subject),
          templateProblem("notificationTemplate.text", v.text),
        ]
          .filter(Boolean)
          .join("; ") || undefined,
  example: { subject: "{{form.name}}: {{name}}", text: "{{#fields}}{{name}}: {{value}}\n{{/fields}}" },
  cli: [
    {
      flag: "--notification-template-file <file>",
      hint: "a JSON file {subject, text}",
      parse: (file) => readJsonFile("notificationTemplate (--notification-template-file)", file),
      no: { flag: "--no-notification-template", help: "send formsvc's own notification email", value: null },
    },
  ],
  show: { label: "notification", text: (v) => (v === null ? "formsvc's email" : `"${v.subject}"`) },
});

export const FROM_NAME = setting({
  schema: t.Nullable(t.String()),
  input: t.Nullable(t.String({ minLength: 1, maxLength: 100, pattern: ONE_LINE_NAME }), {
    error: "fromName: the sender's name must be 1 to 100 characters on one line, not blank, or null",
  }),
  field: "fromName",
  column: "from_name",
  stored: "plain",
  default: null,
  normalize: (v: string | null) => (v === null ? null : v.trim()),
  example: "Acme forms",
  cli: {
    flag: "--from-name <name>",
    no: { help: "no display name", value: null },
  },
  show: { label: "from name", text: (v) => v ?? "none" },
});

export const NOTIFY_MODE = setting({
  schema: t.Unsafe<NotifyMode>({
    type: "string",
    enum: [...NOTIFY_MODES],
  }),
  input: OneOf(NOTIFY_MODES, `notifyMode must be one of ${NOTIFY_MODES.join(", ")}`),
  field: "notifyMode",
  column: "notify_mode",
  stored: "plain",
  default: "each",
  example: "daily",
  cli: { flag: "--notify <mode>", hint: "each or daily" },
  show: { label: "notify", text: (v) => (v === "daily" ? "daily digest at 08:00 UTC" : "each submission") },
});
