import { Type } from "@sinclair/typebox";
import { t } from "elysia";
import { setting } from "../forms/setting-row";

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
