import { Type } from "@sinclair/typebox";
import { t } from "elysia";
import { OneOf, UnknownField } from "../../http/schemas";
import { FIELD_TYPES, type FieldRule, type FieldType } from "./model";

/** The most fields a form may list. */
export const MAX_FIELDS = 100;
const MAX_OPTIONS = 100;
const MAX_TEXT = 200;

/** Types whose value is text with a length (minLength, maxLength). */
export const TEXT_TYPES: ReadonlySet<FieldType> = new Set(["text", "textarea", "email", "url", "tel", "hidden"]);
/** Types whose value is chosen from `options` (a checkbox only when it has options: a group). */
const OPTION_TYPES: ReadonlySet<FieldType> = new Set(["select", "radio", "checkbox"]);
/** Types that may take several values (a list). */
const MULTIPLE_TYPES: ReadonlySet<FieldType> = new Set(["select", "checkbox"]);

/** A date as `<input type="date">` sends it. */
export const DATE = /^\d{4}-\d{2}-\d{2}$/;
export const isDate = (v: string) =>
  DATE.test(v) && !Number.isNaN(Date.parse(`${v}T00:00:00Z`)) && new Date(`${v}T00:00:00Z`).toISOString().startsWith(v);

const ruleProperties = {
  name: t.String({ description: "the name the page posts it under: 1 to 100 characters, not starting with _" }),
  type: OneOf(FIELD_TYPES, `fields: a field's type must be one of ${FIELD_TYPES.join(", ")}`, {
    description:
      "page starts a new step of the hosted page (it takes a name and a label, holds no value and is never stored); hidden is stored as sent",
  }),
  label: t.Optional(t.String({ description: "what a person reads beside it (the hosted page, error pages)" })),
  required: t.Optional(t.Boolean()),
  minLength: t.Optional(Type.Integer({ minimum: 0, description: "text-like types" })),
  maxLength: t.Optional(Type.Integer({ minimum: 0, description: "text-like types" })),
  min: t.Optional(t.Union([Type.Number(), t.String()], { description: "number: a number; date: YYYY-MM-DD" })),
  max: t.Optional(t.Union([Type.Number(), t.String()], { description: "number: a number; date: YYYY-MM-DD" })),
  options: t.Optional(
    t.Array(t.String(), { description: "select, radio, and a checkbox group: the values a visitor may choose" }),
  ),
  multiple: t.Optional(t.Boolean({ description: "select and checkbox groups: several values, stored as a list" })),
  placeholder: t.Optional(t.String()),
  showIf: t.Optional(
    t.Object(
      {
        field: t.String({ description: "an earlier field's name" }),
        equals: t.Optional(t.String({ description: "shown while one of that field's values is this" })),
        in: t.Optional(t.Array(t.String(), { description: "shown while one of that field's values is among these" })),
        notEmpty: t.Optional(t.Boolean({ description: "true: shown while that field has a value" })),
      },
      {
        description:
          'shown, required and stored only while an earlier field\'s value meets this (exactly one of equals, in, notEmpty; values compared as text, a single checkbox reads "true" when ticked); a field whose controlling field is not shown is not shown either, and a value sent for a field not shown is dropped',
      },
    ),
  ),
};

/** One field as Get Form shows it. */
export const FieldRuleSchema = t.Object(ruleProperties);

const SHOW_IF_SAID =
  "fields: showIf is {field, equals: text} or {field, in: [text, …]} (1 to 100) or {field, notEmpty: true}, field naming an earlier field";
const TEXT_TYPES_SAID = "text, textarea, email, url, tel and hidden fields only (on other types a 400)";

/** One field as POST and PATCH take it, with the limits the server checks: a property it does not know is a 400. */
export const FieldRuleInput = t.Object(
  {
    ...ruleProperties,
    name: t.String({
      minLength: 1,
      maxLength: 100,
      pattern: "^[^_]",
      description: "the name the page posts it under, not starting with _",
    }),
    label: t.Optional(t.String({ maxLength: MAX_TEXT, description: "what a person reads beside it" })),
    minLength: t.Optional(Type.Integer({ minimum: 0, description: `${TEXT_TYPES_SAID}; at most maxLength` })),
    maxLength: t.Optional(Type.Integer({ minimum: 0, description: TEXT_TYPES_SAID })),
    min: t.Optional(
      t.Union([Type.Number(), t.String()], {
        description: "number fields: a number; date fields: YYYY-MM-DD; at most max; on other types a 400",
      }),
    ),
    max: t.Optional(
      t.Union([Type.Number(), t.String()], {
        description: "number fields: a number; date fields: YYYY-MM-DD; on other types a 400",
      }),
    ),
    options: t.Optional(
      t.Array(t.String({ minLength: 1, maxLength: MAX_TEXT }), {
        minItems: 1,
        maxItems: MAX_OPTIONS,
        uniqueItems: true,
        description:
          "select, radio and checkbox groups only: the values a visitor may choose (a select or radio needs them)",
      }),
    ),
    placeholder: t.Optional(t.String({ maxLength: MAX_TEXT })),
    showIf: t.Optional(
      t.Object(
        {
          field: t.String({
            minLength: 1,
            maxLength: 100,
            description: "the name of a field listed before this one",
            error: SHOW_IF_SAID,
          }),
          equals: t.Optional(t.String({ maxLength: MAX_TEXT, error: SHOW_IF_SAID })),
          in: t.Optional(t.Array(t.String({ maxLength: MAX_TEXT }), { maxItems: MAX_OPTIONS, error: SHOW_IF_SAID })),
          notEmpty: t.Optional(t.Boolean({ error: SHOW_IF_SAID })),
        },
        {
          additionalProperties: t.Never({ error: SHOW_IF_SAID } as object),
          description:
            'shown, required and stored only while the named earlier field\'s value meets exactly one of equals, in (a non-empty list) or notEmpty (true); values compared as text, a single checkbox reads "true" when ticked; a field whose controlling field is not shown is not shown either; a value sent for a field not shown is dropped',
          error: SHOW_IF_SAID,
        },
      ),
    ),
  },
  {
    additionalProperties: UnknownField,
    error: "fields: each field is {name, type, label?, required?, …, showIf?}",
  },
);

// What a step break (type page) may carry: it starts a step, and holds no value.
const PAGE_KEYS = new Set(["name", "type", "label"]);
// A condition compares text: a page holds none, and a file's value is no text.
const NO_VALUE: ReadonlySet<FieldType> = new Set(["page", "file"]);

/** What its schema cannot say about one field: rules between its properties, in sentences naming it. */
function ruleProblems(rule: FieldRule, i: number, all: FieldRule[]): string[] {
  const at = `fields: field "${rule.name.slice(0, 100)}"`;
  const { type } = rule;
  const out: string[] = [];
  if (type === "page") {
    const extra = Object.keys(rule).filter((k) => !PAGE_KEYS.has(k));
    if (extra.length)
      out.push(`${at}: a page field starts a step and takes only name and label, not ${extra.join(", ")}`);
    return out;
  }
  if (rule.showIf) {
    const cond = rule.showIf;
    const given = (["equals", "in", "notEmpty"] as const).filter((k) => cond[k] !== undefined);
    if (given.length !== 1) out.push(`${at}: showIf needs exactly one of equals, in, notEmpty`);
    if (cond.in?.length === 0) out.push(`${at}: showIf.in must list at least one value`);
    if (cond.notEmpty === false) out.push(`${at}: showIf.notEmpty can only be true`);
    const j = all.findIndex((r) => r.name === cond.field);
    if (cond.field === rule.name) out.push(`${at}: showIf cannot name the field itself`);
    else if (j === -1) out.push(`${at}: showIf names "${cond.field.slice(0, 100)}", which is not a field of this form`);
    else if (j > i)
      out.push(`${at}: showIf must name a field listed before it, and "${cond.field.slice(0, 100)}" comes after`);
    else if (NO_VALUE.has(all[j]!.type))
      out.push(`${at}: showIf cannot name a ${all[j]!.type} field, which holds no value to compare`);
  }
  for (const key of ["minLength", "maxLength"] as const)
    if (rule[key] !== undefined && !TEXT_TYPES.has(type))
      out.push(`${at}: ${key} is only for ${[...TEXT_TYPES].join(", ")} fields`);
  if (rule.minLength !== undefined && rule.maxLength !== undefined && rule.minLength > rule.maxLength)
    out.push(`${at}: minLength must not be above maxLength`);
  for (const key of ["min", "max"] as const) {
    const v = rule[key];
    if (v === undefined) continue;
    if (type === "number") {
      if (typeof v !== "number" || !Number.isFinite(v)) out.push(`${at}: ${key} must be a number`);
    } else if (type === "date") {
      if (typeof v !== "string" || !isDate(v)) out.push(`${at}: ${key} must be a date, YYYY-MM-DD`);
    } else out.push(`${at}: ${key} is only for number and date fields`);
  }
  const [lo, hi] = [rule.min, rule.max];
  if ((typeof lo === "number" && typeof hi === "number") || (typeof lo === "string" && typeof hi === "string"))
    if (lo > hi) out.push(`${at}: min must not be above max`);
  if (rule.options !== undefined) {
    if (!OPTION_TYPES.has(type)) out.push(`${at}: options are only for select, radio and checkbox fields`);
  } else if (type === "select" || type === "radio") out.push(`${at}: a ${type} field needs options`);
  if (rule.multiple === true && !(MULTIPLE_TYPES.has(type) && rule.options !== undefined))
    out.push(`${at}: multiple is only for select fields and checkbox groups (a checkbox with options)`);
  return out;
}

/** What the schema cannot say about a `fields` value (null or a list of rules): one sentence naming each field; undefined when fine. */
export function fieldsProblem(value: FieldRule[] | null): string | undefined {
  if (value === null) return undefined;
  const out = value.flatMap((rule, i) => ruleProblems(rule, i, value));
  const names = value.map((r) => r.name);
  const twice = names.filter((n, i) => names.indexOf(n) !== i);
  for (const n of new Set(twice)) out.push(`fields: the name "${n.slice(0, 100)}" is given twice`);
  return out.length ? out.slice(0, 20).join("; ") : undefined;
}

/** The list as kept: only the properties a rule has (JSON drops what is undefined). */
export const normalizeFields = (value: FieldRule[] | null): FieldRule[] | null =>
  value === null ? null : (JSON.parse(JSON.stringify(value)) as FieldRule[]);
