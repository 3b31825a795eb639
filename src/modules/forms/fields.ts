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
  type: OneOf(FIELD_TYPES, `fields: a field's type must be one of ${FIELD_TYPES.join(", ")}`),
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
};

/** One field as Get Form shows it. */
export const FieldRuleSchema = t.Object(ruleProperties);

/** One field as POST and PATCH take it: a property it does not know is a 400. */
export const FieldRuleInput = t.Object(ruleProperties, {
  additionalProperties: UnknownField,
  error: "fields: each field is {name, type, label?, required?, …}",
});

const KEYS = new Set(Object.keys(FieldRuleSchema.properties));
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isCount = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v) && v >= 0;

/** What is wrong with one field of the list, in sentences naming it; none when it is fine. */
function ruleProblems(rule: unknown, i: number): string[] {
  if (!isObject(rule)) return [`fields[${i}] must be an object {name, type, …}`];
  const name = typeof rule.name === "string" ? rule.name : undefined;
  const at = name === undefined ? `fields[${i}]` : `fields: field "${name.slice(0, 100)}"`;
  const out: string[] = [];
  for (const key of Object.keys(rule)) if (!KEYS.has(key)) out.push(`${at}: unknown property ${key.slice(0, 100)}`);
  if (name === undefined || name.length < 1 || name.length > 100 || name.startsWith("_"))
    out.push(`${at}: name must be 1 to 100 characters, not starting with _`);
  const type = rule.type as FieldType;
  if (!FIELD_TYPES.includes(type)) {
    out.push(`${at}: type must be one of ${FIELD_TYPES.join(", ")}`);
    return out;
  }
  for (const key of ["label", "placeholder"] as const)
    if (rule[key] !== undefined && (typeof rule[key] !== "string" || rule[key].length > MAX_TEXT))
      out.push(`${at}: ${key} must be text of at most ${MAX_TEXT} characters`);
  for (const key of ["required", "multiple"] as const)
    if (rule[key] !== undefined && typeof rule[key] !== "boolean") out.push(`${at}: ${key} must be true or false`);
  for (const key of ["minLength", "maxLength"] as const) {
    if (rule[key] === undefined) continue;
    if (!TEXT_TYPES.has(type)) out.push(`${at}: ${key} is only for ${[...TEXT_TYPES].join(", ")} fields`);
    else if (!isCount(rule[key])) out.push(`${at}: ${key} must be a whole number, 0 or more`);
  }
  if (isCount(rule.minLength) && isCount(rule.maxLength) && rule.minLength > rule.maxLength)
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
    const o = rule.options;
    if (!OPTION_TYPES.has(type)) out.push(`${at}: options are only for select, radio and checkbox fields`);
    else if (
      !Array.isArray(o) ||
      o.length < 1 ||
      o.length > MAX_OPTIONS ||
      !o.every((v) => typeof v === "string" && v.length >= 1 && v.length <= MAX_TEXT)
    )
      out.push(`${at}: options must be a list of 1 to ${MAX_OPTIONS} values, each 1 to ${MAX_TEXT} characters`);
    else if (new Set(o).size !== o.length) out.push(`${at}: options must not repeat a value`);
  } else if (type === "select" || type === "radio") out.push(`${at}: a ${type} field needs options`);
  if (rule.multiple === true && !(MULTIPLE_TYPES.has(type) && rule.options !== undefined))
    out.push(`${at}: multiple is only for select fields and checkbox groups (a checkbox with options)`);
  return out;
}

/** What is wrong with a `fields` value (null or a list of rules), in one sentence naming each field; undefined when fine. */
export function fieldsProblem(value: unknown): string | undefined {
  if (value === null) return undefined;
  if (!Array.isArray(value)) return "fields must be null or a list of fields {name, type, …}";
  if (value.length > MAX_FIELDS) return `fields: at most ${MAX_FIELDS} fields`;
  const out = value.flatMap(ruleProblems);
  const names = value.map((r) => (isObject(r) ? r.name : undefined));
  const twice = names.filter((n, i) => typeof n === "string" && names.indexOf(n) !== i);
  for (const n of new Set(twice)) out.push(`fields: the name "${String(n).slice(0, 100)}" is given twice`);
  return out.length ? out.slice(0, 20).join("; ") : undefined;
}

/** The list as kept: only the properties a rule has (JSON drops what is undefined). */
export const normalizeFields = (value: FieldRule[] | null): FieldRule[] | null =>
  value === null ? null : (JSON.parse(JSON.stringify(value)) as FieldRule[]);
