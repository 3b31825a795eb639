import { t, type Static } from "elysia";

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
  createdAt: string;
  updatedAt: string;
}

export interface Autoresponse {
  enabled: boolean;
  subject: string;
  text: string;
}

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
  };
}

export function toFormListItem(f: Form): FormListItemJson {
  return { id: f.id, name: f.name, description: f.description, submissionCount: f.submissionCount, createdAt: f.createdAt, updatedAt: f.updatedAt };
}
