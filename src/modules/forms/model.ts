import { t, type Static } from "elysia";

export const FORM_TYPES = ["feedback", "contact", "waitlist", "custom", "survey", "application", "order", "analytics_opt_in", "rsvp"] as const;
export type FormType = (typeof FORM_TYPES)[number];

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
  createdAt: string;
  updatedAt: string;
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
  };
}

export function toFormListItem(f: Form): FormListItemJson {
  return { id: f.id, name: f.name, description: f.description, submissionCount: f.submissionCount, createdAt: f.createdAt, updatedAt: f.updatedAt };
}
