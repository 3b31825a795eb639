/**
 * Every form setting, once. Get Form's schema and JSON, the bodies of `POST /forms` and
 * `PATCH /forms/{formId}`, the service's checks and defaults, the audit's changed-field names,
 * the repo's columns, `forms create|update` flags and `forms show` text all derive from this
 * table; the dashboard's control for each setting is in src/dashboard/app/setting-controls.ts,
 * keyed by `SettingKey`, so a row without a control fails the type check.
 *
 * How to add a setting (wave 3: publicEndpoint, fields, files, recipients, successUrl, …):
 * 1. A migration adding its column(s) (SQLite and PostgreSQL), and its field on `Form` (model.ts).
 * 2. One row below, at the place Get Form shows it: `schema` (what Get Form shows), `input` when
 *    the body takes more than the schema says (limits, a 400 message that names the setting),
 *    `field` (where it sits on Form), `column` and `stored` (`json` for lists and objects, `boolean`,
 *    or `plain`), `default` for a new form, `check` for what a schema cannot say, `example` (a valid
 *    value that is not the default: the tests set every setting to it), `cli` and `show`.
 *    A setting inside `spamSettings` is a row in that group's `settings`; a list of objects
 *    (`fields`, `recipients`) or a nullable object (`files`, `notificationTemplate`) is one row whose
 *    schema is that list or `t.Nullable(t.Object(…))`, stored as `json`.
 * 3. Its control in setting-controls.ts (tsc says so), and its type in src/client/types.ts
 *    (test/client/types-match.ts says so).
 * Rules between settings (an autoresponse needs subject and text, double opt-in only on waitlists)
 * are in service.ts's `withOutbound`.
 */
import {
  Type,
  type Static,
  type TNull,
  type TObject,
  type TOptional,
  type TSchema,
  type TUnion,
} from "@sinclair/typebox";
import { t, type Static as ElysiaStatic } from "elysia";
import { readFileSync } from "node:fs";
import { AppError } from "../../lib/errors";
import { OneOf, UnknownField } from "../../http/schemas";
import { isLocationUrl } from "../../lib/location-url";
import { fieldsProblem, FieldRuleInput, FieldRuleSchema, MAX_FIELDS, normalizeFields } from "./fields";
import { parseOriginSetting } from "../../lib/origin";
import { checkTemplate } from "../../lib/template";
import { normalizeEmail } from "../../lib/email";
import {
  CHALLENGES,
  Count,
  FORM_TYPES,
  MAX_RETENTION_DAYS,
  NOTIFY_MODES,
  timestamp,
  usersJoined,
  type Autoresponse,
  type Challenge,
  type FieldRule,
  type Form,
  type FormType,
  type NotifyMode,
} from "./model";
import { setAt, valueAt } from "../../lib/dotted-path";
import { DEFAULT_FILES, FilesSettingInput, FilesSettingSchema, filesProblem, normalizeFiles } from "../files/model";

/** Where a setting's value sits on a Form (the service's view): a field, or a field of its autoresponse. */
export type FormPath = Exclude<keyof Form, "autoresponse"> | `autoresponse.${keyof Autoresponse}`;

/** How a column holds the value: as it is, 0/1, or JSON text. */
export type Stored = "plain" | "boolean" | "json";

/** The command-line flags of a setting, for `forms create|update`. */
export interface CliFlag {
  /** commander's flag, e.g. "--challenge <kind>" or "--email-notifications". */
  flag: string;
  help: string;
  /** A value flag's text as the setting's value (default: the text itself); boolean flags give true. */
  parse?: (text: string) => unknown;
  /** Only on `forms update`. */
  updateOnly?: boolean;
  /** On `forms create`: required, or the value it has when left out (shown in the help). */
  create?: { required: true } | { default: string };
  /** The flag that clears the setting (`--no-honeypot`), with the value it sets; on update only unless `onCreate`. */
  no?: { flag?: string; help: string; value: unknown; onCreate?: boolean };
}

/** One row: a value Get Form shows, and (`I`) what a body may give for it. */
export interface Setting<S extends TSchema = TSchema, I extends TSchema = S> {
  /** What Get Form shows. */
  schema: S;
  /**
   * What POST and PATCH take, and so the request types (default: `schema`): every value Get Form
   * shows (`setting` checks it), with limits and a 400 that names the setting, and perhaps more
   * spellings of them (recipients: plain addresses too); null = read-only.
   */
  input?: I | null;
  field: FormPath;
  /** Get Form's value when it is not the field's own. */
  shown?: (form: Form) => Static<S>;
  /** The forms table's column, and how it holds the value; none for the repo's own columns (id, counters, times). */
  column?: string;
  stored?: Stored;
  /** A new form's value. */
  default?: Static<S>;
  /** What a schema cannot say (a template that parses, an origin): a sentence naming the setting, or nothing when fine. */
  check?: (value: never) => string | undefined;
  /** The value as kept (trimmed, normalised), once checked. */
  normalize?: (value: never) => unknown;
  /** A valid value other than the default, for the tests that set every setting. */
  example?: Static<S>;
  cli?: CliFlag | CliFlag[];
  /** A line of `forms show`: its label and text; left out where `when` says. */
  show?: { label: string; text(value: Static<S>, form: Form): unknown; when?: (form: Form) => boolean };
}

/** A JSON object of settings (`emailSettings`, `spamSettings`, …); null in Get Form where `nullWhen` says. */
export interface Group<M extends Record<string, Setting>, N extends boolean = boolean> {
  settings: M;
  description?: string;
  /** The 400 for a body that gives this object with a wrong member. */
  error: string;
  nullable?: N extends true ? { description: string; when: (form: Form) => boolean } : never;
}

type Row = Setting | Group<Record<string, Setting>>;

// A body may give back what Get Form shows: the input's values include the schema's.
const setting = <S extends TSchema, I extends TSchema = S>(
  row: Setting<S, I> & (Static<S> extends Static<I> ? unknown : { input: "must take every value Get Form shows" }),
): Setting<S, I> => row;
/** A value Get Form shows that no body may carry (ids, counters, times). */
const readOnly = <S extends TSchema>(row: Omit<Setting<S>, "input">): Setting<S> & { input: null } => ({
  ...row,
  input: null,
});
const group = <M extends Record<string, Setting>, N extends boolean = false>(g: Group<M, N>): Group<M, N> => g;

const on = (v: boolean) => (v ? "on" : "off");
const isWaitlist = (f: Form) => f.formType === "waitlist";

// Fields of the submit body itself can never be a honeypot: they are not form fields.
const RESERVED_FIELDS = new Set([
  "formId",
  "redirectUrl",
  "data",
  "altcha",
  "captchaToken",
  "cf-turnstile-response",
  "h-captcha-response",
  "g-recaptcha-response",
]);
const MAX_ORIGINS = 100;
// The spam rules' lists: room for any owner's list, far below a hostile body.
const MAX_RULE_ITEMS = 500;
const MAX_RULE_TEXT = 100;
const MAX_LINKS_CAP = 1000;
const MAX_DUPLICATE_WINDOW = 30 * 24 * 60 * 60;
// A host name of at least two labels (example.com), as the rules compare email domains.
const DOMAIN = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/i;

const templateProblem = (what: string, template: string, max: number) => {
  if (template.length > max) return `${what} must be at most ${max.toLocaleString("en")} characters`;
  try {
    checkTemplate(template);
  } catch (e) {
    return `${what} is not a valid template: ${(e as Error).message}`;
  }
  return undefined;
};

// Far beyond any form, and well inside the integer column of both engines.
const MAX_SUBMISSIONS_CAP = 1_000_000_000;

// An ISO 8601 time with its offset: a bare date or local time would mean another instant on each server.
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;
const isIsoTime = (v: string) => ISO_TIME.test(v) && !Number.isNaN(Date.parse(v));

/** A `--…-file` flag: the file's JSON; a file that cannot be read or parsed is a 400 that names the setting. */
function readJsonFile(what: string, file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw new AppError("INVALID_PARAMETER", `${what}: cannot read ${file}: ${(e as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new AppError("INVALID_PARAMETER", `${what}: ${file} is not JSON: ${(e as Error).message}`);
  }
}

/** A flag's JSON text; text that does not parse is a 400 that names the setting. */
function parseJsonFlag(what: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new AppError("INVALID_PARAMETER", `${what}: not JSON: ${(e as Error).message}`);
  }
}

/** At most this many notification recipients per form. */
export const MAX_RECIPIENTS = 10;
// A notification template's subject or text: room for any email, far below a hostile 100 KB.
const MAX_TEMPLATE = 10_000;
const recipientEmail = (r: string | { email: string }) => (typeof r === "string" ? r : r.email);

/** A URL setting put in a Location header (successUrl, errorUrl), checked as confirmRedirectUrl is. */
function locationSetting(
  key: "successUrl" | "errorUrl",
  column: string,
  o: { description: string; what: string; example: string; flag: string; help: string; no: string; label: string },
) {
  return setting({
    schema: t.Nullable(t.String({ description: o.description })),
    input: t.Nullable(t.String({ maxLength: 2048 }), { error: `${key} must be an absolute http(s) URL or null` }),
    field: key,
    column,
    stored: "plain",
    default: null,
    check: (v: string | null) =>
      typeof v === "string" && (v.length > 2048 || !isLocationUrl(v))
        ? `${key}: ${o.what} must be an absolute http(s) URL with a valid host name, at most 2,048 characters`
        : undefined,
    example: o.example,
    cli: { flag: o.flag, help: o.help, no: { help: o.no, value: null } },
    show: { label: o.label, text: (v) => v ?? "formsvc's page" },
  });
}

/** The table, in the order Get Form shows the settings. */
export const SETTINGS = {
  id: readOnly({ schema: t.String(), field: "id", show: { label: "id", text: (v) => v } }),
  name: setting({
    schema: t.String(),
    input: t.String({ minLength: 1, maxLength: 200, error: "name must be 1 to 200 characters" }),
    field: "name",
    column: "name",
    stored: "plain",
    check: (v: string) => (v.trim() === "" || v.length > 200 ? "name must be 1 to 200 characters" : undefined),
    normalize: (v: string) => v.trim(),
    example: "Renamed",
    cli: { flag: "--name <name>", help: "form name", create: { required: true } },
    show: { label: "name", text: (v) => v },
  }),
  description: setting({
    schema: t.String(),
    input: t.String({ maxLength: 2000, error: "description must be at most 2000 characters" }),
    field: "description",
    column: "description",
    stored: "plain",
    default: "",
    check: (v: string) => (v.length > 2000 ? "description must be at most 2000 characters" : undefined),
    example: "Who wrote to us",
    cli: {
      flag: "--description <text>",
      help: "shown to no one but you",
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
    check: (v: string) =>
      (FORM_TYPES as readonly string[]).includes(v)
        ? undefined
        : `formType (--type): the type must be one of ${FORM_TYPES.join(", ")}`,
    example: "waitlist",
    cli: { flag: "--type <type>", help: `one of ${FORM_TYPES.join(", ")}`, create: { default: "custom" } },
    show: { label: "type", text: (v) => v },
  }),
  submissionCount: readOnly({
    schema: Count(),
    field: "submissionCount",
    show: { label: "submissions", text: (v) => v },
  }),
  emailSettings: group({
    error: "emailSettings may hold enabled and developerNotificationsEnabled, each true or false",
    settings: {
      enabled: setting({
        schema: t.Boolean(),
        input: t.Boolean({
          description: "the form's master switch for email",
          error: "emailSettings.enabled must be true or false",
        }),
        field: "emailEnabled",
        column: "email_enabled",
        stored: "boolean",
        default: false,
        example: true,
        cli: {
          flag: "--email-notifications",
          help: "master switch for email on this form",
          no: { help: "turn all email for this form off", value: false },
        },
        show: { label: "email notifications", text: on },
      }),
      developerNotificationsEnabled: setting({
        schema: t.Boolean(),
        input: t.Boolean({
          description: "email the owner on every submission",
          error: "emailSettings.developerNotificationsEnabled must be true or false",
        }),
        field: "developerNotifications",
        column: "developer_notifications",
        stored: "boolean",
        default: false,
        example: true,
        cli: {
          flag: "--developer-notifications",
          help: "email the owner on every submission (needs --email-notifications)",
          no: { help: "stop emailing the owner on every submission", value: false },
        },
        show: { label: "developer notifications", text: on },
      }),
    },
  }),
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
          description: "count distinct joiners (waitlist forms)",
          error: "usersJoinedSettings.enabled must be true or false",
        }),
        field: "usersJoinedEnabled",
        column: "users_joined_enabled",
        stored: "boolean",
        default: false,
        example: true,
        cli: {
          flag: "--users-joined",
          help: "count distinct joiners (waitlist forms)",
          no: { help: "stop counting joiners (the API then shows 0)", value: false },
        },
        show: { label: "users joined", text: (v, f) => (v ? usersJoined(f) : "counter off"), when: isWaitlist },
      }),
      count: readOnly({ schema: Count(), field: "usersJoinedCount", shown: usersJoined }),
    },
  }),
  allowedOrigins: setting({
    schema: t.Array(t.String(), {
      description:
        "origins (https://www.example.com) allowed to submit with a publishable key, and to be redirected to; [] = any",
    }),
    input: t.Array(t.String({ maxLength: 2048 }), {
      maxItems: 1000,
      error: "allowedOrigins must be a list of origins such as https://www.example.com",
      description: "[] = any origin",
    }),
    field: "allowedOrigins",
    column: "allowed_origins",
    stored: "json",
    default: [],
    check: (v: string[]) => {
      const bad = v.filter((o) => !parseOriginSetting(o));
      if (bad.length)
        return bad
          .map(
            (o) =>
              `allowedOrigins: "${o.slice(0, 100)}" is not an origin such as https://www.example.com (scheme, host and port only)`,
          )
          .join("; ");
      return new Set(v.map((o) => parseOriginSetting(o))).size > MAX_ORIGINS
        ? `allowedOrigins: at most ${MAX_ORIGINS} allowed origins`
        : undefined;
    },
    normalize: (v: string[]) => [...new Set(v.map((o) => parseOriginSetting(o)!))],
    example: ["https://www.example.com"],
    cli: {
      flag: "--allowed-origins <urls>",
      help: "origins whose pages may submit with a publishable key, comma-separated (https://www.example.com); redirects only to them",
      parse: (text) => text.split(",").filter((v) => v.trim() !== ""),
      no: { help: "accept publishable-key submissions from any origin again", value: [] },
    },
    show: { label: "allowed origins", text: (v) => (v.length ? v.join(", ") : "any") },
  }),
  spamSettings: group({
    error:
      "spamSettings may hold honeypotField (a field name or null), challenge, blockedWords, blockedEmailDomains, blockDisposableEmail, maxLinks, duplicateWindowSeconds, threshold and recaptchaMinScore",
    settings: {
      honeypotField: setting({
        schema: t.Nullable(
          t.String({
            description: "a field left empty by people: a submission that fills it is stored as spam; null = none",
          }),
        ),
        input: t.Nullable(t.String({ maxLength: 100 }), {
          description: "null turns the honeypot off",
          error: "spamSettings.honeypotField must be a field name or null",
        }),
        field: "honeypotField",
        column: "honeypot_field",
        stored: "plain",
        default: "_gotcha",
        check: (v: string | null) =>
          v !== null && (!/^[\x21-\x7e]{1,100}$/.test(v) || RESERVED_FIELDS.has(v))
            ? "spamSettings.honeypotField: the honeypot field must be 1 to 100 printable characters without spaces, and not a field of the submit body itself"
            : undefined,
        example: "website",
        cli: {
          flag: "--honeypot <name>",
          help: "a hidden field people leave empty: a submission that fills it is stored as spam (default _gotcha)",
          no: { help: "no honeypot field", value: null, onCreate: true },
        },
        show: { label: "honeypot field", text: (v) => v ?? "none" },
      }),
      challenge: setting({
        schema: t.Unsafe<Challenge>({
          type: "string",
          enum: [...CHALLENGES],
          description:
            "what a submission must carry: nothing, a proof of work, or a Turnstile, hCaptcha or reCAPTCHA token",
        }),
        input: OneOf(CHALLENGES, `spamSettings.challenge must be one of ${CHALLENGES.join(", ")}`),
        field: "challenge",
        column: "challenge",
        stored: "plain",
        default: "none",
        check: (v: string) =>
          (CHALLENGES as readonly string[]).includes(v)
            ? undefined
            : `spamSettings.challenge must be one of ${CHALLENGES.join(", ")}`,
        example: "pow",
        cli: {
          flag: "--challenge <kind>",
          help: `what a submission must solve: ${CHALLENGES.join(", ")} (default none)`,
        },
        show: { label: "challenge", text: (v) => v },
      }),
      blockedWords: setting({
        schema: t.Array(t.String(), {
          description:
            "words or phrases, whole words in any case: a submission holding one is filed as spam (reason blocked-word)",
        }),
        input: t.Array(t.String({ maxLength: MAX_RULE_TEXT }), {
          maxItems: MAX_RULE_ITEMS,
          error: `spamSettings.blockedWords must be a list of at most ${MAX_RULE_ITEMS} words or phrases of 1 to ${MAX_RULE_TEXT} characters`,
        }),
        field: "blockedWords",
        column: "spam_blocked_words",
        stored: "json",
        default: [],
        check: (v: string[]) =>
          v.length > MAX_RULE_ITEMS || v.some((w) => w.trim() === "" || w.length > MAX_RULE_TEXT)
            ? `spamSettings.blockedWords must be a list of at most ${MAX_RULE_ITEMS} words or phrases of 1 to ${MAX_RULE_TEXT} characters`
            : undefined,
        normalize: (v: string[]) => [...new Set(v.map((w) => w.trim().replace(/\s+/g, " ").toLowerCase()))],
        example: ["casino", "cheap pills"],
        cli: {
          flag: "--blocked-words <words>",
          help: "words or phrases (comma-separated, whole words, any case) that file a submission as spam",
          parse: (text) => text.split(",").filter((v) => v.trim() !== ""),
          no: { help: "no blocked words", value: [] },
        },
        show: { label: "blocked words", text: (v) => (v.length ? v.join(", ") : "none") },
      }),
      blockedEmailDomains: setting({
        schema: t.Array(t.String(), {
          description:
            "email domains (and their subdomains): a submission carrying an address at one is filed as spam (reason blocked-email-domain)",
        }),
        input: t.Array(t.String({ maxLength: 253 }), {
          maxItems: MAX_RULE_ITEMS,
          error: `spamSettings.blockedEmailDomains must be a list of at most ${MAX_RULE_ITEMS} domain names`,
        }),
        field: "blockedEmailDomains",
        column: "spam_blocked_email_domains",
        stored: "json",
        default: [],
        check: (v: string[]) => {
          const bad = v.filter((d) => !DOMAIN.test(d.trim().replace(/^@/, "")));
          if (bad.length)
            return `spamSettings.blockedEmailDomains: ${bad.map((d) => JSON.stringify(d.slice(0, 100))).join(", ")} ${bad.length === 1 ? "is not a domain name" : "are not domain names"} such as example.com`;
          return v.length > MAX_RULE_ITEMS
            ? `spamSettings.blockedEmailDomains: at most ${MAX_RULE_ITEMS} domains`
            : undefined;
        },
        normalize: (v: string[]) => [...new Set(v.map((d) => d.trim().replace(/^@/, "").toLowerCase()))],
        example: ["spam.example"],
        cli: {
          flag: "--blocked-email-domains <domains>",
          help: "email domains (comma-separated) whose addresses file a submission as spam",
          parse: (text) => text.split(",").filter((v) => v.trim() !== ""),
          no: { help: "no blocked email domains", value: [] },
        },
        show: { label: "blocked email domains", text: (v) => (v.length ? v.join(", ") : "none") },
      }),
      blockDisposableEmail: setting({
        schema: t.Boolean({
          description:
            "file as spam a submission carrying an address at a throwaway-mail domain (the list of the mailchecker package; reason disposable-email)",
        }),
        input: t.Boolean({ error: "spamSettings.blockDisposableEmail must be true or false" }),
        field: "blockDisposableEmail",
        column: "spam_block_disposable",
        stored: "boolean",
        default: false,
        example: true,
        cli: {
          flag: "--block-disposable-email",
          help: "file submissions from throwaway-mail addresses as spam",
          no: { help: "take throwaway-mail addresses like any other", value: false },
        },
        show: { label: "disposable email", text: (v) => (v ? "filed as spam" : "accepted") },
      }),
      maxLinks: setting({
        schema: t.Nullable(t.Unsafe<number>({ type: "integer", minimum: 0 }), {
          description:
            "a submission with more links (URLs across its fields) is filed as spam (reason too-many-links); null = no cap",
        }),
        input: t.Nullable(Type.Integer({ minimum: 0, maximum: MAX_LINKS_CAP }), {
          error: `spamSettings.maxLinks must be a whole number from 0 to ${MAX_LINKS_CAP}, or null for no cap`,
        }),
        field: "maxLinks",
        column: "spam_max_links",
        stored: "plain",
        default: null,
        check: (v: number | null) =>
          v !== null && !(Number.isInteger(v) && v >= 0 && v <= MAX_LINKS_CAP)
            ? `spamSettings.maxLinks must be a whole number from 0 to ${MAX_LINKS_CAP}, or none (--max-links N, --no-max-links)`
            : undefined,
        example: 2,
        cli: {
          flag: "--max-links <n>",
          help: "file a submission with more links than this as spam",
          parse: (text) => (/^\d+$/.test(text) ? Number(text) : NaN),
          no: { help: "no cap on links (the default)", value: null },
        },
        show: { label: "links", text: (v) => (v === null ? "any number" : `at most ${v}`) },
      }),
      duplicateWindowSeconds: setting({
        schema: t.Nullable(t.Unsafe<number>({ type: "integer", minimum: 1 }), {
          description:
            "the same fields from the same visitor within this many seconds are filed as spam (reason duplicate); null = off",
        }),
        input: t.Nullable(Type.Integer({ minimum: 1, maximum: MAX_DUPLICATE_WINDOW }), {
          error: `spamSettings.duplicateWindowSeconds must be a whole number of seconds from 1 to ${MAX_DUPLICATE_WINDOW}, or null for off`,
        }),
        field: "duplicateWindowSeconds",
        column: "spam_duplicate_window",
        stored: "plain",
        default: null,
        check: (v: number | null) =>
          v !== null && !(Number.isInteger(v) && v >= 1 && v <= MAX_DUPLICATE_WINDOW)
            ? `spamSettings.duplicateWindowSeconds must be a whole number of seconds from 1 to ${MAX_DUPLICATE_WINDOW}, or none (--duplicate-window N, --no-duplicate-window)`
            : undefined,
        example: 3600,
        cli: {
          flag: "--duplicate-window <seconds>",
          help: "file the same fields from the same visitor within this many seconds as spam",
          parse: (text) => (/^\d+$/.test(text) ? Number(text) : NaN),
          no: { help: "take repeated submissions like any other (the default)", value: null },
        },
        show: { label: "duplicates", text: (v) => (v === null ? "accepted" : `spam within ${v} s`) },
      }),
      threshold: setting({
        schema: t.Number({
          minimum: 0,
          maximum: 1,
          description:
            "the learning filter files a submission scoring at or above this as spam (reason filter), once it has learned from 20 spam and 20 not-spam submissions",
        }),
        input: t.Number({ minimum: 0.5, maximum: 1, error: "spamSettings.threshold must be a number from 0.5 to 1" }),
        field: "spamThreshold",
        column: "spam_threshold",
        stored: "plain",
        default: 0.9,
        check: (v: number) =>
          Number.isFinite(v) && v >= 0.5 && v <= 1
            ? undefined
            : "spamSettings.threshold must be a number from 0.5 to 1",
        example: 0.95,
        cli: {
          flag: "--spam-threshold <score>",
          help: "the learning filter's score (0.5 to 1) at which it files a submission as spam (default 0.9)",
          parse: (text) => (/^\d+(\.\d+)?$/.test(text) ? Number(text) : NaN),
        },
        show: { label: "filter threshold", text: (v) => v },
      }),
      recaptchaMinScore: setting({
        schema: t.Number({
          minimum: 0,
          maximum: 1,
          description: "challenge recaptcha: a v3 answer scoring below this is refused (400 CHALLENGE_FAILED)",
        }),
        input: t.Number({
          minimum: 0,
          maximum: 1,
          error: "spamSettings.recaptchaMinScore must be a number from 0 to 1",
        }),
        field: "recaptchaMinScore",
        column: "recaptcha_min_score",
        stored: "plain",
        default: 0.5,
        check: (v: number) =>
          Number.isFinite(v) && v >= 0 && v <= 1
            ? undefined
            : "spamSettings.recaptchaMinScore must be a number from 0 to 1",
        example: 0.7,
        cli: {
          flag: "--recaptcha-min-score <score>",
          help: "challenge recaptcha: the lowest v3 score accepted, 0 to 1 (default 0.5)",
          parse: (text) => (/^\d+(\.\d+)?$/.test(text) ? Number(text) : NaN),
        },
        show: { label: "reCAPTCHA min score", text: (v) => v, when: (f) => f.challenge === "recaptcha" },
      }),
    },
  }),
  autoresponse: group({
    description:
      "an email to the submitter's extracted address for each inbox submission, at most once per address and form per hour (needs emailSettings.enabled)",
    error: "autoresponse may hold enabled (true or false), subject and text (templates)",
    settings: {
      enabled: setting({
        schema: t.Boolean(),
        input: t.Boolean({
          description: "left out, a subject or text given turns it on",
          error: "autoresponse.enabled must be true or false",
        }),
        field: "autoresponse.enabled",
        column: "autoresponse_enabled",
        stored: "boolean",
        default: false,
        example: true,
        cli: {
          flag: "--autoresponse",
          help: "turn the autoresponse back on, with the subject and text it has",
          updateOnly: true,
          no: { help: "stop emailing submitters (the templates are kept)", value: false },
        },
        show: { label: "autoresponse", text: (v, f) => (v ? `on: "${f.autoresponse.subject}"` : "off") },
      }),
      subject: setting({
        schema: t.String({ description: "Mustache template: {{field}} is the submission's field" }),
        input: t.String({ maxLength: 200, error: "autoresponse.subject must be a template of at most 200 characters" }),
        field: "autoresponse.subject",
        column: "autoresponse_subject",
        stored: "plain",
        default: "",
        check: (v: string) => templateProblem("autoresponse.subject (the autoresponse subject)", v, 200),
        example: "Thanks, {{name}}",
        cli: {
          flag: "--autoresponse-subject <template>",
          help: "email each submitter (their extracted address, at most once an hour per form): the subject, {{field}} placeholders",
        },
      }),
      text: setting({
        schema: t.String({ description: "Mustache template of the message; its HTML part escapes every value" }),
        input: t.String({
          maxLength: 10_000,
          error: "autoresponse.text must be a template of at most 10,000 characters",
        }),
        field: "autoresponse.text",
        column: "autoresponse_text",
        stored: "plain",
        default: "",
        check: (v: string) => templateProblem("autoresponse.text (the autoresponse text)", v, 10_000),
        example: "We got your message and will answer soon.",
        cli: {
          flag: "--autoresponse-text <template>",
          help: "the autoresponse's text, {{field}} placeholders (escaped in its HTML part); needs --email-notifications",
        },
      }),
    },
  }),
  doubleOptIn: setting({
    schema: t.Boolean({
      description: "waitlists: each new joiner is emailed a confirmation link and counts only once they opened it",
    }),
    input: t.Boolean({ error: "doubleOptIn must be true or false" }),
    field: "doubleOptIn",
    column: "double_opt_in",
    stored: "boolean",
    default: false,
    example: true,
    cli: {
      flag: "--double-opt-in",
      help: "waitlists: email each new joiner a confirmation link; only confirmed joiners count (needs FORMSVC_PUBLIC_URL on the server)",
      no: { help: "count every joiner again, confirmed or not", value: false },
    },
    show: { label: "double opt-in", text: on, when: isWaitlist },
  }),
  confirmRedirectUrl: setting({
    schema: t.Nullable(
      t.String({ description: "where an opened confirmation link sends the joiner (303); null = formsvc's own page" }),
    ),
    input: t.Nullable(t.String({ maxLength: 2048 }), {
      error: "confirmRedirectUrl must be an absolute http(s) URL or null",
    }),
    field: "confirmRedirectUrl",
    column: "confirm_redirect_url",
    stored: "plain",
    default: null,
    // Sent as a Location header: a valid absolute URL with a valid host (lib/location-url.ts).
    check: (v: string | null) =>
      typeof v === "string" && (v.length > 2048 || !isLocationUrl(v))
        ? "confirmRedirectUrl: the confirm redirect URL must be an absolute http(s) URL with a valid host name, at most 2,048 characters"
        : undefined,
    example: "https://www.example.com/welcome",
    cli: {
      flag: "--confirm-redirect-url <url>",
      help: "where an opened confirmation link sends the joiner (default: formsvc's own page)",
      no: { help: "show formsvc's own page after confirming", value: null },
    },
    show: { label: "after confirming", text: (v) => v ?? "formsvc's page", when: isWaitlist },
  }),
  retentionDays: setting({
    schema: t.Nullable(t.Unsafe<number>({ type: "integer", minimum: 1, maximum: MAX_RETENTION_DAYS }), {
      description: "submissions older than this many days are deleted (checked every hour); null = kept forever",
    }),
    // TypeBox's own integer: Elysia's t.Integer would also take "30", a string.
    input: t.Nullable(Type.Integer({ minimum: 1, maximum: MAX_RETENTION_DAYS }), {
      error: `retentionDays must be a whole number of days from 1 to ${MAX_RETENTION_DAYS}, or null to keep submissions forever`,
      description: "delete submissions older than this many days; null = keep forever",
    }),
    field: "retentionDays",
    column: "retention_days",
    stored: "plain",
    default: null,
    check: (v: number | null) =>
      v !== null && !(Number.isInteger(v) && v >= 1 && v <= MAX_RETENTION_DAYS)
        ? `retentionDays must be a whole number of days from 1 to ${MAX_RETENTION_DAYS}, or none (--retention-days N, --no-retention)`
        : undefined,
    example: 30,
    cli: {
      flag: "--retention-days <n>",
      help: "delete submissions older than this many days (checked every hour by serve)",
      parse: (text) => (/^\d+$/.test(text) ? Number(text) : NaN),
      no: { flag: "--no-retention", help: "keep submissions forever (the default)", value: null, onCreate: true },
    },
    show: { label: "retention", text: (v) => (v === null ? "forever" : `${v} day(s)`) },
  }),
  publicEndpoint: setting({
    schema: t.Boolean({
      description:
        "whether POST /f/{formId} takes submissions without a key (the form id is the address); new forms true, forms made before it existed false",
    }),
    input: t.Boolean({ error: "publicEndpoint must be true or false" }),
    field: "publicEndpoint",
    column: "public_endpoint",
    stored: "boolean",
    default: true,
    example: false,
    cli: {
      flag: "--public-endpoint",
      help: "take submissions at /f/<form id> without a key (the default for new forms)",
      no: { help: "only take submissions with a key", value: false, onCreate: true },
    },
    show: { label: "drop-in endpoint /f/", text: on },
  }),
  fields: setting({
    schema: t.Nullable(t.Array(FieldRuleSchema), {
      description:
        "the fields a submission may carry, checked on every submit path (400 VALIDATION_FAILED with every problem); null = any fields, unchecked",
    }),
    input: t.Nullable(t.Array(FieldRuleInput, { maxItems: MAX_FIELDS }), {
      error: `fields must be null or a list of at most ${MAX_FIELDS} fields {name, type, label?, required?, minLength?, maxLength?, min?, max?, options?, multiple?, placeholder?}`,
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
      help: "a JSON file holding the list of fields [{name, type, required?, …}]; submissions are checked against it",
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
    schema: t.Boolean({
      description: "with fields: whether fields not in the list are stored (false: refused with UNKNOWN_FIELD)",
    }),
    input: t.Boolean({ error: "allowExtraFields must be true or false" }),
    field: "allowExtraFields",
    column: "allow_extra_fields",
    stored: "boolean",
    default: false,
    example: true,
    cli: {
      flag: "--allow-extra-fields",
      help: "with a fields list: store fields it does not name too (else they are refused)",
      no: { help: "refuse fields the list does not name", value: false },
    },
    show: { label: "extra fields", text: (v) => (v ? "stored" : "refused"), when: (f) => f.fields !== null },
  }),
  files: setting({
    schema: FilesSettingSchema,
    input: FilesSettingInput,
    field: "files",
    column: "files",
    stored: "json",
    default: null,
    check: filesProblem,
    normalize: normalizeFiles,
    example: { ...DEFAULT_FILES, maxFiles: 2, types: ["application/pdf"] },
    cli: {
      flag: "--files <limits>",
      help: 'take file uploads: "on" for the defaults (5 files, 10 MiB each, 25 MiB in all; images, PDF, text, Office), or a JSON object {"maxFileBytes","maxFiles","maxTotalBytes","types"}',
      parse: (text) => (text.trim() === "on" ? {} : parseJsonFlag("files (--files)", text)),
      no: { help: "refuse file uploads (the default)", value: null },
    },
    show: {
      label: "file uploads",
      text: (v) =>
        v === null
          ? "refused"
          : `up to ${v.maxFiles} file(s), ${v.maxFileBytes} bytes each, ${v.maxTotalBytes} in all; ${v.types.join(", ")}`,
    },
  }),
  paused: setting({
    schema: t.Boolean({ description: "a paused form refuses every submission (403 FORM_CLOSED)" }),
    input: t.Boolean({ error: "paused must be true or false" }),
    field: "paused",
    column: "paused",
    stored: "boolean",
    default: false,
    example: true,
    cli: {
      flag: "--paused",
      help: "refuse every submission until --no-paused (403 FORM_CLOSED)",
      no: { help: "take submissions again", value: false },
    },
    show: { label: "paused", text: (v) => (v ? "yes: submissions are refused" : "no") },
  }),
  closesAt: setting({
    schema: t.Nullable(timestamp(), {
      description: "from this time on the form refuses every submission (403 FORM_CLOSED); null = never",
    }),
    input: t.Nullable(t.String({ maxLength: 100 }), {
      error: "closesAt must be an ISO 8601 time (2030-01-31T18:00:00Z) or null",
    }),
    field: "closesAt",
    column: "closes_at",
    stored: "plain",
    default: null,
    check: (v: string | null) =>
      v !== null && !isIsoTime(v)
        ? "closesAt: the closing time must be an ISO 8601 time with its offset, such as 2030-01-31T18:00:00Z"
        : undefined,
    normalize: (v: string | null) => (v === null ? null : new Date(v).toISOString()),
    example: "2030-01-31T18:00:00.000Z",
    cli: {
      flag: "--closes-at <time>",
      help: "refuse submissions from this ISO 8601 time on (2030-01-31T18:00:00Z)",
      no: { flag: "--no-closes-at", help: "never close by time", value: null },
    },
    show: { label: "closes", text: (v) => v ?? "never" },
  }),
  maxSubmissions: setting({
    schema: t.Nullable(t.Unsafe<number>({ type: "integer", minimum: 1 }), {
      description:
        "once this many inbox submissions are stored the form refuses more (403 FORM_CLOSED); null = no limit",
    }),
    input: t.Nullable(Type.Integer({ minimum: 1, maximum: MAX_SUBMISSIONS_CAP }), {
      error: `maxSubmissions must be a whole number from 1 to ${MAX_SUBMISSIONS_CAP.toLocaleString("en")}, or null for no limit`,
    }),
    field: "maxSubmissions",
    column: "max_submissions",
    stored: "plain",
    default: null,
    check: (v: number | null) =>
      v !== null && !(Number.isInteger(v) && v >= 1 && v <= MAX_SUBMISSIONS_CAP)
        ? `maxSubmissions must be a whole number from 1 to ${MAX_SUBMISSIONS_CAP.toLocaleString("en")}, or none (--max-submissions N, --no-max-submissions)`
        : undefined,
    example: 500,
    cli: {
      flag: "--max-submissions <n>",
      help: "refuse submissions once this many are in the inbox",
      parse: (text) => (/^\d+$/.test(text) ? Number(text) : NaN),
      no: { help: "no limit (the default)", value: null },
    },
    show: { label: "at most", text: (v) => (v === null ? "no limit" : `${v} submission(s)`) },
  }),
  successUrl: locationSetting("successUrl", "success_url", {
    description:
      "where a browser goes after a drop-in submit (303) when the page gives no _next; null = formsvc's thank-you page",
    what: "the success URL",
    example: "https://www.example.com/thanks",
    flag: "--success-url <url>",
    help: "where a browser goes after a drop-in submit without _next (default: formsvc's thank-you page)",
    no: "show formsvc's thank-you page",
    label: "after submitting",
  }),
  errorUrl: locationSetting("errorUrl", "error_url", {
    description:
      "where a browser goes (303, with ?error=CODE) when a drop-in submit is refused; null = formsvc's error page",
    what: "the error URL",
    example: "https://www.example.com/oops",
    flag: "--error-url <url>",
    help: "where a browser goes (with ?error=CODE) when a drop-in submit is refused (default: formsvc's error page)",
    no: "show formsvc's error page",
    label: "after a refusal",
  }),
  recipients: setting({
    schema: t.Array(t.Object({ email: t.String(), confirmed: t.Boolean() }), {
      description: `who gets the owner notification, at most ${MAX_RECIPIENTS}; an address other than the owner's gets it once it has confirmed with the link emailed to it (at most one such email a day per address, 50 a day from all the owner's forms: beyond, 429 TOO_MANY_CONFIRMATIONS and nothing changes); [] (or none confirmed) = the owner`,
    }),
    input: t.Array(
      t.Union([
        t.String({ maxLength: 320 }),
        t.Object(
          { email: t.String({ maxLength: 320 }), confirmed: t.Optional(t.Boolean()) },
          { additionalProperties: UnknownField },
        ),
      ]),
      {
        maxItems: MAX_RECIPIENTS,
        error: `recipients must be a list of at most ${MAX_RECIPIENTS} email addresses (or {email} objects; confirmed is the server's)`,
      },
    ),
    field: "recipients",
    column: "recipients",
    stored: "json",
    default: [],
    check: (v: (string | { email: string })[]) => {
      const bad = v.map(recipientEmail).filter((e) => normalizeEmail(e) === null);
      if (bad.length)
        return `recipients: ${bad.map((e) => JSON.stringify(e.slice(0, 100))).join(", ")} ${bad.length === 1 ? "is not an email address" : "are not email addresses"}`;
      return v.length > MAX_RECIPIENTS ? `recipients: at most ${MAX_RECIPIENTS} addresses` : undefined;
    },
    // Confirmed is the server's: only the link confirms (forms/service.ts carries it over for addresses kept).
    normalize: (v: (string | { email: string })[]) =>
      [...new Map(v.map((r) => [normalizeEmail(recipientEmail(r))!, false])).entries()].map(([email, confirmed]) => ({
        email,
        confirmed,
      })),
    example: [{ email: "team@example.com", confirmed: false }],
    cli: {
      flag: "--recipients <emails>",
      help: `who gets the owner notification, comma-separated (at most ${MAX_RECIPIENTS}); each address but the owner's is emailed a confirmation link first`,
      parse: (text) => text.split(",").filter((v) => v.trim() !== ""),
      no: { help: "notify the owner alone again", value: [] },
    },
    show: {
      label: "recipients",
      text: (v) =>
        v.length
          ? v.map((r) => `${r.email}${r.confirmed ? "" : " (waiting for confirmation)"}`).join(", ")
          : "the owner",
    },
  }),
  notificationTemplate: setting({
    schema: t.Nullable(t.Object({ subject: t.String(), text: t.String() }), {
      description:
        "the owner notification's subject and text in Mustache: {{form.name}}, {{submission.id}}, {{field}}, {{#fields}}{{name}}: {{value}}{{/fields}}; the HTML part is the text, escaped; null = formsvc's email",
    }),
    input: t.Nullable(
      t.Object(
        { subject: t.String({ maxLength: MAX_TEMPLATE }), text: t.String({ maxLength: MAX_TEMPLATE }) },
        { additionalProperties: UnknownField },
      ),
      {
        error: `notificationTemplate must be null or {subject, text}, templates of at most ${MAX_TEMPLATE.toLocaleString("en")} characters each`,
      },
    ),
    field: "notificationTemplate",
    column: "notification_template",
    stored: "json",
    default: null,
    check: (v: { subject: string; text: string } | null) =>
      v === null
        ? undefined
        : [
            templateProblem("notificationTemplate.subject", v.subject, MAX_TEMPLATE),
            templateProblem("notificationTemplate.text", v.text, MAX_TEMPLATE),
            v.subject.trim() === "" || v.text.trim() === ""
              ? "notificationTemplate needs a subject and a text (null for formsvc's email)"
              : undefined,
          ]
            .filter(Boolean)
            .join("; ") || undefined,
    example: { subject: "{{form.name}}: {{name}}", text: "{{#fields}}{{name}}: {{value}}\n{{/fields}}" },
    cli: [
      {
        flag: "--notification-template-file <file>",
        help: "a JSON file {subject, text} holding the owner notification's Mustache templates",
        parse: (file) => readJsonFile("notificationTemplate (--notification-template-file)", file),
        no: { flag: "--no-notification-template", help: "send formsvc's own notification email", value: null },
      },
    ],
    show: { label: "notification", text: (v) => (v === null ? "formsvc's email" : `"${v.subject}"`) },
  }),
  fromName: setting({
    schema: t.Nullable(t.String({ description: "the sender's display name on the owner notification; null = none" })),
    input: t.Nullable(t.String({ maxLength: 100 }), {
      error: "fromName must be a name of at most 100 characters, or null",
    }),
    field: "fromName",
    column: "from_name",
    stored: "plain",
    default: null,
    check: (v: string | null) =>
      v !== null && (v.trim() === "" || v.length > 100 || /[\u0000-\u001f\u007f]/.test(v))
        ? "fromName: the sender's name must be 1 to 100 characters on one line"
        : undefined,
    normalize: (v: string | null) => (v === null ? null : v.trim()),
    example: "Acme forms",
    cli: {
      flag: "--from-name <name>",
      help: "the sender's display name on the owner notification",
      no: { help: "no display name", value: null },
    },
    show: { label: "from name", text: (v) => v ?? "none" },
  }),
  notifyMode: setting({
    schema: t.Unsafe<NotifyMode>({
      type: "string",
      enum: [...NOTIFY_MODES],
      description:
        "each: an owner notification per submission; daily: one email at 08:00 UTC listing the previous UTC day's non-spam submissions with their fields, newest first, at most 100 (none on a day without any)",
    }),
    input: OneOf(NOTIFY_MODES, `notifyMode must be one of ${NOTIFY_MODES.join(", ")}`),
    field: "notifyMode",
    column: "notify_mode",
    stored: "plain",
    default: "each",
    check: (v: string) =>
      (NOTIFY_MODES as readonly string[]).includes(v)
        ? undefined
        : `notifyMode (--notify): must be one of ${NOTIFY_MODES.join(", ")}`,
    example: "daily",
    cli: { flag: "--notify <mode>", help: "each (an email per submission) or daily (one digest at 08:00 UTC)" },
    show: { label: "notify", text: (v) => (v === "daily" ? "daily digest at 08:00 UTC" : "each submission") },
  }),
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

/** A writable setting with its key. */
export interface Leaf {
  key: SettingKey;
  row: Setting;
}

const isGroup = (r: Row): r is Group<Record<string, Setting>> => "settings" in r;

/** Every setting of the table, read-only ones too, with its key, in Get Form's order. */
export const ALL_SETTINGS: { key: string; row: Setting }[] = Object.entries(SETTINGS as Record<string, Row>).flatMap(
  ([k, r]) =>
    isGroup(r) ? Object.entries(r.settings).map(([m, row]) => ({ key: `${k}.${m}`, row })) : [{ key: k, row: r }],
);

/** The settings a body may carry, with their keys. */
export const WRITABLE_SETTINGS = ALL_SETTINGS.filter((s) => s.row.input !== null) as Leaf[];

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
  { name: SETTINGS.name.input!, ...settingInputs },
  { additionalProperties: UnknownField },
);
export type FormCreateBody = ElysiaStatic<typeof FormCreateSchema>;

/** `PATCH /forms/{formId}`: the settings to change; what is left out stays as it is. */
export const FormPatchSchema = t.Object({ name: nameInput, ...settingInputs }, { additionalProperties: UnknownField });
export type FormPatchBody = ElysiaStatic<typeof FormPatchSchema>;
