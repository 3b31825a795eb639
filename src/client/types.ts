// The client's view of the API, as plain types so the published .d.ts stands alone.
// test/client/types-match.ts makes tsc fail if any of these drifts from the server's schemas.

export type FormType =
  "feedback" | "contact" | "waitlist" | "custom" | "survey" | "application" | "order" | "analytics_opt_in" | "rsvp";

/**
 * A form as Get Form shows it. What each setting does is said once, on the server, and published
 * as its description in the OpenAPI document (GET /api/v1/openapi.json, or the /docs page).
 */
export interface Form {
  id: string;
  /** The team that owns the form. */
  teamId: string;
  name: string;
  description: string;
  formType: FormType;
  submissionCount: number;
  /** Inbox submissions in state `new` (not spam). */
  unread: number;
  createdAt: string;
  updatedAt: string;
  emailSettings: {
    enabled: boolean;
    developerNotificationsEnabled: boolean;
    /** The owner notification carries the submission's PDF. */
    attachPdf: boolean;
    /** The owner notification carries the submission's files, whole, up to this many bytes in all (0: none; at most 25 MiB). */
    attachFilesUpTo: number;
  };
  usersJoinedSettings: { enabled: boolean; count: number } | null;
  allowedOrigins: string[];
  spamSettings: {
    honeypotField: string | null;
    challenge: Challenge;
    blockedWords: string[];
    blockedEmailDomains: string[];
    blockDisposableEmail: boolean;
    maxLinks: number | null;
    duplicateWindowSeconds: number | null;
    threshold: number;
    recaptchaMinScore: number;
  };
  autoresponse: { enabled: boolean; subject: string; text: string };
  doubleOptIn: boolean;
  confirmRedirectUrl: string | null;
  retentionDays: number | null;
  publicEndpoint: boolean;
  fields: FieldRule[] | null;
  allowExtraFields: boolean;
  files: FilesSetting | null;
  paused: boolean;
  closesAt: string | null;
  maxSubmissions: number | null;
  /** A second submission from an address that has answered is refused (409 ALREADY_SUBMITTED). */
  oneResponsePerEmail: boolean;
  /** Days from sending in which the submitter may change their answers (a signed link); null = never. */
  editableDays: number | null;
  successUrl: string | null;
  errorUrl: string | null;
  /** The colour of the form's pages for people, `#rrggbb`; null = formsvc's blue. */
  accentColor: string | null;
  /** The language of its pages and its visitors' field errors; `auto` = the visitor's Accept-Language. */
  locale: Locale;
  /** The hosted page saves what is typed under a resume link; listed with `status: "partial"`. */
  partialSubmissions: boolean;
  recipients: { email: string; confirmed: boolean }[];
  notificationTemplate: { subject: string; text: string } | null;
  fromName: string | null;
  notifyMode: "each" | "daily";
  /** Redirect targets posts named that were not allowed (the posts were stored), newest first, the last 5 distinct. */
  warnings: { code: "REDIRECT_NOT_ALLOWED"; target: string; at: string }[];
}

export type FieldType =
  | "text"
  | "textarea"
  | "email"
  | "url"
  | "tel"
  | "number"
  | "date"
  | "checkbox"
  | "select"
  | "radio"
  | "file"
  | "hidden"
  | "page";

/** One field of a form's `fields` list. */
export interface FieldRule {
  name: string;
  type: FieldType;
  label?: string;
  required?: boolean;
  minLength?: number;
  maxLength?: number;
  /** number: a number; date: YYYY-MM-DD. */
  min?: number | string;
  max?: number | string;
  /** select, radio, and a checkbox group. */
  options?: string[];
  /** select and checkbox groups: a list of values. */
  multiple?: boolean;
  placeholder?: string;
  /** Shown, required and stored only while an earlier field's value meets exactly one of equals, in, notEmpty. */
  showIf?: { field: string; equals?: string; in?: string[]; notEmpty?: boolean };
}

/** A form's file upload limits. */
export interface FilesSetting {
  maxFileBytes: number;
  maxFiles: number;
  maxTotalBytes: number;
  /** MIME types (application/pdf) or families (image/*). */
  types: string[];
}

export type Challenge = "none" | "pow" | "turnstile" | "hcaptcha" | "recaptcha";
/** The language of a form's pages for people: `auto` (the visitor's Accept-Language) or one of these. */
export type Locale = "auto" | "en" | "de" | "fr" | "es" | "pt" | "it" | "nl" | "pl" | "ja";

/** The settings `createForm` and `updateForm` take, shaped as `Form`; what is left out is the default (create) or stays as it is (update). */
export interface FormSettings {
  description?: string;
  formType?: FormType;
  emailSettings?: {
    enabled?: boolean;
    developerNotificationsEnabled?: boolean;
    attachPdf?: boolean;
    attachFilesUpTo?: number;
  };
  usersJoinedSettings?: { enabled?: boolean };
  allowedOrigins?: string[];
  /** `honeypotField: null` turns the honeypot off. */
  spamSettings?: {
    honeypotField?: string | null;
    challenge?: Challenge;
    blockedWords?: string[];
    blockedEmailDomains?: string[];
    blockDisposableEmail?: boolean;
    maxLinks?: number | null;
    duplicateWindowSeconds?: number | null;
    threshold?: number;
    recaptchaMinScore?: number;
  };
  /** A subject or text given without `enabled` turns the autoresponse on; it needs both. */
  autoresponse?: { enabled?: boolean; subject?: string; text?: string };
  /** Waitlists only. */
  doubleOptIn?: boolean;
  /** null: formsvc's own page. */
  confirmRedirectUrl?: string | null;
  /** 1 to 36500; null keeps submissions forever. */
  retentionDays?: number | null;
  publicEndpoint?: boolean;
  /** At most 100; null takes any fields again. */
  fields?: FieldRule[] | null;
  allowExtraFields?: boolean;
  /** Members left out take their defaults; null refuses files again. */
  files?: Partial<FilesSetting> | null;
  paused?: boolean;
  /** ISO 8601 with its offset; null = never. */
  closesAt?: string | null;
  maxSubmissions?: number | null;
  oneResponsePerEmail?: boolean;
  /** 1 to 365; null = no edits. */
  editableDays?: number | null;
  successUrl?: string | null;
  errorUrl?: string | null;
  accentColor?: string | null;
  locale?: Locale;
  partialSubmissions?: boolean;
  /** At most 10 addresses, or `{email}` objects as Get Form shows them; `confirmed` is ignored (only the link confirms). */
  recipients?: (string | { email: string; confirmed?: boolean })[];
  /** Templates of at most 10,000 characters each; null = formsvc's email. */
  notificationTemplate?: { subject: string; text: string } | null;
  fromName?: string | null;
  notifyMode?: "each" | "daily";
}

/** A new form's settings (`createForm`); only `name` is required. */
export interface FormCreateRequest extends FormSettings {
  name: string;
  /** The team to make it in (default: a key's own team, a session's personal team). */
  teamId?: string;
}

/** What `updateForm` changes: only the fields given. */
export interface FormUpdateRequest extends FormSettings {
  name?: string;
}

/** What deleting a form or a submission answers. */
export interface Deleted {
  id: string;
  deleted: true;
}

export type KeyKind = "secret" | "publishable";

/** An API key as `listKeys` shows it: never its secret. */
/** A member's role in a team, lowest first: viewer, editor, admin, owner. */
export type Role = "viewer" | "editor" | "admin" | "owner";
/** The roles a key may carry. */
export type KeyRole = Exclude<Role, "owner">;

export interface ApiKey {
  id: string;
  name: string;
  /** The email of who made it. */
  owner: string;
  /** The team it acts in, and its role there. */
  teamId: string;
  role: KeyRole;
  kind: KeyKind;
  /** The forms it is bound to; null = all the team's forms. */
  forms: string[] | null;
  /** The secret's first 12 characters. */
  prefix: string;
  active: boolean;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

export interface KeyCreateRequest {
  /** The team it acts in (default: a key's own team, a session's personal team). */
  teamId?: string;
  /** What it may do there (default admin). */
  role?: KeyRole;
  name?: string;
  /** A key for web pages (fpk_…): it may only submit and fetch challenges. */
  publishable?: boolean;
  /** Bind the key to these forms; leave out for all the owner's forms. */
  forms?: string[];
}

/** A new key: `key` is its secret, shown in this answer only. */
export interface CreatedKey {
  id: string;
  name: string;
  owner: string;
  teamId: string;
  role: KeyRole;
  key: string;
  kind: KeyKind;
  forms: string[] | null;
  createdAt: string;
}

export interface RevokedKey {
  id: string;
  active: boolean;
  revokedAt: string | null;
}

/** A team's invitation not yet accepted: never its link. */
export interface Invitation {
  id: string;
  teamId: string;
  email: string;
  role: Role;
  /** The email of the member who invited, or `cli`. */
  invitedBy: string;
  createdAt: string;
  expiresAt: string;
}

/** `inviteMember`'s answer: the invitation, and whether its email goes out now (else it waits for FORMSVC_SMTP_URL). */
export interface CreatedInvitation extends Invitation {
  smtpConfigured: boolean;
}

export interface InvitationCreateRequest {
  email: string;
  role: Role;
}

/** The emailed link's token; a password unless the call carries the invited person's session. */
export interface InvitationAcceptRequest {
  token: string;
  password?: string;
}

export interface InvitationAccepted {
  teamId: string;
  teamName: string;
  role: Role;
  email: string;
  /** The password was set here (the person had no account with one). */
  passwordSet: boolean;
}

/** Where a submission is after `markSpam` / `markNotSpam`; `moved` is false when it already was there. */
export interface MovedSubmission {
  id: string;
  status: "inbox" | "spam";
  moved: boolean;
}

export type ExportFormat = "csv" | "json";

export interface FormListItem {
  id: string;
  name: string;
  description: string;
  submissionCount: number;
  /** Inbox submissions in state `new` (not spam). */
  unread: number;
  createdAt: string;
  updatedAt: string;
}

export interface FormList {
  forms: FormListItem[];
  nextCursor: string | null;
}

export interface SubmissionMeta {
  browser: string | null;
  browserVersion: string | null;
  os: string | null;
  osVersion: string | null;
  device: "desktop" | "mobile" | "tablet" | "smarttv" | "wearable" | "console" | "bot" | "unknown";
  country: string;
  language: string | null;
  referrer: string | null;
}

/** What the spam checks found: the learning filter's score (0 to 1) and every reason that filed it as spam. */
export interface SpamVerdict {
  score: number;
  /** `filter`, `honeypot`, `blocked-word`, `blocked-email-domain`, `disposable-email`, `too-many-links`, `duplicate`. */
  reasons: string[];
}

/** What an owner's learning spam filter has learned (`GET /spam-filter`). */
export interface SpamFilterStatus {
  /** The team whose filter it is. */
  teamId: string;
  owner: string;
  spam: number;
  notSpam: number;
  /** Whether it files spam yet: once it has learned from 20 spam and 20 not-spam submissions. */
  filing: boolean;
  /** Since when it files spam; null while it does not. */
  filingSince: string | null;
}

export interface Submission {
  id: string;
  formId: string;
  data: Record<string, unknown> & { _meta: SubmissionMeta };
  createdAt: string;
  /** null for submissions stored before the filter existed. */
  spam: SpamVerdict | null;
}

/** Where a submission is in the team's work on it; `new` until someone changes it. */
export type SubmissionState = "new" | "open" | "done" | "archived";

/** A submission as lists and `getSubmission` show it: with the inbox's state, assignee (an email), tags and note count. */
export type ListedSubmission = Submission & {
  state: SubmissionState;
  assignee: string | null;
  tags: string[];
  noteCount: number;
};

/** What `updateSubmission` (and a bulk `set`) changes; what is left out stays. */
export interface SubmissionUpdate {
  state?: SubmissionState;
  /** A member of the form's team, by email; null unassigns. */
  assignee?: string | null;
  /** Replaces the tags (at most 20, each 1 to 40 characters). */
  tags?: string[];
  /** Added to the tags (not with `tags`). */
  addTags?: string[];
  /** Taken off the tags (not with `tags`). */
  removeTags?: string[];
}

export type BulkAction = "set" | "delete" | "spam" | "not-spam";

/** `bulkSubmissions`: one action on 1 to 1,000 submissions of a form, all or none. */
export interface BulkRequest {
  ids: string[];
  action: BulkAction;
  /** The changes, for the action `set`. */
  set?: SubmissionUpdate;
}

export interface BulkResult {
  action: BulkAction;
  ids: string[];
  /** How many of them changed. */
  changed: number;
}

/** A note on a submission, for the team. */
export interface Note {
  id: string;
  submissionId: string;
  text: string;
  /** Who wrote it (the member, or who made the key); null for the command line. */
  author: string | null;
  createdAt: string;
}

/** What a submission held before one change its submitter made through the edit link (editableDays). */
export interface Revision {
  /** 1 for the values as first sent, then one more per change. */
  revision: number;
  data: Record<string, unknown>;
  /** When the submitter changed them. */
  createdAt: string;
}

/** One submission as `getSubmission` answers it: as listed, with the folder it is in. */
export type SubmissionDetail = ListedSubmission & { status: "inbox" | "spam" };

/** The owner notification as it would be sent (`previewNotification`); `submissionId` null: rendered from a sample. */
export interface NotificationPreview {
  subject: string;
  text: string;
  html: string;
  submissionId: string | null;
}

/** What to preview: a notificationTemplate not yet saved (null: formsvc's email; left out: the form's saved one). */
export interface NotificationPreviewRequest {
  template?: { subject: string; text: string } | null;
}

/** Whether a form's owner notification comes to the session's member (`myNotification`, `setMyNotification`). */
export interface MemberNotification {
  notify: boolean;
  /** What their role gives until they choose: true for owners and admins. */
  default: boolean;
}

export interface MemberNotificationRequest {
  notify: boolean;
}

export interface SubmissionList {
  submissions: ListedSubmission[];
  nextCursor: string | null;
}

/** An answer a visitor saved halfway on the hosted page (`partialSubmissions`): no submission until sent. */
export interface PartialSubmission {
  id: string;
  formId: string;
  status: "partial";
  /** The values typed so far (files are not saved). */
  data: Record<string, unknown>;
  email: string | null;
  createdAt: string;
  /** Its last save; it is deleted 30 days after. */
  updatedAt: string;
}

export interface PartialList {
  submissions: PartialSubmission[];
  nextCursor: string | null;
}

/** A fragment of a field that a search matched: `matches` are [start, end) UTF-16 offsets of each matched word in `text`. */
export interface SearchHighlight {
  /** The field's key in data, or `notes` for a note's fragment (with the note's id). */
  field: string;
  note?: string;
  text: string;
  matches: [number, number][];
}

export type SearchHit = ListedSubmission & { highlights: SearchHighlight[] };

export interface SearchResults {
  submissions: SearchHit[];
  nextCursor: string | null;
}

/**
 * A search (`searchSubmissions`): `q` in the query language (words, `foo*`, `"a phrase"`, `-word`,
 * `field:value`), across the forms the caller may read or one; the inbox, or `spam: true`. `q` may
 * be left out with a filter (formId, state, tag, assignee, from, to): every submission they take.
 */
export interface SearchQuery extends PageQuery {
  q?: string;
  formId?: string;
  spam?: boolean;
  state?: SubmissionState;
  tag?: string;
  /** A team member's email, `me` (the caller's person) or `none` (unassigned). */
  assignee?: string;
  /** createdAt at or after, before: a date or a date-time (ISO 8601). */
  from?: string;
  to?: string;
}

export interface SubmitRequest {
  formId: string;
  data: Record<string, unknown>;
  redirectUrl?: string;
  /** The solved proof-of-work challenge, for forms whose challenge is `pow`. */
  altcha?: string;
  /** A Turnstile, hCaptcha or reCAPTCHA token, for forms with those challenges. */
  captchaToken?: string;
}

export interface SubmitResult {
  success: true;
  submissionId: string;
  redirect?: string;
}

export type AnalyticsPeriod = "day" | "week" | "month" | "year";

export interface AnalyticsQuery {
  period?: AnalyticsPeriod;
  startDate?: string;
  endDate?: string;
}

export interface Analytics {
  period: AnalyticsPeriod | "custom";
  totalSubmissions: number;
  submissionsOverTime: { date: string; count: number }[];
  topCountries: { country: string; count: number }[];
  topBrowsers: { browser: string; count: number }[];
  topDevices: { device: string; count: number }[];
}

export interface PageQuery {
  /** 1 to 100; the server's default is 50. */
  limit?: number;
  cursor?: string;
}

/** A page of forms: of one team (`teamId`), or of every team of the caller. */
export interface FormListQuery extends PageQuery {
  teamId?: string;
}

/** A page of a form's submissions: the inbox (default) or the spam folder. */
export interface SubmissionQuery extends PageQuery {
  status?: "inbox" | "spam";
  /** Only these states, comma-separated (e.g. `new,open`). */
  state?: string;
  tag?: string;
  /** A member's email, or `none` for submissions assigned to nobody. */
  assignee?: string;
}

export interface RateLimit {
  limit: number;
  remaining: number;
  /** Unix seconds at which the bucket is full again. */
  reset: number;
}

export type WebhookFormat = "standard" | "slack" | "discord";

/** A webhook as lists show it (never its secret). */
export interface Webhook {
  id: string;
  formId: string;
  url: string;
  format: WebhookFormat;
  /** false once the receiver answered 410 Gone. */
  enabled: boolean;
  disabledReason: string | null;
  createdAt: string;
}

/** A new webhook: the only time its signing secret (`whsec_…`, standard format) is shown. */
export interface CreatedWebhook extends Webhook {
  secret: string | null;
}

export interface NewWebhook {
  url: string;
  format?: WebhookFormat;
}

/** One delivery of a webhook; its id is the `webhook-id` the receiver sees, the same on every retry and replay. */
export interface Delivery {
  id: string;
  status: "pending" | "succeeded" | "failed";
  attempts: number;
  /** The receiver's last HTTP status. */
  lastStatus: number | null;
  lastError: string | null;
  createdAt: string;
  nextAttemptAt: string | null;
}

/** The owner a login session acts for (`login`, `me`). */
export interface Account {
  id: string;
  /** Lower-cased: what the owner logs in with and where notifications go. */
  email: string;
  createdAt: string;
  /** The IANA time zone every email to the owner writes its times in (default `UTC`). */
  timeZone: string;
  /** False while FORMSVC_SMTP_URL is not set: every email is queued, not sent. */
  smtpConfigured: boolean;
  /** The person has a TOTP second factor: a login with the password asks for a code too. */
  totpEnabled: boolean;
  /** How many of the person's recovery codes are unused (0 without TOTP). */
  recoveryCodesLeft: number;
}

/** One of the session owner's sessions (`listSessions`); never its token. */
export interface Session {
  /** `ses_…` */
  id: string;
  createdAt: string;
  /** When it was last used, to the minute. */
  lastSeenAt: string;
  /** The User-Agent of the browser that opened it (its first 512 characters). */
  userAgent: string | null;
  /** The client address of the login, as the rate limits see it. */
  address: string | null;
  /** The session this request was made with. */
  current: boolean;
}

/** What an owner may change of their account (`updateMe`); fields left out stay. */
export interface AccountUpdateRequest {
  timeZone?: string;
}

/** An owner's email and the password set with `formsvc owners set-password`. */
export interface LoginRequest {
  email: string;
  password: string;
}

/** A login's second step: the challenge of its 401 SECOND_FACTOR_REQUIRED and a TOTP or recovery code. */
export interface SecondFactorRequest {
  challenge: string;
  code: string;
}

/** A TOTP secret to enrol (`startTotp`): SHA-1, 6 digits, 30 s. */
export interface TotpEnrolment {
  /** otpauth:// URI for an authenticator app. */
  uri: string;
  /** The secret in base32, to type in. */
  secret: string;
  /** The URI as a QR code: a data:image/png;base64 URL. */
  qr: string;
}

/** A code of the new secret (`confirmTotp`). */
export interface TotpConfirmRequest {
  code: string;
}

/** Proof of the second factor (`renewRecoveryCodes`, `disableTotp`): a TOTP code or an unused recovery code. */
export interface TotpCodeRequest {
  code: string;
}

/** One of the session owner's passkeys (`listPasskeys`); never its key. */
export interface Passkey {
  /** `pk_…` */
  id: string;
  name: string;
  createdAt: string;
  /** When it last signed in; null if never. */
  lastUsedAt: string | null;
}

/**
 * WebAuthn options (`passkeyRegistrationOptions`, `passkeyLoginOptions`) and a browser's answer to
 * them, as JSON with base64url strings: what @simplewebauthn/browser's `startRegistration` and
 * `startAuthentication` take and give (or `PublicKeyCredential.parse…FromJSON` and `toJSON()`).
 */
export type WebAuthnJson = { challenge?: string } & Record<string, unknown>;

/** A new passkey: its name (1 to 100 characters) and the browser's answer to the registration options. */
export interface PasskeyRegistrationRequest {
  name: string;
  response: WebAuthnJson;
}

/** A passkey's new name (1 to 100 characters). */
export interface PasskeyRenameRequest {
  name: string;
}

/** The recovery codes, each usable once in place of a TOTP code; shown this once. */
export interface RecoveryCodes {
  recoveryCodes: string[];
}

/** First run: the token of the link `formsvc serve` printed, and the first owner's email and password. */
export interface SetupRequest {
  token: string;
  email: string;
  password: string;
}

/** Asks for a password reset link for this email. */
export interface ResetRequest {
  email: string;
}

/** The answer to a reset request: the same whatever the email. */
export interface ResetAccepted {
  message: string;
  /** False while FORMSVC_SMTP_URL is not set: the link is queued, not sent. */
  smtpConfigured: boolean;
}

/** The token of the emailed reset link and the new password. */
export interface ResetConfirmRequest {
  token: string;
  password: string;
}

/** A team as `listTeams` shows it to one of its members: with that member's role (a key's own, for a key). */
export interface Team {
  id: string;
  name: string;
  /** A person's personal team, made with them: it is never deleted. */
  personal: boolean;
  role: Role;
  createdAt: string;
}

/** What `createTeam` and `updateTeam` take. */
export interface TeamRequest {
  name: string;
}

export interface TeamMember {
  ownerId: string;
  email: string;
  role: Role;
  joinedAt: string;
}

/** One line of a team's audit trail: who changed what, with which role; never a secret or submitted data. */
export interface AuditEvent {
  id: number;
  at: string;
  teamId: string;
  actorKind: "key" | "session" | "cli" | "system";
  /** The key's or session's id; `cli`; the job's name. */
  actorId: string;
  /** The person behind a session or who made the key; null for the command line and jobs. */
  actorEmail: string | null;
  /** The actor's role in the team when it acted; null for the command line and jobs. */
  actorRole: Role | null;
  action:
    | "key.created"
    | "key.revoked"
    | "key.role"
    | "form.created"
    | "form.updated"
    | "form.deleted"
    | "form.moved"
    | "submission.deleted"
    | "submission.moved"
    | "submission.updated"
    | "note.added"
    | "note.deleted"
    | "submissions.erased"
    | "submissions.expired"
    | "owner.login"
    | "spam.reset"
    | "team.created"
    | "team.renamed"
    | "team.deleted"
    | "member.role"
    | "member.removed"
    | "member.invited"
    | "member.joined"
    | "invitation.cancelled"
    | "mcp.list_forms"
    | "mcp.get_form"
    | "mcp.form_analytics"
    | "mcp.search_submissions"
    | "mcp.get_submission"
    | "mcp.update_submission"
    | "mcp.add_note"
    | "mcp.mark_spam"
    | "mcp.mark_not_spam";
  objectId: string | null;
  detail: Record<string, string | number | boolean | null | string[]> | null;
}
