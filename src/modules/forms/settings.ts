/**
 * Every form setting, once. Get Form's schema and JSON, the bodies of `POST /forms` and
 * `PATCH /forms/{formId}`, the service's validation and defaults, the audit's changed-field names,
 * the repo's columns, `forms create|update` flags and `forms show` text all derive from this
 * table. A module's own rows live beside its code (spam/settings.ts, files/settings.ts,
 * notifications/settings.ts) and are composed here, in Get Form's order; what a row is, and how a
 * value is checked, is setting-row.ts. The dashboard's control for each setting is in
 * src/dashboard/app/setting-controls.ts, keyed by `SettingKey`, so a row without a control fails
 * the type check.
 *
 * How to add a setting (e.g. `fromName`):
 * 1. A migration adding its column(s), and its field on `Form` (model.ts).
 * 2. One row, in its module's settings file (or here), placed in the list below where Get Form
 *    shows it: `schema` (what Get Form shows), `input` (what a body may give: every limit the
 *    server checks, as JSON Schema keywords, so the OpenAPI document says them; a 400 sentence
 *    `error` naming the setting), `field`, `column` and `stored`, `default`, `check` only for what
 *    a schema cannot say (a rule of meaning: a template that parses), `normalize`, `example` (a
 *    valid value other than the default: the tests set every setting to it), `cli` (flags, with a
 *    `hint` for what the command line adds) and `show`.
 * 3. Its help, one sentence for a person, in setting-help.ts (tsc says so): the OpenAPI
 *    description, the CLI help and the dashboard's help line.
 * 4. Its control in setting-controls.ts (tsc says so), and its type in src/client/types.ts
 *    (test/client/types-match.ts says so).
 * The input schema is the validation, for the API (Elysia) and the CLI (the service) alike. Rules
 * between settings (an autoresponse needs subject and text, double opt-in only on waitlists) are
 * in service.ts's `applied`, each said with the API's field names and the CLI's flags.
 */
import { Type, type TNull, type TObject, type TOptional, type TSchema, type TUnion } from "@sinclair/typebox";
import { t, type Static as ElysiaStatic } from "elysia";
import { OneOf, UnknownField } from "../../http/schemas";
import { isLocationUrl, LOCATION_URL_PATTERN, ORIGIN_PATTERN } from "../../lib/location-url";
import { fieldsProblem, FieldRuleInput, FieldRuleSchema, MAX_FIELDS, normalizeFields } from "./fields";
import { parseOriginSetting } from "../../lib/origin";
import {
  Count,
  FORM_TYPES,
  MAX_RETENTION_DAYS,
  timestamp,
  usersJoined,
  type FieldRule,
  type Form,
  type FormType,
} from "./model";
import { FILES_SETTING } from "../files/settings";
import {
  EMAIL_SETTINGS,
  AUTORESPONSE_SETTINGS,
  RECIPIENTS,
  NOTIFICATION_TEMPLATE,
  FROM_NAME,
  NOTIFY_MODE,
} from "../notifications/settings";
import { ACCENT_COLOR, EDITABLE_DAYS, LOCALE, PARTIAL_SUBMISSIONS } from "../dropin/settings";
import { SPAM_SETTINGS } from "../spam/settings";
import { SETTING_HELP } from "./setting-help";
import {
  group,
  isWaitlist,
  NOT_BLANK,
  on,
  readJsonFile,
  readOnly,
  setting,
  type Group,
  type Row,
  type Setting,
  type Stored,
} from "./setting-row";

export type { Setting, CliFlag, FormPath, Stored } from "./setting-row";

// Far beyond any form, and well inside the integer column of both engines.
const MAX_SUBMISSIONS_CAP = 1_000_000_000;

// An ISO 8601 time with its offset: a bare date or local time would mean another instant on each server.
const ISO_TIME =
  "^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\\.[0-9]{1,9})?(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$";
// What the pattern cannot say: the day exists in its month (JavaScript would roll 30 February over to March).
const dayExists = (v: string) => {
  const [y, m, d] = v.slice(0, 10).split("-").map(Number) as [number, number, number];
  const last = new Date(0);
  last.setUTCFullYear(y, m, 0); // not Date.UTC, which reads years 0 to 99 as 1900 to 1999
  return d <= last.getUTCDate();
};
const MAX_ORIGINS = 100;

// What the patterns let through and the server refuses: a host label in punycode that does not decode.
const punycodeProblem = (key: string) => `${key}: a host name in punycode (xn--…) must decode to an IDN host`;

/** A URL put in a Location header: what lib/location-url.ts takes, as its pattern says. */
const locationUrl = () =>
  t.String({
    maxLength: 2048,
    pattern: LOCATION_URL_PATTERN,
    description:
      "an absolute http(s) URL without user or password; its host an ASCII name (an IDN in punycode, xn--…, that must decode), IPv4 or IPv6",
  });

/** A URL setting put in a Location header (successUrl, errorUrl), checked as confirmRedirectUrl is. */
function locationSetting(
  key: "successUrl" | "errorUrl",
  column: string,
  o: { what: string; example: string; flag: string; no: string; label: string },
) {
  return setting({
    schema: t.Nullable(t.String()),
    input: t.Nullable(locationUrl(), { error: `${key}: ${o.what} must be an absolute http(s) URL or null` }),
    field: key,
    column,
    stored: "plain",
    default: null,
    check: (v: string | null) => (v !== null && !isLocationUrl(v) ? punycodeProblem(key) : undefined),
    example: o.example,
    cli: { flag: o.flag, no: { help: o.no, value: null } },
    show: { label: o.label, text: (v) => v ?? "formsvc's page" },
  });
}

/** The table, in the order Get Form shows the settings. */
export const SETTINGS = {
  id: readOnly({ schema: t.String(), field: "id", show: { label: "id", text: (v) => v } }),
  teamId: readOnly({
    schema: t.String({ description: "the team that owns the form (POST /forms/{formId}/move moves it)" }),
    field: "teamId",
    show: { label: "team", text: (v) => v },
  }),
  name: setting({
    schema: t.String(),
    input: t.String({ minLength: 1, maxLength: 200, pattern: NOT_BLANK, error: "name must be 1 to 200 characters" }),
    field: "name",
    column: "name",
    stored: "plain",
    normalize: (v: string) => v.trim(),
    example: "Renamed",
    cli: { flag: "--name <name>", create: { required: true } },
    show: { label: "name", text: (v) => v },
  }),
  description: setting({
    schema: t.String(),
    input: t.String({ maxLength: 2000, error: "description must be at most 2000 characters" }),
    field: "description",
    column: "description",
    stored: "plain",
    default: "",
    example: "Who wrote to us",
    cli: {
      flag: "--description <text>",
      no: { help: "clear the description", value: "" },
    },
    show: { label: "description", text: (v) => v },
  }),
  formType: setting({
    schema: t.Unsafe<FormType>({ type: "string", enum: [...FORM_TYPES] }),
    input: OneOf(FORM_TYPES, `formType must be one of ${FORM_TYPES.join(", ")}`),
    field: "formType",
    column: "form_type",
    stored: "plain",
    default: "custom",
    example: "waitlist",
    cli: { flag: "--type <type>", hint: `one of ${FORM_TYPES.join(", ")}`, create: { default: "custom" } },
    show: { label: "type", text: (v) => v },
  }),
  submissionCount: readOnly({
    schema: Count(),
    field: "submissionCount",
    show: { label: "submissions", text: (v) => v },
  }),
  unread: readOnly({
    schema: Count("inbox submissions in state new (not spam)"),
    field: "unread",
    show: { label: "unread", text: (v) => v },
  }),
  emailSettings: EMAIL_SETTINGS,
  usersJoinedSettings: group<
    {
      enabled: Setting<ReturnType<typeof t.Boolean>>;
      count: Setting<ReturnType<typeof Count>> & { input: null };
    },
    true
  >({
    error: "usersJoinedSettings must be {enabled: true|false}; its count is the server's",
    nullable: { description: "waitlist forms only; null for other types", when: (f) => !isWaitlist(f) },
    settings: {
      enabled: setting({
        schema: t.Boolean(),
        input: t.Boolean({
          error: "usersJoinedSettings.enabled must be true or false",
        }),
        field: "usersJoinedEnabled",
        column: "users_joined_enabled",
        stored: "boolean",
        default: false,
        example: true,
        cli: {
          flag: "--users-joined",
          no: { help: "stop counting joiners (the API then shows 0)", value: false },
        },
        show: { label: "users joined", text: (v, f) => (v ? usersJoined(f) : "counter off"), when: isWaitlist },
      }),
      count: readOnly({ schema: Count(), field: "usersJoinedCount", shown: usersJoined }),
    },
  }),
  allowedOrigins: setting({
    schema: t.Array(t.String()),
    input: t.Array(
      t.String({
        maxLength: 2048,
        pattern: ORIGIN_PATTERN,
        description:
          "scheme, host and port only, a trailing slash at most; the host an ASCII name (an IDN in punycode, xn--…, that must decode), IPv4 or IPv6",
        error: "allowedOrigins: an item is not an origin such as https://www.example.com (scheme, host and port only)",
      }),
      {
        maxItems: MAX_ORIGINS,
        error: `allowedOrigins must be a list of at most ${MAX_ORIGINS} origins such as https://www.example.com (scheme, host and port only)`,
      },
    ),
    field: "allowedOrigins",
    column: "allowed_origins",
    stored: "json",
    default: [],
    check: (v: string[]) => (v.every((o) => parseOriginSetting(o)) ? undefined : punycodeProblem("allowedOrigins")),
    normalize: (v: string[]) => [...new Set(v.map((o) => parseOriginSetting(o)!))],
    example: ["https://www.example.com"],
    cli: {
      flag: "--allowed-origins <urls>",
      hint: "comma-separated",
      parse: (text) => text.split(",").filter((v) => v.trim() !== ""),
      no: { help: "accept publishable-key submissions from any origin again", value: [] },
    },
    show: { label: "allowed origins", text: (v) => (v.length ? v.join(", ") : "any") },
  }),
  spamSettings: SPAM_SETTINGS,
  autoresponse: AUTORESPONSE_SETTINGS,
  doubleOptIn: setting({
    schema: t.Boolean(),
    input: t.Boolean({ error: "doubleOptIn must be true or false" }),
    field: "doubleOptIn",
    column: "double_opt_in",
    stored: "boolean",
    default: false,
    example: true,
    cli: {
      flag: "--double-opt-in",
      no: { help: "count every joiner again, confirmed or not", value: false },
    },
    show: { label: "double opt-in", text: on, when: isWaitlist },
  }),
  confirmRedirectUrl: setting({
    schema: t.Nullable(t.String()),
    input: t.Nullable(locationUrl(), {
      error: "confirmRedirectUrl: the confirm redirect URL must be an absolute http(s) URL or null",
    }),
    field: "confirmRedirectUrl",
    column: "confirm_redirect_url",
    stored: "plain",
    default: null,
    check: (v: string | null) => (v !== null && !isLocationUrl(v) ? punycodeProblem("confirmRedirectUrl") : undefined),
    example: "https://www.example.com/welcome",
    cli: {
      flag: "--confirm-redirect-url <url>",
      no: { help: "show formsvc's own page after confirming", value: null },
    },
    show: { label: "after confirming", text: (v) => v ?? "formsvc's page", when: isWaitlist },
  }),
  retentionDays: setting({
    schema: t.Nullable(t.Unsafe<number>({ type: "integer", minimum: 1, maximum: MAX_RETENTION_DAYS })),
    // TypeBox's own integer: Elysia's t.Integer would also take "30", a string.
    input: t.Nullable(Type.Integer({ minimum: 1, maximum: MAX_RETENTION_DAYS }), {
      error: `retentionDays must be a whole number of days from 1 to ${MAX_RETENTION_DAYS}, or null to keep submissions forever`,
    }),
    field: "retentionDays",
    column: "retention_days",
    stored: "plain",
    default: null,
    example: 30,
    cli: {
      flag: "--retention-days <n>",
      parse: (text) => (/^\d+$/.test(text) ? Number(text) : NaN),
      no: { flag: "--no-retention", help: "keep submissions forever (the default)", value: null, onCreate: true },
    },
    show: { label: "retention", text: (v) => (v === null ? "forever" : `${v} day(s)`) },
  }),
  publicEndpoint: setting({
    schema: t.Boolean(),
    input: t.Boolean({ error: "publicEndpoint must be true or false" }),
    field: "publicEndpoint",
    column: "public_endpoint",
    stored: "boolean",
    default: true,
    example: false,
    cli: {
      flag: "--public-endpoint",
      hint: "the default for new forms",
      no: { help: "only take submissions with a key", value: false, onCreate: true },
    },
    show: { label: "drop-in endpoint /f/", text: on },
  }),
  fields: setting({
    schema: t.Nullable(t.Array(FieldRuleSchema)),
    input: t.Nullable(t.Array(FieldRuleInput, { maxItems: MAX_FIELDS }), {
      error: `fields must be null or a list of at most ${MAX_FIELDS} fields {name, type, label?, required?, minLength?, maxLength?, min?, max?, options?, multiple?, placeholder?, showIf?}`,
    }),
    field: "fields",
    column: "fields",
    stored: "json",
    default: null,
    check: fieldsProblem,
    normalize: normalizeFields,
    example: [
      { name: "email", type: "email", label: "Email", required: true },
      { name: "topic", type: "select", options: ["sales", "support"] },
    ] satisfies FieldRule[],
    cli: {
      flag: "--fields-file <file>",
      hint: "a JSON file holding the list [{name, type, required?, …}]",
      parse: (file) => readJsonFile("fields (--fields-file)", file),
      no: { help: "take any fields again, unchecked", value: null },
    },
    show: {
      label: "fields",
      text: (v) =>
        v === null ? "any" : v.map((f) => `${f.name} (${f.type}${f.required ? ", required" : ""})`).join(", "),
    },
  }),
  allowExtraFields: setting({
    schema: t.Boolean(),
    input: t.Boolean({ error: "allowExtraFields must be true or false" }),
    field: "allowExtraFields",
    column: "allow_extra_fields",
    stored: "boolean",
    default: false,
    example: true,
    cli: {
      flag: "--allow-extra-fields",
      no: { help: "refuse fields the list does not name", value: false },
    },
    show: { label: "extra fields", text: (v) => (v ? "stored" : "refused"), when: (f) => f.fields !== null },
  }),
  files: FILES_SETTING,
  paused: setting({
    schema: t.Boolean(),
    input: t.Boolean({ error: "paused must be true or false" }),
    field: "paused",
    column: "paused",
    stored: "boolean",
    default: false,
    example: true,
    cli: {
      flag: "--paused",
      hint: "until --no-paused",
      no: { help: "take submissions again", value: false },
    },
    show: { label: "paused", text: (v) => (v ? "yes: submissions are refused" : "no") },
  }),
  closesAt: setting({
    schema: t.Nullable(timestamp()),
    input: t.Nullable(
      t.String({
        format: "date-time",
        pattern: ISO_TIME,
        maxLength: 100,
        description: "with its seconds and its offset (Z or ±hh:mm)",
      }),
      { error: "closesAt: the closing time must be an ISO 8601 time with its offset (2030-01-31T18:00:00Z) or null" },
    ),
    field: "closesAt",
    column: "closes_at",
    stored: "plain",
    default: null,
    check: (v: string | null) =>
      v !== null && !dayExists(v) ? `closesAt: ${v.slice(0, 10)} is no day of the calendar` : undefined,
    normalize: (v: string | null) => (v === null ? null : new Date(v).toISOString()),
    example: "2030-01-31T18:00:00.000Z",
    cli: {
      flag: "--closes-at <time>",
      hint: "ISO 8601 with its offset: 2030-01-31T18:00:00Z",
      no: { flag: "--no-closes-at", help: "never close by time", value: null },
    },
    show: { label: "closes", text: (v) => v ?? "never" },
  }),
  maxSubmissions: setting({
    schema: t.Nullable(t.Unsafe<number>({ type: "integer", minimum: 1 })),
    input: t.Nullable(Type.Integer({ minimum: 1, maximum: MAX_SUBMISSIONS_CAP }), {
      error: `maxSubmissions must be a whole number from 1 to ${MAX_SUBMISSIONS_CAP.toLocaleString("en")}, or null for no limit`,
    }),
    field: "maxSubmissions",
    column: "max_submissions",
    stored: "plain",
    default: null,
    example: 500,
    cli: {
      flag: "--max-submissions <n>",
      parse: (text) => (/^\d+$/.test(text) ? Number(text) : NaN),
      no: { help: "no limit (the default)", value: null },
    },
    show: { label: "at most", text: (v) => (v === null ? "no limit" : `${v} submission(s)`) },
  }),
  oneResponsePerEmail: setting({
    schema: t.Boolean(),
    input: t.Boolean({ error: "oneResponsePerEmail must be true or false" }),
    field: "oneResponsePerEmail",
    column: "one_response_per_email",
    stored: "boolean",
    default: false,
    example: true,
    cli: {
      flag: "--one-response-per-email",
      no: { help: "take any number of submissions from one address (the default)", value: false },
    },
    show: { label: "one response per email", text: on },
  }),
  editableDays: EDITABLE_DAYS,
  successUrl: locationSetting("successUrl", "success_url", {
    what: "the success URL",
    example: "https://www.example.com/thanks",
    flag: "--success-url <url>",
    no: "show formsvc's thank-you page",
    label: "after submitting",
  }),
  errorUrl: locationSetting("errorUrl", "error_url", {
    what: "the error URL",
    example: "https://www.example.com/oops",
    flag: "--error-url <url>",
    no: "show formsvc's error page",
    label: "after a refusal",
  }),
  accentColor: ACCENT_COLOR,
  locale: LOCALE,
  partialSubmissions: PARTIAL_SUBMISSIONS,
  recipients: RECIPIENTS,
  notificationTemplate: NOTIFICATION_TEMPLATE,
  fromName: FROM_NAME,
  notifyMode: NOTIFY_MODE,
  warnings: readOnly({
    schema: t.Array(
      t.Object({
        code: t.Literal("REDIRECT_NOT_ALLOWED"),
        target: t.String({ description: "the redirect target the page sent (`_next` or `redirectUrl`), as sent" }),
        at: timestamp(),
      }),
      {
        description:
          "what the owner should know, newest first, the last 5 distinct targets: REDIRECT_NOT_ALLOWED is a redirect target that was not allowed (not on allowedOrigins, or with none set not on the posting page's origin) or not an http(s) URL; the post was stored and the visitor sent to formsvc's thank-you page",
      },
    ),
    field: "warnings",
    show: {
      label: "warnings",
      text: (v) => v.map((w) => `${w.at} redirect not allowed: ${w.target}`).join("; "),
      when: (form) => form.warnings.length > 0,
    },
  }),
  createdAt: readOnly({ schema: timestamp(), field: "createdAt", show: { label: "created", text: (v) => v } }),
  updatedAt: readOnly({ schema: timestamp(), field: "updatedAt", show: { label: "updated", text: (v) => v } }),
};

type Table = typeof SETTINGS;
type IsGroup<R> = R extends Group<infer _M, infer _N> ? true : false;
type Writable<R> = R extends { input: null } ? false : true;

/** Get Form's properties, from the table. */
type Shown<T> = {
  [K in keyof T]: T[K] extends Group<infer M, infer N>
    ? N extends true
      ? TUnion<[TObject<Shown<M>>, TNull]>
      : TObject<Shown<M>>
    : T[K] extends Setting<infer S, infer _I>
      ? S
      : never;
};

/** A body's properties (POST, PATCH), from the table: every writable setting, optional. */
type Inputs<T> = {
  [K in keyof T as T[K] extends Group<infer _M> ? K : Writable<T[K]> extends true ? K : never]: TOptional<
    T[K] extends Group<infer M> ? TObject<Inputs<M>> : T[K] extends Setting<infer _S, infer I> ? I : never
  >;
};

/** Every writable setting's key as Get Form names it: `name`, `emailSettings.enabled`, … */
type Keys<T, P extends string = ""> = {
  [K in keyof T & string]: T[K] extends Group<infer M>
    ? Keys<M, `${P}${K}.`>
    : Writable<T[K]> extends true
      ? `${P}${K}`
      : never;
}[keyof T & string];
export type SettingKey = Keys<Table>;
// setting-help.ts holds help for each writable setting, and for nothing else.
SETTING_HELP satisfies Record<SettingKey, string>;
const _noStrayHelp: SettingKey = "" as keyof typeof SETTING_HELP;

/** A writable setting with its key. */
export interface Leaf {
  key: SettingKey;
  row: Setting;
}

const isGroup = (r: Row): r is Group<Record<string, Setting>> => "settings" in r;

// JSON Schema counts a string's length in characters, the server (TypeBox, as JavaScript) in UTF-16
// code units: every length of a body says so once, here, rather than by each limit.
const UTF16 = "lengths in UTF-16 code units, as JavaScript counts: a character beyond U+FFFF (most emoji) counts 2";

/**
 * Walks a row's input schema once: each length says its unit, and each schema inside without a
 * sentence of its own says the row's (a 400 names the setting, whichever part of it failed).
 */
function finishInput(schema: TSchema, error: unknown): void {
  const s = schema as {
    description?: string;
    error?: unknown;
    minLength?: number;
    maxLength?: number;
    items?: unknown;
    anyOf?: unknown[];
    properties?: Record<string, unknown>;
  };
  if ((s.minLength !== undefined || s.maxLength !== undefined) && !s.description?.includes(UTF16))
    s.description = s.description ? `${s.description} (${UTF16})` : UTF16;
  s.error ??= error;
  for (const inner of [s.items, s.anyOf, s.properties && Object.values(s.properties)].flat())
    if (inner && typeof inner === "object") finishInput(inner as TSchema, s.error);
}

/** Every setting of the table, read-only ones too, with its key, in Get Form's order. */
export const ALL_SETTINGS: { key: string; row: Setting }[] = Object.entries(SETTINGS as Record<string, Row>).flatMap(
  ([k, r]) =>
    isGroup(r) ? Object.entries(r.settings).map(([m, row]) => ({ key: `${k}.${m}`, row })) : [{ key: k, row: r }],
);

/** The settings a body may carry, with their keys. */
export const WRITABLE_SETTINGS = ALL_SETTINGS.filter((s) => s.row.input !== null) as Leaf[];
// Each setting's help (setting-help.ts) describes it in Get Form and in the bodies; a body's own note follows.
for (const { key, row } of WRITABLE_SETTINGS) {
  const help = SETTING_HELP[key];
  const input = (row.input ?? row.schema) as TSchema & { description?: string; error?: unknown };
  finishInput(input, input.error);
  if (input !== row.schema) input.description = input.description ? `${help} ${input.description}` : help;
  // Elysia's document may show a nullable value's own description in place of the union's.
  for (const member of (input.anyOf ?? []) as { description?: string }[])
    if (member.description) member.description = `${help} ${member.description}`;
  (row.schema as { description?: string }).description = help;
}

/** A setting's help as `forms create|update --help` says it: with what the command line adds. */
export const cliHelp = (key: SettingKey, hint?: string): string =>
  hint ? `${SETTING_HELP[key].replace(/\.$/, "")} (${hint})` : SETTING_HELP[key];

const showProps = (rows: Record<string, Row>): Record<string, TSchema> =>
  Object.fromEntries(
    Object.entries(rows).map(([k, r]) => {
      if (!isGroup(r)) return [k, r.schema];
      const object = t.Object(
        showProps(r.settings),
        r.description && !r.nullable ? { description: r.description } : {},
      );
      return [k, r.nullable ? t.Nullable(object, { description: r.nullable.description }) : object];
    }),
  );

const inputProps = (rows: Record<string, Row>): Record<string, TSchema> =>
  Object.fromEntries(
    Object.entries(rows).flatMap(([k, r]) => {
      // At least one member: Elysia reads `null` for an object as `{}`, so this is what refuses null (a 400, as for any wrong value).
      if (isGroup(r))
        return [
          [
            k,
            t.Optional(
              t.Object(inputProps(r.settings), {
                additionalProperties: UnknownField,
                minProperties: 1,
                error: r.error,
              }),
            ),
          ],
        ];
      return r.input === null ? [] : [[k, t.Optional(r.input ?? r.schema)]];
    }),
  );

/** Get Form's properties (model.ts wraps them in its FormSchema). */
export const shownProperties = showProps(SETTINGS as Record<string, Row>) as Shown<Table>;

/** The properties of the POST and PATCH bodies: every writable setting, optional. */
export const inputProperties = inputProps(SETTINGS as Record<string, Row>) as Inputs<Table>;

/** How Get Form shows one value of a form. */
type Show = (form: Form) => unknown;

/** Reads a dotted path of a form, the path split once. */
const readerOf = (path: string): Show => {
  const parts = path.split(".");
  return (form) =>
    parts.reduce<unknown>((v, part) => (v == null ? undefined : (v as Record<string, unknown>)[part]), form);
};

const showOf = (s: Setting): Show => {
  if (s.shown) return s.shown;
  const read = readerOf(s.field);
  return (form) => copy(read(form));
};

// Get Form's keys with how each is shown, made once from the table: Get Form is the hottest read.
const SHOWN: [string, Show][] = Object.entries(SETTINGS as Record<string, Row>).map(([k, r]): [string, Show] => {
  if (!isGroup(r)) return [k, showOf(r)];
  const members = Object.entries(r.settings).map(([m, s]): [string, Show] => [m, showOf(s)]);
  return [
    k,
    (form) => {
      if (r.nullable?.when(form)) return null;
      const group: Record<string, unknown> = {};
      for (const [m, show] of members) group[m] = show(form);
      return group;
    },
  ];
});

/** A form as Get Form shows it, from the table. */
export function shownForm(form: Form): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, show] of SHOWN) out[k] = show(form);
  return out;
}

// Lists are copied, so a caller's change to an answer never reaches a cached form.
const copy = (v: unknown) => (Array.isArray(v) ? [...v] : v);

/** What a setting is stored as, by its column. */
export const CODECS: Record<Stored, { toColumn: (v: unknown) => unknown; fromColumn: (v: unknown) => unknown }> = {
  plain: { toColumn: (v) => v, fromColumn: (v) => v },
  boolean: { toColumn: (v) => Number(v), fromColumn: (v) => v === 1 || v === true },
  json: { toColumn: (v) => JSON.stringify(v), fromColumn: (v) => JSON.parse(v as string) },
};

/** The settings stored in the forms table, each with its column. */
export const STORED_SETTINGS = ALL_SETTINGS.filter(
  (s): s is { key: string; row: Setting & { column: string } } => s.row.column !== undefined,
);

/** A form as `GET /forms/{formId}` (and `formsvc forms show --json`) shows it. */
export const FormSchema = t.Object(shownProperties);
export type FormJson = ElysiaStatic<typeof FormSchema>;

/** Get Form's answer for a form. */
export const toFormJson = (form: Form): FormJson => shownForm(form) as FormJson;

// Keyed by the form object: a cached form is replaced by a new object whenever it changes (edits,
// counted submissions, another process's commit), never changed in place, so its text cannot go stale.
const formTexts = new WeakMap<Form, string>();

/** Get Form's answer for a form as JSON text, built once per form object (GET /forms/{formId} is a dashboard's poll). */
export function formJsonText(form: Form): string {
  let text = formTexts.get(form);
  if (text === undefined) formTexts.set(form, (text = JSON.stringify(shownForm(form))));
  return text;
}

const { name: nameInput, ...settingInputs } = inputProperties;

/** `POST /forms`: a new form's settings, as Get Form shows them; only `name` is required. Read-only fields (id, counts, times) are refused. */
export const FormCreateSchema = t.Object(
  {
    name: SETTINGS.name.input!,
    teamId: t.Optional(
      t.String({
        minLength: 1,
        maxLength: 200,
        error: "teamId must be a team id",
        description:
          "the team to make the form in, where the caller is an editor or above (default: a key's own team, a session's personal team)",
      }),
    ),
    ...settingInputs,
  },
  { additionalProperties: UnknownField },
);
export type FormCreateBody = ElysiaStatic<typeof FormCreateSchema>;

/** `PATCH /forms/{formId}`: the settings to change; what is left out stays as it is. */
export const FormPatchSchema = t.Object({ name: nameInput, ...settingInputs }, { additionalProperties: UnknownField });
export type FormPatchBody = ElysiaStatic<typeof FormPatchSchema>;
