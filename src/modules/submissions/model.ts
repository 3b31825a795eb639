import { t, type Static } from "elysia";
import type { Form } from "../forms/model";
import { DEVICES, type Device, type SubmissionMeta } from "./meta";

const MetaSchema = t.Object(
  {
    browser: t.Nullable(t.String()),
    browserVersion: t.Nullable(t.String()),
    os: t.Nullable(t.String()),
    osVersion: t.Nullable(t.String()),
    device: t.Unsafe<Device>({ type: "string", enum: [...DEVICES] }),
    country: t.String({ description: "ISO 3166-1 alpha-2; ZZ when unknown" }),
    language: t.Nullable(t.String({ description: "primary tag of Accept-Language" })),
    referrer: t.Nullable(t.String({ description: "origin of Referer" })),
  },
  { description: "written by the server; a _meta sent by the client is dropped" },
);

export const SubmitBodySchema = t.Object({
  formId: t.String({ minLength: 1 }),
  redirectUrl: t.Optional(t.String({ format: "uri", description: "absolute http(s) URL; browser form posts are answered 303 to it" })),
  data: t.Record(t.String(), t.Unknown(), { description: "the form's fields" }),
}, { additionalProperties: false });
export type SubmitBody = Static<typeof SubmitBodySchema>;

export const SubmitResultSchema = t.Object({
  success: t.Literal(true),
  submissionId: t.String(),
  redirect: t.Optional(t.String()),
});
export type SubmitResult = Static<typeof SubmitResultSchema>;

export const SubmissionSchema = t.Object({
  id: t.String(),
  formId: t.String(),
  data: t.Intersect([t.Record(t.String(), t.Unknown()), t.Object({ _meta: MetaSchema })]),
  createdAt: t.String({ format: "date-time" }),
});
export type SubmissionJson = { id: string; formId: string; data: Record<string, unknown> & { _meta: SubmissionMeta }; createdAt: string };

export const SubmissionListSchema = t.Object({ submissions: t.Array(SubmissionSchema), nextCursor: t.Nullable(t.String()) });
export type SubmissionListJson = { submissions: SubmissionJson[]; nextCursor: string | null };

/** `inbox`, or `spam`: stored, but counted nowhere (counters, analytics, notifications). */
export type SubmissionStatus = "inbox" | "spam";

/** A submission on its way to the database, with what the same transaction needs besides the row. */
export interface NewSubmission {
  id: string;
  form: Form;
  status: SubmissionStatus;
  /** `data` with `_meta`, serialised once. */
  json: string;
  meta: SubmissionMeta;
  email: string | null;
  createdAt: string;
  idempotency: { key: string; response: string } | null;
}

/** A stored submission with `data` still as JSON text, so listing never parses and re-serialises it. */
export interface StoredSubmission {
  id: string;
  formId: string;
  data: string;
  email: string | null;
  createdAt: string;
}

/** The API's item shape as JSON text: `data` is stored as JSON, so it is spliced in, never parsed and re-serialised. */
export const submissionJson = (s: StoredSubmission) =>
  `{"id":${JSON.stringify(s.id)},"formId":${JSON.stringify(s.formId)},"data":${s.data},"createdAt":${JSON.stringify(s.createdAt)}}`;
