// How the settings page edits each form setting. Keyed by the server's settings table
// (src/modules/forms/settings.ts, a type-only import: nothing of the server enters the bundle),
// so a setting added there without a control here fails the type check.
import type { SettingKey } from "../../modules/forms/settings";
import { DEFAULT_FILES } from "../../modules/files/refs";
import { FORM_TYPES } from "./form-types";
import { setAt, valueAt } from "../../lib/dotted-path";

/** What the page holds while a setting is edited: each setting's value, by its key. */
export type Draft = Record<SettingKey, unknown>;

export const SECTIONS = ["General", "Fields", "Email", "Who may post", "Spam defences", "Keeping submissions"] as const;

interface Common {
  label: string;
  help?: string;
  section: (typeof SECTIONS)[number];
  /** Shown only when this holds (a waitlist's settings on waitlists). */
  shownWhen?: (draft: Draft) => boolean;
  /** Editable only when this holds (a switch it depends on is on). */
  enabledWhen?: (draft: Draft) => boolean;
}

/** A control: its kind says what value it edits. */
export type Control = Common &
  (
    | { kind: "text" | "textarea"; maxLength?: number; required?: boolean; placeholder?: string }
    | { kind: "select"; options: readonly { value: string; label: string }[] }
    | { kind: "checkbox" }
    /** A list of strings, one per line; `check` finds the lines that are wrong, `problem` says so. */
    | {
        kind: "lines";
        placeholder?: string;
        check?: (line: string) => boolean;
        problem?: (bad: string[]) => string;
        /** The lines of a list that holds more than strings (recipients: their addresses). */
        linesOf?: (value: unknown) => string[];
        /** Items may hold spaces (phrases): split on line ends only. */
        phrases?: boolean;
      }
    /** A number in a range; with `optional`, empty is null. */
    | { kind: "number"; min: number; max: number; step: number; optional?: boolean }
    /** A string or null: empty text is null. */
    | { kind: "optional-name"; maxLength: number; placeholder?: string }
    /** A Mustache subject and text, or null (formsvc's own email). */
    | { kind: "template"; fallback: { subject: string; text: string } }
    /** A string or null: a switch, and the text while it is on (`fallback` when it is turned on). */
    | { kind: "optional-text"; fallback: string; pattern?: string }
    /** A URL or null (left empty). */
    | { kind: "url"; placeholder?: string }
    /** A number of days or null (kept forever). */
    | { kind: "days"; max: number }
    /** A whole number of at least 1, or null (left empty). */
    | { kind: "limit" }
    /** A time or null (left empty): a local date and time, sent as ISO 8601. */
    | { kind: "time" }
    /** The fields list, in the field editor (pages/field-editor.tsx). */
    | { kind: "fields" }
    /** File uploads or null (refused): a switch, then the limits and the types allowed (`fallback` when it is turned on). */
    | { kind: "files"; fallback: FilesDraft }
  );

/** A form's `files` setting as the page edits it. */
export interface FilesDraft {
  maxFileBytes: number;
  maxFiles: number;
  maxTotalBytes: number;
  types: string[];
}

/** An origin as the browser writes it in `Origin`, or null: what allowed origins must hold. */
function origin(text: string): string | null {
  try {
    const u = new URL(text);
    return (u.protocol === "http:" || u.protocol === "https:") && u.origin !== "null" ? u.origin : null;
  } catch {
    return null;
  }
}

const waitlist = (d: Draft) => d.formType === "waitlist";
const emailOn = (d: Draft) => d["emailSettings.enabled"] === true;

/** Every writable setting's control, in the order the page shows them within their section. */
export const CONTROLS: Record<SettingKey, Control> = {
  name: { kind: "text", label: "Name", section: "General", maxLength: 200, required: true },
  description: { kind: "textarea", label: "Description", section: "General", maxLength: 2000 },
  formType: { kind: "select", label: "Type", section: "General", options: FORM_TYPES },
  "usersJoinedSettings.enabled": {
    kind: "checkbox",
    label: "Count who joined",
    help: "The public counter of distinct joiners (GET …/users-joined).",
    section: "General",
    shownWhen: waitlist,
  },
  "emailSettings.enabled": {
    kind: "checkbox",
    label: "Email for this form",
    help: "The master switch for every email this form sends.",
    section: "Email",
  },
  "emailSettings.developerNotificationsEnabled": {
    kind: "checkbox",
    label: "Email me each submission",
    help: "One message per submission, with Reply-To set to the sender.",
    section: "Email",
    enabledWhen: emailOn,
  },
  "autoresponse.enabled": {
    kind: "checkbox",
    label: "Answer each sender",
    help: "An automatic reply to the address in the submission, at most once an hour per address.",
    section: "Email",
    enabledWhen: emailOn,
  },
  "autoresponse.subject": {
    kind: "text",
    label: "Subject",
    section: "Email",
    maxLength: 200,
    required: true,
    shownWhen: (d) => d["autoresponse.enabled"] === true && emailOn(d),
  },
  "autoresponse.text": {
    kind: "textarea",
    label: "Text",
    help: "{{name}} and the like are replaced by the submission's fields.",
    section: "Email",
    maxLength: 10_000,
    required: true,
    shownWhen: (d) => d["autoresponse.enabled"] === true && emailOn(d),
  },
  doubleOptIn: {
    kind: "checkbox",
    label: "Double opt-in",
    help: "Each new joiner confirms by a link in an email; only confirmed joiners count.",
    section: "Email",
    shownWhen: waitlist,
  },
  confirmRedirectUrl: {
    kind: "url",
    label: "After confirming, go to",
    help: "Optional; else formsvc's own page.",
    section: "Email",
    placeholder: "https://www.example.com/welcome",
    shownWhen: (d) => waitlist(d) && d.doubleOptIn === true,
  },
  allowedOrigins: {
    kind: "lines",
    label: "Allowed origins",
    help: "One per line. With none, a page on any site may post with a publishable key.",
    section: "Who may post",
    placeholder: "https://www.example.com",
    check: (line) => origin(line) !== null,
    problem: (bad) =>
      `Not an origin: ${bad.join(", ")}. Write each as https://www.example.com (scheme, host and port, no path).`,
  },
  "spamSettings.honeypotField": {
    kind: "optional-text",
    label: "Honeypot field",
    help: "A field people never see; a submission that fills it goes to spam.",
    section: "Spam defences",
    fallback: "_gotcha",
    pattern: "[A-Za-z0-9_\\-]+",
  },
  "spamSettings.challenge": {
    kind: "select",
    label: "Challenge",
    help: "A form without JavaScript cannot answer a challenge: use the snippet with the widget (Embed).",
    section: "Spam defences",
    options: [
      { value: "none", label: "None" },
      { value: "pow", label: "Proof of work (ALTCHA widget, needs JavaScript)" },
      { value: "turnstile", label: "Cloudflare Turnstile" },
      { value: "hcaptcha", label: "hCaptcha" },
      { value: "recaptcha", label: "Google reCAPTCHA (v2 or v3)" },
    ],
  },
  "spamSettings.recaptchaMinScore": {
    kind: "number",
    label: "Lowest reCAPTCHA v3 score accepted",
    help: "With the reCAPTCHA challenge: from 0 (anything) to 1; a v3 answer below it is refused. v2 answers carry no score.",
    section: "Spam defences",
    min: 0,
    max: 1,
    step: 0.05,
  },
  "spamSettings.threshold": {
    kind: "number",
    label: "Filter threshold",
    help: "Once the filter has learned from 20 spam and 20 not-spam submissions, a score at or above this files a submission as spam. Higher files less.",
    section: "Spam defences",
    min: 0.5,
    max: 1,
    step: 0.01,
  },
  "spamSettings.blockedWords": {
    kind: "lines",
    phrases: true,
    label: "Blocked words",
    help: "One word or phrase a line, matched as whole words in any case: a submission holding one goes to spam.",
    section: "Spam defences",
    placeholder: "casino",
  },
  "spamSettings.blockedEmailDomains": {
    kind: "lines",
    label: "Blocked email domains",
    help: "One a line; an address at one of them (or a subdomain) sends the submission to spam.",
    section: "Spam defences",
    placeholder: "spam.example",
    check: (line) => /^@?([a-z0-9]([a-z0-9-]*[a-z0-9])?\.)+[a-z0-9]([a-z0-9-]*[a-z0-9])?$/i.test(line),
    problem: (bad) => `Not a domain: ${bad.join(", ")}. Write each as example.com.`,
  },
  "spamSettings.blockDisposableEmail": {
    kind: "checkbox",
    label: "Throwaway email addresses go to spam",
    help: "Addresses at disposable-mail domains (a list kept up to date with formsvc).",
    section: "Spam defences",
  },
  "spamSettings.maxLinks": {
    kind: "number",
    optional: true,
    label: "At most this many links",
    help: "Optional; a submission with more links across its fields goes to spam.",
    section: "Spam defences",
    min: 0,
    max: 1000,
    step: 1,
  },
  "spamSettings.duplicateWindowSeconds": {
    kind: "number",
    optional: true,
    label: "Repeats within (seconds)",
    help: "Optional; the same fields from the same visitor within this many seconds go to spam.",
    section: "Spam defences",
    min: 1,
    max: 2_592_000,
    step: 1,
  },
  retentionDays: { kind: "days", label: "Delete them after", section: "Keeping submissions", max: 36_500 },
  publicEndpoint: {
    kind: "checkbox",
    label: "Take submissions at /f/ (drop-in)",
    help: "A plain HTML form posts to /f/ and this form's id, with no key: the form id is the address.",
    section: "Who may post",
  },
  fields: {
    kind: "fields",
    label: "Fields",
    help: "What a submission may carry, each checked on every submit path; the hosted page at /f/ is built from them. None: any fields, unchecked.",
    section: "Fields",
  },
  allowExtraFields: {
    kind: "checkbox",
    label: "Store fields the list does not name",
    help: "Else a submission with such a field is refused.",
    section: "Fields",
    enabledWhen: (d) => Array.isArray(d.fields) && d.fields.length > 0,
  },
  files: {
    kind: "files",
    label: "Take file uploads",
    help: "Files come in multipart/form-data posts; each file's type is judged by its bytes, never its name.",
    section: "Fields",
    fallback: DEFAULT_FILES,
  },
  paused: {
    kind: "checkbox",
    label: "Paused",
    help: "A paused form refuses every submission.",
    section: "Who may post",
  },
  closesAt: {
    kind: "time",
    label: "Closes at",
    help: "Optional; from then on submissions are refused.",
    section: "Who may post",
  },
  maxSubmissions: {
    kind: "limit",
    label: "At most this many submissions",
    help: "Optional; once the inbox holds this many, submissions are refused.",
    section: "Who may post",
  },
  successUrl: {
    kind: "url",
    label: "After a drop-in submit, go to",
    help: "Optional; else formsvc's thank-you page.",
    section: "Who may post",
    placeholder: "https://www.example.com/thanks",
  },
  recipients: {
    kind: "lines",
    label: "Also email each submission to",
    help: "Up to 10 addresses, one a line; each gets a confirmation link first and nothing until it is opened. Empty: you alone.",
    section: "Email",
    placeholder: "team@example.com",
    check: (line) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(line),
    problem: (bad) => `Not email addresses: ${bad.join(", ")}`,
    linesOf: (v) => (v as { email: string }[]).map((r) => r.email),
    enabledWhen: emailOn,
  },
  notificationTemplate: {
    kind: "template",
    label: "Write the notification myself",
    help: "Mustache: {{form.name}}, {{submission.id}}, {{field}}, {{#fields}}{{name}}: {{value}}{{/fields}}. A page's _subject wins over the subject.",
    section: "Email",
    fallback: { subject: "New submission: {{form.name}}", text: "{{#fields}}{{name}}: {{value}}\n{{/fields}}" },
    enabledWhen: emailOn,
  },
  fromName: {
    kind: "optional-name",
    label: "Sender name",
    help: "Optional; shown as the notification's sender.",
    section: "Email",
    maxLength: 100,
    placeholder: "Acme forms",
  },
  notifyMode: {
    kind: "select",
    label: "How often",
    help: "A daily digest comes at 08:00 UTC and lists the previous day's submissions (none on a quiet day).",
    section: "Email",
    options: [
      { value: "each", label: "An email for each submission" },
      { value: "daily", label: "One digest a day" },
    ],
    enabledWhen: emailOn,
  },
  errorUrl: {
    kind: "url",
    label: "After a refused drop-in submit, go to",
    help: "Optional (it gets ?error=CODE); else formsvc's error page.",
    section: "Who may post",
    placeholder: "https://www.example.com/oops",
  },
};
