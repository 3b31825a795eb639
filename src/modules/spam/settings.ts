/** The `spamSettings` rows of the settings table (forms/settings.ts composes them). */
import { Type } from "@sinclair/typebox";
import { t } from "elysia";
import { OneOf } from "../../http/schemas";
import { group, NOT_BLANK, setting } from "../forms/setting-row";
import { CHALLENGES, type Challenge } from "../forms/model";

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

// The spam rules' lists: room for any owner's list, far below a hostile body.
const MAX_RULE_ITEMS = 500;
const MAX_RULE_TEXT = 100;
const MAX_LINKS_CAP = 1000;
const MAX_DUPLICATE_WINDOW = 30 * 24 * 60 * 60;
// A host name of at least two labels (example.com), as the rules compare email domains.
const DOMAIN = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/i;

export const SPAM_SETTINGS = group({
  error:
    "spamSettings may hold honeypotField (a field name or null), challenge, blockedWords, blockedEmailDomains, blockDisposableEmail, maxLinks, duplicateWindowSeconds, threshold and recaptchaMinScore",
  settings: {
    honeypotField: setting({
      schema: t.Nullable(t.String()),
      // `not` says the reserved names in the document; the check refuses them (TypeBox reads no `not` on a string).
      input: t.Nullable(t.String({ pattern: "^[!-~]{1,100}$", not: { enum: [...RESERVED_FIELDS] } }), {
        description: "null turns the honeypot off",
        error:
          "spamSettings.honeypotField must be a field name (1 to 100 printable ASCII characters, no spaces) or null",
      }),
      field: "honeypotField",
      column: "honeypot_field",
      stored: "plain",
      default: "_gotcha",
      check: (v: string | null) =>
        v !== null && RESERVED_FIELDS.has(v)
          ? `spamSettings.honeypotField: the honeypot field cannot be ${v}, a field of the submit body itself`
          : undefined,
      example: "website",
      cli: {
        flag: "--honeypot <name>",
        hint: "default _gotcha",
        no: { help: "no honeypot field", value: null, onCreate: true },
      },
      show: { label: "honeypot field", text: (v) => v ?? "none" },
    }),
    challenge: setting({
      schema: t.Unsafe<Challenge>({
        type: "string",
        enum: [...CHALLENGES],
      }),
      input: OneOf(CHALLENGES, `spamSettings.challenge must be one of ${CHALLENGES.join(", ")}`),
      field: "challenge",
      column: "challenge",
      stored: "plain",
      default: "none",
      example: "pow",
      cli: {
        flag: "--challenge <kind>",
        hint: `${CHALLENGES.join(", ")}; default none`,
      },
      show: { label: "challenge", text: (v) => v },
    }),
    blockedWords: setting({
      schema: t.Array(t.String()),
      input: t.Array(t.String({ maxLength: MAX_RULE_TEXT, pattern: NOT_BLANK }), {
        maxItems: MAX_RULE_ITEMS,
        error: `spamSettings.blockedWords must be a list of at most ${MAX_RULE_ITEMS} words or phrases of 1 to ${MAX_RULE_TEXT} characters`,
      }),
      field: "blockedWords",
      column: "spam_blocked_words",
      stored: "json",
      default: [],
      normalize: (v: string[]) => [...new Set(v.map((w) => w.trim().replace(/\s+/g, " ").toLowerCase()))],
      example: ["casino", "cheap pills"],
      cli: {
        flag: "--blocked-words <words>",
        hint: "comma-separated",
        parse: (text) => text.split(",").filter((v) => v.trim() !== ""),
        no: { help: "no blocked words", value: [] },
      },
      show: { label: "blocked words", text: (v) => (v.length ? v.join(", ") : "none") },
    }),
    blockedEmailDomains: setting({
      schema: t.Array(t.String()),
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
        return bad.length
          ? `spamSettings.blockedEmailDomains: ${bad.map((d) => JSON.stringify(d.slice(0, 100))).join(", ")} ${bad.length === 1 ? "is not a domain name" : "are not domain names"} such as example.com`
          : undefined;
      },
      normalize: (v: string[]) => [...new Set(v.map((d) => d.trim().replace(/^@/, "").toLowerCase()))],
      example: ["spam.example"],
      cli: {
        flag: "--blocked-email-domains <domains>",
        hint: "comma-separated",
        parse: (text) => text.split(",").filter((v) => v.trim() !== ""),
        no: { help: "no blocked email domains", value: [] },
      },
      show: { label: "blocked email domains", text: (v) => (v.length ? v.join(", ") : "none") },
    }),
    blockDisposableEmail: setting({
      schema: t.Boolean(),
      input: t.Boolean({ error: "spamSettings.blockDisposableEmail must be true or false" }),
      field: "blockDisposableEmail",
      column: "spam_block_disposable",
      stored: "boolean",
      default: false,
      example: true,
      cli: {
        flag: "--block-disposable-email",
        no: { help: "take throwaway-mail addresses like any other", value: false },
      },
      show: { label: "disposable email", text: (v) => (v ? "filed as spam" : "accepted") },
    }),
    maxLinks: setting({
      schema: t.Nullable(t.Unsafe<number>({ type: "integer", minimum: 0 })),
      input: t.Nullable(Type.Integer({ minimum: 0, maximum: MAX_LINKS_CAP }), {
        error: `spamSettings.maxLinks must be a whole number from 0 to ${MAX_LINKS_CAP}, or null for no cap`,
      }),
      field: "maxLinks",
      column: "spam_max_links",
      stored: "plain",
      default: null,
      example: 2,
      cli: {
        flag: "--max-links <n>",
        parse: (text) => (/^\d+$/.test(text) ? Number(text) : NaN),
        no: { help: "no cap on links (the default)", value: null },
      },
      show: { label: "links", text: (v) => (v === null ? "any number" : `at most ${v}`) },
    }),
    duplicateWindowSeconds: setting({
      schema: t.Nullable(t.Unsafe<number>({ type: "integer", minimum: 1 })),
      input: t.Nullable(Type.Integer({ minimum: 1, maximum: MAX_DUPLICATE_WINDOW }), {
        error: `spamSettings.duplicateWindowSeconds must be a whole number of seconds from 1 to ${MAX_DUPLICATE_WINDOW}, or null for off`,
      }),
      field: "duplicateWindowSeconds",
      column: "spam_duplicate_window",
      stored: "plain",
      default: null,
      example: 3600,
      cli: {
        flag: "--duplicate-window <seconds>",
        parse: (text) => (/^\d+$/.test(text) ? Number(text) : NaN),
        no: { help: "take repeated submissions like any other (the default)", value: null },
      },
      show: { label: "duplicates", text: (v) => (v === null ? "accepted" : `spam within ${v} s`) },
    }),
    threshold: setting({
      schema: t.Number({
        minimum: 0,
        maximum: 1,
      }),
      input: t.Number({ minimum: 0.5, maximum: 1, error: "spamSettings.threshold must be a number from 0.5 to 1" }),
      field: "spamThreshold",
      column: "spam_threshold",
      stored: "plain",
      default: 0.9,
      example: 0.95,
      cli: {
        flag: "--spam-threshold <score>",
        hint: "default 0.9",
        parse: (text) => (/^\d+(\.\d+)?$/.test(text) ? Number(text) : NaN),
      },
      show: { label: "filter threshold", text: (v) => v },
    }),
    recaptchaMinScore: setting({
      schema: t.Number({
        minimum: 0,
        maximum: 1,
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
      example: 0.7,
      cli: {
        flag: "--recaptcha-min-score <score>",
        hint: "default 0.5",
        parse: (text) => (/^\d+(\.\d+)?$/.test(text) ? Number(text) : NaN),
      },
      show: { label: "reCAPTCHA min score", text: (v) => v, when: (f) => f.challenge === "recaptcha" },
    }),
  },
});
