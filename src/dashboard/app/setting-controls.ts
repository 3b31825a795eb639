// How the settings page edits each form setting. Keyed by the server's settings table
// (src/modules/forms/settings.ts, a type-only import: nothing of the server enters the bundle),
// so a setting added there without a control here fails the type check.
import type { SettingKey } from "../../modules/forms/settings";
import { SETTING_HELP } from "../../modules/forms/setting-help";
import { DEFAULT_FILES } from "../../modules/files/refs";
import { FORM_TYPES } from "./form-types";
import { LANGUAGE_NAMES, LANGUAGES } from "../../modules/dropin/languages";
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
    /** A colour or null: a switch, and a colour picker while it is on (`fallback` when it is turned on). */
    | { kind: "colour"; fallback: string }
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

/** Every writable setting's control, in the order the page shows them within their section; the help is the setting's own. */
const OWN: Record<SettingKey, Control> = {
  name: { kind: "text", label: "Name", section: "General", maxLength: 200, required: true },
  description: { kind: "textarea", label: "Description", section: "General", maxLength: 2000 },
  formType: { kind: "select", label: "Type", section: "General", options: FORM_TYPES },
  "usersJoinedSettings.enabled": {
    kind: "checkbox",
    label: "Count who joined",
    section: "General",
    shownWhen: waitlist,
  },
  "emailSettings.enabled": {
    kind: "checkbox",
    label: "Email for this form",
    section: "Email",
  },
  "emailSettings.developerNotificationsEnabled": {
    kind: "checkbox",
    label: "Email me each submission",
    section: "Email",
    enabledWhen: emailOn,
  },
  "emailSettings.attachPdf": {
    kind: "checkbox",
    label: "Attach a PDF of the submission",
    section: "Email",
    enabledWhen: (d) => emailOn(d) && d["emailSettings.developerNotificationsEnabled"] === true,
  },
  "emailSettings.attachFilesUpTo": {
    kind: "number",
    label: "Attach uploaded files up to (bytes, 0 for none)",
    section: "Email",
    min: 0,
    max: 26_214_400,
    step: 1,
    enabledWhen: (d) => emailOn(d) && d["emailSettings.developerNotificationsEnabled"] === true,
  },
  "autoresponse.enabled": {
    kind: "checkbox",
    label: "Answer each sender",
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
    section: "Email",
    maxLength: 10_000,
    required: true,
    shownWhen: (d) => d["autoresponse.enabled"] === true && emailOn(d),
  },
  doubleOptIn: {
    kind: "checkbox",
    label: "Double opt-in",
    section: "Email",
    shownWhen: waitlist,
  },
  confirmRedirectUrl: {
    kind: "url",
    label: "After confirming, go to",
    section: "Email",
    placeholder: "https://www.example.com/welcome",
    shownWhen: (d) => waitlist(d) && d.doubleOptIn === true,
  },
  allowedOrigins: {
    kind: "lines",
    label: "Allowed origins",
    section: "Who may post",
    placeholder: "https://www.example.com",
    check: (line) => origin(line) !== null,
    problem: (bad) =>
      `Not an origin: ${bad.join(", ")}. Write each as https://www.example.com (scheme, host and port, no path).`,
  },
  "spamSettings.honeypotField": {
    kind: "optional-text",
    label: "Honeypot field",
    section: "Spam defences",
    fallback: "_gotcha",
    pattern: "[A-Za-z0-9_\\-]+",
  },
  "spamSettings.challenge": {
    kind: "select",
    label: "Challenge",
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
    section: "Spam defences",
    min: 0,
    max: 1,
    step: 0.05,
  },
  "spamSettings.threshold": {
    kind: "number",
    label: "Filter threshold",
    section: "Spam defences",
    min: 0.5,
    max: 1,
    step: 0.01,
  },
  "spamSettings.blockedWords": {
    kind: "lines",
    phrases: true,
    label: "Blocked words",
    section: "Spam defences",
    placeholder: "casino",
  },
  "spamSettings.blockedEmailDomains": {
    kind: "lines",
    label: "Blocked email domains",
    section: "Spam defences",
    placeholder: "spam.example",
    check: (line) => /^@?([a-z0-9]([a-z0-9-]*[a-z0-9])?\.)+[a-z0-9]([a-z0-9-]*[a-z0-9])?$/i.test(line),
    problem: (bad) => `Not a domain: ${bad.join(", ")}. Write each as example.com.`,
  },
  "spamSettings.blockDisposableEmail": {
    kind: "checkbox",
    label: "Throwaway email addresses go to spam",
    section: "Spam defences",
  },
  "spamSettings.maxLinks": {
    kind: "number",
    optional: true,
    label: "At most this many links",
    section: "Spam defences",
    min: 0,
    max: 1000,
    step: 1,
  },
  "spamSettings.duplicateWindowSeconds": {
    kind: "number",
    optional: true,
    label: "Repeats within (seconds)",
    section: "Spam defences",
    min: 1,
    max: 2_592_000,
    step: 1,
  },
  retentionDays: { kind: "days", label: "Delete them after", section: "Keeping submissions", max: 36_500 },
  publicEndpoint: {
    kind: "checkbox",
    label: "Take submissions at /f/ (drop-in)",
    section: "Who may post",
  },
  fields: {
    kind: "fields",
    label: "Fields",
    section: "Fields",
  },
  allowExtraFields: {
    kind: "checkbox",
    label: "Store fields the list does not name",
    section: "Fields",
    enabledWhen: (d) => Array.isArray(d.fields) && d.fields.length > 0,
  },
  files: {
    kind: "files",
    label: "Take file uploads",
    section: "Fields",
    fallback: DEFAULT_FILES,
  },
  paused: {
    kind: "checkbox",
    label: "Paused",
    section: "Who may post",
  },
  closesAt: {
    kind: "time",
    label: "Closes at",
    section: "Who may post",
  },
  maxSubmissions: {
    kind: "limit",
    label: "At most this many submissions",
    section: "Who may post",
  },
  oneResponsePerEmail: {
    kind: "checkbox",
    label: "One response per email address",
    section: "Who may post",
  },
  partialSubmissions: {
    kind: "checkbox",
    label: "Let visitors save and finish later",
    section: "General",
  },
  editableDays: {
    kind: "number",
    label: "Let people change their answers for this many days (empty: never)",
    section: "Who may post",
    min: 1,
    max: 365,
    step: 1,
    optional: true,
  },
  accentColor: {
    kind: "colour",
    label: "Use my own colour on the form's pages",
    section: "General",
    fallback: "#2856d8",
  },
  locale: {
    kind: "select",
    label: "Language of the form's pages",
    section: "General",
    options: [
      { value: "auto", label: "The visitor's (from their browser)" },
      ...LANGUAGES.map((value) => ({ value, label: LANGUAGE_NAMES[value] })),
    ],
  },
  successUrl: {
    kind: "url",
    label: "After a drop-in submit, go to",
    section: "Who may post",
    placeholder: "https://www.example.com/thanks",
  },
  recipients: {
    kind: "lines",
    label: "Also email each submission to",
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
    section: "Email",
    fallback: { subject: "New submission: {{form.name}}", text: "{{#fields}}{{name}}: {{value}}\n{{/fields}}" },
    enabledWhen: emailOn,
  },
  fromName: {
    kind: "optional-name",
    label: "Sender name",
    section: "Email",
    maxLength: 100,
    placeholder: "Acme forms",
  },
  notifyMode: {
    kind: "select",
    label: "How often",
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
    section: "Who may post",
    placeholder: "https://www.example.com/oops",
  },
};

/** Every writable setting's control, with the setting's help as the server's document and CLI say it. */
export const CONTROLS = Object.fromEntries(
  Object.entries(OWN).map(([key, c]) => [key, { ...c, help: SETTING_HELP[key as SettingKey] }]),
) as Record<SettingKey, Control>;
