import type { FilesSetting } from "../files/model";
import type { Locale } from "../dropin/languages";
import { t, type Static } from "elysia";

export const FORM_TYPES = [
  "feedback",
  "contact",
  "waitlist",
  "custom",
  "survey",
  "application",
  "order",
  "analytics_opt_in",
  "rsvp",
] as const;
export type FormType = (typeof FORM_TYPES)[number];

/** How the owner hears of submissions: an email for each, or one a day listing the day's. */
export const NOTIFY_MODES = ["each", "daily"] as const;
export type NotifyMode = (typeof NOTIFY_MODES)[number];

export const CHALLENGES = ["none", "pow", "turnstile", "hcaptcha", "recaptcha"] as const;
export type Challenge = (typeof CHALLENGES)[number];

export const FIELD_TYPES = [
  "text",
  "textarea",
  "email",
  "url",
  "tel",
  "number",
  "date",
  "checkbox",
  "select",
  "radio",
  "file",
  "hidden",
  "page",
] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

/** One field of a form's `fields` list: what a submission may carry under that name, and how it is checked. */
export interface FieldRule {
  name: string;
  type: FieldType;
  label?: string;
  required?: boolean;
  minLength?: number;
  maxLength?: number;
  /** number: a number; date: a YYYY-MM-DD date. */
  min?: number | string;
  max?: number | string;
  /** select, radio, and a checkbox group: the values a visitor may choose. */
  options?: string[];
  /** select and checkbox groups: several values, stored as a list. */
  multiple?: boolean;
  placeholder?: string;
  /** Shown (and required, and stored) only while an earlier field's value meets this. */
  showIf?: ShowIf;
}

/**
 * When a field applies: `field` names an earlier field; exactly one of `equals` (one of its values is
 * this), `in` (one of its values is among these) or `notEmpty` (it has a value). Values are compared as
 * text; a single checkbox reads "true" when ticked.
 */
export interface ShowIf {
  field: string;
  equals?: string;
  in?: string[];
  notEmpty?: boolean;
}

export interface Form {
  id: string;
  /** Who made it. */
  ownerId: string;
  /** The team that owns it. */
  teamId: string;
  name: string;
  description: string;
  formType: FormType;
  emailEnabled: boolean;
  developerNotifications: boolean;
  /** The owner notification carries the submission's PDF. */
  attachPdf: boolean;
  /** The owner notification carries the submission's files, whole, up to this many bytes in all (0: none). */
  attachFilesUpTo: number;
  usersJoinedEnabled: boolean;
  submissionCount: number;
  /** Inbox submissions in state `new`, kept as the counters are (never counted per request). */
  unread: number;
  usersJoinedCount: number;
  /** Origins allowed to submit with a publishable key (and to be redirected to); empty = any. */
  allowedOrigins: string[];
  /** A field that people leave empty and bots fill: a submission with it is spam. null = none. */
  honeypotField: string | null;
  challenge: Challenge;
  /** The spam rules (spam/rules.ts): each files a submission as spam, with its reason. */
  blockedWords: string[];
  blockedEmailDomains: string[];
  blockDisposableEmail: boolean;
  maxLinks: number | null;
  duplicateWindowSeconds: number | null;
  /** The learning filter files a submission as spam at or above this score (once it has learned enough). */
  spamThreshold: number;
  /** A reCAPTCHA v3 answer below this score is refused. */
  recaptchaMinScore: number;
  /** An email to the submitter of each inbox submission (throttled per address), `{{field}}` placeholders from its data. */
  autoresponse: Autoresponse;
  /** Waitlists: joiners count once they confirm their address through the link emailed to them. */
  doubleOptIn: boolean;
  /** Where a confirmed joiner is sent (303) instead of formsvc's own page; null = the page. */
  confirmRedirectUrl: string | null;
  /** Submissions older than this many days are deleted by the retention job; null = kept forever. */
  retentionDays: number | null;
  /** Whether `POST /f/{formId}` takes submissions (no key: the form id is the address). */
  publicEndpoint: boolean;
  /** The fields a submission may carry, each checked on every submit path; null = any fields, unchecked. */
  fields: FieldRule[] | null;
  /** With `fields`: whether fields not in the list are stored (else refused). */
  allowExtraFields: boolean;
  /** File uploads: limits and types; null = a file in a post is refused. */
  files: FilesSetting | null;
  /** Closing: paused, past `closesAt`, or at `maxSubmissions` inbox submissions, every submit is refused. */
  paused: boolean;
  closesAt: string | null;
  maxSubmissions: number | null;
  /** A second inbox submission with an extracted email already answered is refused (ALREADY_SUBMITTED). */
  oneResponsePerEmail: boolean;
  /** The hosted page saves what is typed under a resume link (dropin/partials.ts); kept apart from submissions. */
  partialSubmissions: boolean;
  /** For how many days from sending a submitter may change their answers through a signed link; null = never. */
  editableDays: number | null;
  /** Where a browser goes after a drop-in submit, or after a refused one; null = formsvc's own page. */
  successUrl: string | null;
  errorUrl: string | null;
  /** The colour of its pages for people, `#rrggbb`; null = formsvc's blue. */
  accentColor: string | null;
  /** The language of its pages for people and its visitors' messages; `auto` = the visitor's Accept-Language. */
  locale: Locale;
  /** Who gets the owner notification besides the team's members who want it (notifications/queue.ts `readersOf`). */
  recipients: Recipient[];
  /** The owner notification's own subject and text (Mustache); null = formsvc's email. */
  notificationTemplate: NotificationTemplate | null;
  /** The display name on FORMSVC_MAIL_FROM's address in the owner notification; null = none. */
  fromName: string | null;
  /** `daily`: one digest a day at 08:00 UTC instead of an email per submission. */
  notifyMode: NotifyMode;
  /** What the owner should know of the form's posts, newest first (the last few distinct ones): a redirect target dropped. */
  warnings: FormWarning[];
  createdAt: string;
  updatedAt: string;
}

/** A redirect target a post named and was not allowed: the post was stored, the visitor sent to formsvc's thank-you page. */
export interface FormWarning {
  code: "REDIRECT_NOT_ALLOWED";
  target: string;
  at: string;
}

/** How many warnings a form keeps: the most recent distinct ones. */
export const MAX_FORM_WARNINGS = 5;

/** An address that gets the owner notification once it has opened its confirmation link (the owner's own needs none). */
export interface Recipient {
  email: string;
  confirmed: boolean;
}

export interface NotificationTemplate {
  subject: string;
  text: string;
}

export interface Autoresponse {
  enabled: boolean;
  subject: string;
  text: string;
}

/** The longest retention a form may set: a hundred years (null keeps submissions forever). */
export const MAX_RETENTION_DAYS = 36_500;

/** A plain JSON Schema integer (Elysia's t.Integer also accepts numeric strings, which no response carries). */
export const Count = (description?: string) =>
  t.Unsafe<number>({ type: "integer", minimum: 0, ...(description ? { description } : {}) });
export const timestamp = () => t.String({ format: "date-time", description: "ISO 8601, UTC, milliseconds" });

/** A form as the forms list shows it. */
export const FormListItemSchema = t.Object({
  id: t.String(),
  name: t.String(),
  description: t.String(),
  submissionCount: Count(),
  unread: Count("inbox submissions in state new (not spam)"),
  createdAt: timestamp(),
  updatedAt: timestamp(),
});
export type FormListItemJson = Static<typeof FormListItemSchema>;

export const FormListSchema = t.Object({ forms: t.Array(FormListItemSchema), nextCursor: t.Nullable(t.String()) });
export type FormListJson = Static<typeof FormListSchema>;

export const UsersJoinedSchema = t.Object({ usersJoined: Count() });
export type UsersJoinedJson = Static<typeof UsersJoinedSchema>;

/** What a waitlist answers: distinct joiners, or 0 while its counter is off. */
export const usersJoined = (f: Form) => (f.usersJoinedEnabled ? f.usersJoinedCount : 0);

export function toFormListItem(f: Form): FormListItemJson {
  return {
    id: f.id,
    name: f.name,
    description: f.description,
    submissionCount: f.submissionCount,
    unread: f.unread,
    createdAt: f.createdAt,
    updatedAt: f.updatedAt,
  };
}

/** What deleting something answers (`DELETE /forms/{formId}`, `formsvc forms delete --json`, and a submission's). */
export const DeletedSchema = t.Object({ id: t.String(), deleted: t.Literal(true) });
export type DeletedJson = Static<typeof DeletedSchema>;
