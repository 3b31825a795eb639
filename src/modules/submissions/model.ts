import { t, type Static } from "elysia";
import type { Slots } from "../../lib/slots";
import type { Form } from "../forms/model";
import { FormId } from "../../http/schemas";
import { SpamVerdictSchema } from "../spam/model";
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

/** The longest `formId` a submit may name (ids are far shorter; this only bounds what is looked up). */
export const MAX_FORM_ID_LENGTH = 200;
export const MAX_REDIRECT_URL_LENGTH = 2048;

// Challenge answers are a few hundred bytes; anything far longer is no answer.
const MAX_CHALLENGE_LENGTH = 8192;

const FormIdField = t.String({ minLength: 1, maxLength: MAX_FORM_ID_LENGTH, description: "the form's id" });

/**
 * Any text: a target that is not a valid http(s) URL, or not allowed, is dropped (allowed-origin.ts)
 * and the post stored, answered as one without it.
 */
const RedirectUrlField = t.String({
  maxLength: MAX_REDIRECT_URL_LENGTH,
  description:
    "where a browser form post is sent (303): an absolute http(s) URL (without user:password@) on one of the form's allowedOrigins, or with none set on the posting page's own origin; any other is dropped, the post stored and answered as one without it, and the form shows a REDIRECT_NOT_ALLOWED warning",
});

/**
 * The JSON submit body. read-body.ts checks every body against this very schema (compiled once), and
 * the OpenAPI document shows it; what JSON Schema cannot say (nesting depth, numbers out of range,
 * strict UTF-8) is checked there and told in the descriptions.
 */
export const SubmitBodySchema = t.Object(
  {
    formId: FormIdField,
    // Any object. An open t.Object, typed as the record it is: t.Record's check would test every key
    // against a pattern on each submit (~0.3 µs of a ~1 µs read), to accept every key anyway.
    data: t.Unsafe<Record<string, unknown>>(
      t.Object(
        {},
        {
          additionalProperties: true,
          // For the document: the check for empty names is read-body.ts's (TypeBox does not read propertyNames).
          propertyNames: { minLength: 1 },
          description:
            "the form's fields: any JSON object, nested at most 32 levels, numbers within IEEE double range, no field with an empty name; a _meta key is replaced by the server's",
        },
      ),
    ),
    redirectUrl: t.Optional(RedirectUrlField),
    altcha: t.Optional(
      t.String({
        maxLength: MAX_CHALLENGE_LENGTH,
        description:
          "the solved proof-of-work challenge (what the altcha widget puts in its field), for a form whose challenge is pow; never stored",
      }),
    ),
    captchaToken: t.Optional(
      t.String({
        maxLength: MAX_CHALLENGE_LENGTH,
        description:
          "the Turnstile, hCaptcha or reCAPTCHA token, for a form whose challenge is turnstile, hcaptcha or recaptcha; never stored",
      }),
    ),
  },
  { additionalProperties: false },
);
export type SubmitBody = Static<typeof SubmitBodySchema>;

/** Form-post fields that carry a challenge's answer into the body's `altcha` / `captchaToken` (never into `data`). */
export const CHALLENGE_FIELDS = new Map<string, "altcha" | "captchaToken">([
  ["altcha", "altcha"],
  ["cf-turnstile-response", "captchaToken"],
  ["h-captcha-response", "captchaToken"],
  ["g-recaptcha-response", "captchaToken"],
]);

/**
 * A browser form post (urlencoded or multipart), as documentation: its fields are gathered into
 * `{formId, redirectUrl?, data}` and checked against SubmitBodySchema. Every other field is text
 * and goes into `data`; a repeated name keeps every value; a field with an empty name is a 400.
 */
export const SubmitFormSchema = t.Object(
  {
    formId: FormIdField,
    redirectUrl: t.Optional(
      t.Union([t.Literal(""), RedirectUrlField], { description: "answered 303 to it; empty means no redirect" }),
    ),
    altcha: t.Optional(
      t.String({ description: "the altcha widget's solved challenge (forms with challenge pow); never stored" }),
    ),
    "cf-turnstile-response": t.Optional(
      t.String({ description: "the Turnstile widget's token (forms with challenge turnstile); never stored" }),
    ),
    "h-captcha-response": t.Optional(
      t.String({ description: "the hCaptcha widget's token (forms with challenge hcaptcha); never stored" }),
    ),
    "g-recaptcha-response": t.Optional(
      t.String({ description: "the reCAPTCHA widget's token (forms with challenge recaptcha); never stored" }),
    ),
  },
  {
    additionalProperties: t.Union([t.String(), t.Array(t.String())]),
    // As the JSON body's data: a field with an empty name is a 400 (read-body.ts, files/service.ts).
    propertyNames: { minLength: 1 },
  },
);

/** The Idempotency-Key header: 1 to 255 printable ASCII characters (checked after trimming). */
export const IdempotencyKeySchema = t.String({
  minLength: 1,
  maxLength: 255,
  pattern: "^[\\x20-\\x7e]+$",
  description:
    "a retry with the same key for the same form returns the first answer and stores nothing new (kept 24 h)",
});

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
  spam: t.Nullable(SpamVerdictSchema, { description: "what the spam checks found; null for submissions from before" }),
});
export type SubmissionJson = {
  id: string;
  formId: string;
  data: Record<string, unknown> & { _meta: SubmissionMeta };
  createdAt: string;
  spam: { score: number; reasons: string[] } | null;
};

/** Where a submission is in the team's work on it (`new` until someone changes it); not the folder (`status`). */
export const SUBMISSION_STATES = ["new", "open", "done", "archived"] as const;
export type SubmissionState = (typeof SUBMISSION_STATES)[number];
export const MAX_TAGS = 20;
export const MAX_TAG_LENGTH = 40;
export const MAX_NOTE_LENGTH = 10_000;

/** What the team keeps on a submission beside what was submitted (the inbox): lists and reads show it. */
export const triageProperties = {
  state: t.Unsafe<SubmissionState>({
    type: "string",
    enum: [...SUBMISSION_STATES],
    description: "new (until someone changes it), open, done or archived; unread counts the inbox's new ones",
  }),
  assignee: t.Nullable(t.String({ description: "the email of the team member it is assigned to; null for none" })),
  tags: t.Array(t.String(), { description: `at most ${MAX_TAGS}, each 1 to ${MAX_TAG_LENGTH} characters, sorted` }),
  noteCount: t.Unsafe<number>({ type: "integer", minimum: 0, description: "how many notes it has (GET …/notes)" }),
};
export type TriageJson = { state: SubmissionState; assignee: string | null; tags: string[]; noteCount: number };

/** A submission as lists and reads show it: what was submitted, and the inbox's state, assignee, tags and note count. */
export const ListedSubmissionSchema = t.Object({ ...SubmissionSchema.properties, ...triageProperties });
export type ListedSubmissionJson = SubmissionJson & TriageJson;

/** One submission (`GET /forms/{formId}/submissions/{submissionId}`): as listed, with the folder it is in. */
export const SubmissionDetailSchema = t.Object({
  ...ListedSubmissionSchema.properties,
  status: t.Union([t.Literal("inbox"), t.Literal("spam")], { description: "inbox, or spam: counted nowhere" }),
});
export type SubmissionDetailJson = ListedSubmissionJson & { status: "inbox" | "spam" };

export const SubmissionListSchema = t.Object({
  submissions: t.Array(ListedSubmissionSchema),
  nextCursor: t.Nullable(t.String()),
});
export type SubmissionListJson = { submissions: ListedSubmissionJson[]; nextCursor: string | null };

/** A whole form's inbox as `GET /forms/{formId}/submissions/export?format=json` streams it, oldest first. */
export const SubmissionExportSchema = t.Array(ListedSubmissionSchema);

export const SubmissionParams = t.Object({
  formId: FormId,
  // `export` names the export route beside `…/submissions/{submissionId}`.
  submissionId: t.String({
    minLength: 1,
    maxLength: 200,
    not: { enum: ["export"] },
    error: "submissionId must be a submission id",
  }),
});

/** Where a moved submission is now (`POST …/spam`, `…/not-spam`, and `formsvc submissions spam|not-spam --json`). */
export const MovedSchema = t.Object({
  id: t.String(),
  status: t.Union([t.Literal("inbox"), t.Literal("spam")]),
  moved: t.Boolean({ description: "false when it already was there" }),
});
export type MovedJson = Static<typeof MovedSchema>;

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
  /** What the spam checks found, as JSON text (`{score, reasons}`); left out (seeding, tests), null as for submissions from before. */
  spam?: string | null;
  /** What the stages added to it, each in its own slot (lib/slots.ts); empty for one read back from the database. */
  stages: Slots;
  /** Deleted by an erasure of its person: its spam lesson is taken out of the model too (spam/filter-repo.ts `forgetLessons`). */
  erased?: true;
  /** A stored one's as stored; left out for a new one, which is `new`: the forms' `unread` counts the inbox's new ones. */
  state?: SubmissionState;
}

/** A stored submission with `data` still as JSON text, so listing never parses and re-serialises it. */
export interface StoredSubmission {
  id: string;
  formId: string;
  data: string;
  email: string | null;
  createdAt: string;
  /** `{score, reasons}` as JSON text, or null for submissions from before the filter. */
  spam: string | null;
  state: SubmissionState;
}

/** A stored submission as lists and reads show it: with its assignee's email, its tags and its note count. */
export interface ListedSubmission extends StoredSubmission {
  assignee: string | null;
  tags: string[];
  noteCount: number;
}

/** The API's item shape as JSON text: `data` is stored as JSON, so it is spliced in, never parsed and re-serialised. */
export const submissionJson = (s: Omit<StoredSubmission, "state">) =>
  `{"id":${JSON.stringify(s.id)},"formId":${JSON.stringify(s.formId)},"data":${s.data},"createdAt":${JSON.stringify(s.createdAt)},"spam":${s.spam ?? "null"}}`;

/** A submission as lists and reads show it, as JSON text (`data` spliced in, as `submissionJson`). */
export const listedJson = (s: ListedSubmission) =>
  `${submissionJson(s).slice(0, -1)},"state":"${s.state}","assignee":${JSON.stringify(s.assignee)},"tags":${JSON.stringify(s.tags)},"noteCount":${s.noteCount}}`;
