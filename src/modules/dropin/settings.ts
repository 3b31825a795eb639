import { Type } from "@sinclair/typebox";
import { t } from "elysia";
import { OneOf } from "../../http/schemas";
import { on, setting } from "../forms/setting-row";
import { LOCALES, type Locale } from "./languages";

/** A colour as the pages for people take it: six hex digits after `#`. */
const HEX_COLOUR = "^#[0-9A-Fa-f]{6}$";

/** The colour of the form's pages for people: links, buttons and focus rings take it. */
export const ACCENT_COLOR = setting({
  schema: t.Nullable(t.String()),
  input: t.Nullable(t.String({ pattern: HEX_COLOUR }), {
    error: "accentColor must be a colour as #rrggbb (six hex digits), or null for formsvc's blue",
  }),
  field: "accentColor",
  column: "accent_color",
  stored: "plain",
  default: null,
  normalize: (v: string | null) => v?.toLowerCase() ?? null,
  example: "#0f766e",
  cli: { flag: "--accent-color <#rrggbb>", no: { help: "formsvc's blue (the default)", value: null } },
  show: { label: "accent colour", text: (v) => v ?? "formsvc's blue" },
});

/** The language of the form's pages for people and of the messages its visitors get (locale.ts). */
export const LOCALE = setting({
  schema: t.Unsafe<Locale>({ type: "string", enum: [...LOCALES] }),
  input: OneOf(LOCALES, `locale must be one of ${LOCALES.join(", ")}`),
  field: "locale",
  column: "locale",
  stored: "plain",
  default: "auto",
  example: "de",
  cli: { flag: "--locale <language>", hint: `one of ${LOCALES.join(", ")}` },
  show: { label: "language", text: (v) => (v === "auto" ? "the visitor's (Accept-Language)" : v) },
});

/** Save and resume on the hosted page (partials.ts). */
export const PARTIAL_SUBMISSIONS = setting({
  schema: t.Boolean(),
  input: t.Boolean({ error: "partialSubmissions must be true or false" }),
  field: "partialSubmissions",
  column: "partial_submissions",
  stored: "boolean",
  default: false,
  example: true,
  cli: {
    flag: "--partial-submissions",
    no: { help: "no saving halfway on the hosted page (the default)", value: false },
  },
  show: { label: "save and resume", text: on },
});

/** The most days a submitter may be given to change their answers. */
export const MAX_EDITABLE_DAYS = 365;

/** For how many days a submitter may change their answers (the signed link of edit-link.ts); null: never. */
export const EDITABLE_DAYS = setting({
  schema: t.Nullable(t.Unsafe<number>({ type: "integer", minimum: 1, maximum: MAX_EDITABLE_DAYS })),
  // TypeBox's own integer: Elysia's t.Integer would also take "30", a string.
  input: t.Nullable(Type.Integer({ minimum: 1, maximum: MAX_EDITABLE_DAYS }), {
    error: `editableDays must be a whole number of days from 1 to ${MAX_EDITABLE_DAYS}, or null for no edits`,
  }),
  field: "editableDays",
  column: "editable_days",
  stored: "plain",
  default: null,
  example: 7,
  cli: {
    flag: "--editable-days <n>",
    parse: (text) => (/^\d+$/.test(text) ? Number(text) : NaN),
    no: { help: "submitters cannot change their answers (the default)", value: null },
  },
  show: { label: "editable", text: (v) => (v === null ? "no" : `for ${v} day(s) after sending`) },
});
