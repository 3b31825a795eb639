import { Type } from "@sinclair/typebox";
import { t, type Static } from "elysia";
import { OneOf, UnknownField } from "../../http/schemas";

export const FORM_TYPES = ["feedback", "contact", "waitlist", "custom", "survey", "application", "order", "analytics_opt_in", "rsvp"] as const;
export type FormType = (typeof FORM_TYPES)[number];

export const CHALLENGES = ["none", "pow", "turnstile", "hcaptcha"] as const;
export type Challenge = (typeof CHALLENGES)[number];

export interface Form {
  id: string;
  ownerId: string;
  name: string;
  description: string;
  formType: FormType;
  emailEnabled: boolean;
  developerNotifications: boolean;
  usersJoinedEnabled: boolean;
  submissionCount: number;
  usersJoinedCount: number;
  /** Origins allowed to submit with a publishable key (and to be redirected to); empty = any. */
  allowedOrigins: string[];
  /** A field that people leave empty and bots fill: a submission with it is spam. null = none. */
  honeypotField: string | null;
  challenge: Challenge;
  /** An email to the submitter of each inbox submission (throttled per address), `{{field}}` placeholders from its data. */
  autoresponse: Autoresponse;
  /** Waitlists: joiners count once they confirm their address through the link emailed to them. */
  doubleOptIn: boolean;
  /** Where a confirmed joiner is sent (303) instead of formsvc's own page; null = the page. */
  confirmRedirectUrl: string | null;
  /** Submissions older than this many days are deleted by the retention job; null = kept forever. */
  retentionDays: number | null;
  createdAt: string;
  updatedAt: string;
}

export interface Autoresponse {
  enabled: boolean;
  subject: string;
  text: string;
}

/** The longest retention a form may set: a hundred years (null keeps submissions forever). */
export const MAX_RETENTION_DAYS = 36_500;

/** A plain JSON Schema integer (Elysia's t.Integer also accepts numeric strings, which no response carries). */
export const Count = () => t.Unsafe<number>({ type: "integer", minimum: 0 });
const timestamp = t.String({ format: "date-time", description: "ISO 8601, UTC, milliseconds" });

/** A form as `GET /forms/{formId}` (and `formsvc forms show --json`) shows it. */
export const FormSchema = t.Object({
  id: t.String(),
  name: t.String(),
  description: t.String(),
  formType: t.Unsafe<FormType>({ type: "string", enum: [...FORM_TYPES] }),
  submissionCount: Count(),
  createdAt: timestamp,
  updatedAt: timestamp,
  emailSettings: t.Object({ enabled: t.Boolean(), developerNotificationsEnabled: t.Boolean() }),
  usersJoinedSettings: t.Nullable(t.Object({ enabled: t.Boolean(), count: Count() }), {
    description: "waitlist forms only; null for other types",
  }),
  allowedOrigins: t.Array(t.String(), {
    description: "origins (https://www.example.com) allowed to submit with a publishable key, and to be redirected to; [] = any",
  }),
  spamSettings: t.Object({
    honeypotField: t.Nullable(t.String(), { description: "a field left empty by people: a submission that fills it is stored as spam; null = none" }),
    challenge: t.Unsafe<Challenge>({ type: "string", enum: [...CHALLENGES], description: "what a submission must carry: nothing, a proof of work, or a Turnstile or hCaptcha token" }),
  }),
  autoresponse: t.Object(
    {
      enabled: t.Boolean(),
      subject: t.String({ description: "Mustache template: {{field}} is the submission's field" }),
      text: t.String({ description: "Mustache template of the message; its HTML part escapes every value" }),
    },
    { description: "an email to the submitter's extracted address for each inbox submission, at most once per address and form per hour (needs emailSettings.enabled)" },
  ),
  doubleOptIn: t.Boolean({ description: "waitlists: each new joiner is emailed a confirmation link and counts only once they opened it" }),
  confirmRedirectUrl: t.Nullable(t.String({ description: "where an opened confirmation link sends the joiner (303); null = formsvc's own page" })),
  retentionDays: t.Nullable(t.Unsafe<number>({ type: "integer", minimum: 1, maximum: MAX_RETENTION_DAYS }), {
    description: "submissions older than this many days are deleted (checked every hour); null = kept forever",
  }),
});
export type FormJson = Static<typeof FormSchema>;

/** A form as the forms list shows it. */
export const FormListItemSchema = t.Object({
  id: t.String(),
  name: t.String(),
  description: t.String(),
  submissionCount: Count(),
  createdAt: timestamp,
  updatedAt: timestamp,
});
export type FormListItemJson = Static<typeof FormListItemSchema>;

export const FormListSchema = t.Object({ forms: t.Array(FormListItemSchema), nextCursor: t.Nullable(t.String()) });
export type FormListJson = Static<typeof FormListSchema>;

export const UsersJoinedSchema = t.Object({ usersJoined: Count() });
export type UsersJoinedJson = Static<typeof UsersJoinedSchema>;

/** What a waitlist answers: distinct joiners, or 0 while its counter is off. */
export const usersJoined = (f: Form) => (f.usersJoinedEnabled ? f.usersJoinedCount : 0);

export function toFormJson(f: Form): FormJson {
  return {
    id: f.id,
    name: f.name,
    description: f.description,
    formType: f.formType,
    submissionCount: f.submissionCount,
    createdAt: f.createdAt,
    updatedAt: f.updatedAt,
    emailSettings: { enabled: f.emailEnabled, developerNotificationsEnabled: f.developerNotifications },
    usersJoinedSettings: f.formType === "waitlist" ? { enabled: f.usersJoinedEnabled, count: usersJoined(f) } : null,
    allowedOrigins: f.allowedOrigins,
    spamSettings: { honeypotField: f.honeypotField, challenge: f.challenge },
    autoresponse: { ...f.autoresponse },
    doubleOptIn: f.doubleOptIn,
    confirmRedirectUrl: f.confirmRedirectUrl,
    retentionDays: f.retentionDays,
  };
}

export function toFormListItem(f: Form): FormListItemJson {
  return { id: f.id, name: f.name, description: f.description, submissionCount: f.submissionCount, createdAt: f.createdAt, updatedAt: f.updatedAt };
}

/** The settings a form's body may carry (POST /forms, PATCH /forms/{formId}), shaped as Get Form shows them. */
const settingsFields = {
  description: t.Optional(t.String({ maxLength: 2000, error: "description must be at most 2000 characters" })),
  formType: t.Optional(OneOf(FORM_TYPES, `formType must be one of ${FORM_TYPES.join(", ")}`)),
  emailSettings: t.Optional(
    t.Object(
      {
        enabled: t.Optional(t.Boolean({ description: "the form's master switch for email" })),
        developerNotificationsEnabled: t.Optional(t.Boolean({ description: "email the owner on every submission" })),
      },
      { additionalProperties: UnknownField, error: "emailSettings may hold enabled and developerNotificationsEnabled, each true or false" },
    ),
  ),
  usersJoinedSettings: t.Optional(
    t.Object({ enabled: t.Boolean({ description: "count distinct joiners (waitlist forms)" }) }, { additionalProperties: UnknownField, error: "usersJoinedSettings must be {enabled: true|false}; its count is the server's" }),
  ),
  allowedOrigins: t.Optional(
    t.Array(t.String({ maxLength: 2048 }), { maxItems: 1000, error: "allowedOrigins must be a list of origins such as https://www.example.com", description: "[] = any origin" }),
  ),
  spamSettings: t.Optional(
    t.Object(
      {
        honeypotField: t.Optional(t.Nullable(t.String({ maxLength: 100 }), { description: "null turns the honeypot off" })),
        challenge: t.Optional(OneOf(CHALLENGES, `challenge must be one of ${CHALLENGES.join(", ")}`)),
      },
      { additionalProperties: UnknownField, error: "spamSettings may hold honeypotField (a field name or null) and challenge" },
    ),
  ),
  retentionDays: t.Optional(
    // TypeBox's own integer: Elysia's t.Integer would also take "30", a string.
    t.Nullable(Type.Integer({ minimum: 1, maximum: MAX_RETENTION_DAYS }), {
      error: `retentionDays must be a whole number of days from 1 to ${MAX_RETENTION_DAYS}, or null to keep submissions forever`,
      description: "delete submissions older than this many days; null = keep forever",
    }),
  ),
};

const nameField = t.String({ minLength: 1, maxLength: 200, error: "name must be 1 to 200 characters" });

/** `POST /forms`: a new form's settings, as Get Form shows them; only `name` is required. Read-only fields (id, counts, times) are refused. */
export const FormCreateSchema = t.Object({ name: nameField, ...settingsFields }, { additionalProperties: UnknownField });
export type FormCreateBody = Static<typeof FormCreateSchema>;

/** `PATCH /forms/{formId}`: the settings to change; what is left out stays as it is. */
export const FormPatchSchema = t.Object({ name: t.Optional(nameField), ...settingsFields }, { additionalProperties: UnknownField });
export type FormPatchBody = Static<typeof FormPatchSchema>;

/** What deleting something answers (`DELETE /forms/{formId}`, `formsvc forms delete --json`, and a submission's). */
export const DeletedSchema = t.Object({ id: t.String(), deleted: t.Literal(true) });
export type DeletedJson = Static<typeof DeletedSchema>;
