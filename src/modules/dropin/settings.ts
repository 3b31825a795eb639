import { t } from "elysia";
import { on, setting } from "../forms/setting-row";

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
