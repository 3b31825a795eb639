import { AppError, type FieldError } from "../../lib/errors";
import { uploadsOf } from "../files/model";
import { isDate, TEXT_TYPES } from "../forms/fields";
import type { FieldRule, Form, ShowIf } from "../forms/model";
import type { SubmitCheck } from "./pipeline";

// As browsers check <input type="email">: something, an @, a host with a dot.
const EMAIL = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;
// Form posts answer a single checkbox with its value (default "on") when ticked, nothing when not;
// these are read as not ticked too, so a hidden "0" before the box (a common pattern) means false.
const UNTICKED = new Set(["", "0", "false", "off", "no"]);
// What a Formspree-style page sends beside its own fields, stored as typed: never unknown to a form.
const PAGE_FIELDS = new Set(["_subject", "_replyto"]);
// One answer stays readable: a post with thousands of stray fields is told of the first hundred.
const MAX_ERRORS = 100;

const isEmpty = (v: unknown) =>
  v === null || (typeof v === "string" && v.trim() === "") || (Array.isArray(v) && v.every(isEmpty));

const isHttpUrl = (v: string) => {
  try {
    const u = new URL(v);
    return u.protocol === "http:" || u.protocol === "https:";
  } catch {
    return false;
  }
};

/** A field's value, checked: what to store, or the problem. */
type Outcome = { value: unknown } | { code: string; message: string };

/** A form's rules, compiled once: a function that checks (and, for form posts, types) one value. */
interface Compiled {
  rules: { rule: FieldRule; check: (v: unknown, formPost: boolean) => Outcome }[];
  names: Set<string>;
}

function compileRule(rule: FieldRule): (v: unknown, formPost: boolean) => Outcome {
  const who = `"${rule.label ?? rule.name}"`;
  const bad = (code: string, message: string): Outcome => ({ code, message: `${who} ${message}` });
  const options = rule.options ? new Set(rule.options) : null;
  const list = options !== null && (rule.multiple === true || rule.type === "checkbox");
  const oneText = (v: unknown): v is string => typeof v === "string";
  switch (rule.type) {
    case "number":
      return (v, formPost) => {
        let n = v;
        if (formPost && typeof v === "string") n = v.trim() === "" ? NaN : Number(v);
        if (typeof n !== "number" || !Number.isFinite(n)) return bad("TYPE_NUMERIC", "must be a number");
        if (
          (rule.min !== undefined && n < (rule.min as number)) ||
          (rule.max !== undefined && n > (rule.max as number))
        )
          return bad("OUT_OF_RANGE", `must be ${range(rule)}`);
        return { value: n };
      };
    case "date":
      return (v) => {
        if (!oneText(v) || !isDate(v)) return bad("TYPE_DATE", "must be a date, YYYY-MM-DD");
        if (
          (rule.min !== undefined && v < (rule.min as string)) ||
          (rule.max !== undefined && v > (rule.max as string))
        )
          return bad("OUT_OF_RANGE", `must be ${range(rule)}`);
        return { value: v };
      };
    case "checkbox":
      if (list) return choose(rule, options!, list, bad);
      return (v, formPost) => {
        if (typeof v === "boolean") return { value: v };
        if (!formPost && typeof v !== "string") return bad("TYPE_TEXT", "must be true or false");
        const values = Array.isArray(v) ? v : [v];
        if (!values.every(oneText)) return bad("TYPE_TEXT", "must be true or false");
        return { value: values.some((s) => !UNTICKED.has(s.trim().toLowerCase())) };
      };
    case "select":
    case "radio":
      return choose(rule, options!, list, bad);
    case "file":
      // What the upload reader put there (files/service.ts): a reference to a stored file, never text.
      return (v) => {
        const list = Array.isArray(v) ? v : [v];
        if (
          !list.every((f) => typeof f === "object" && f !== null && typeof (f as { file?: unknown }).file === "string")
        )
          return bad("TYPE_FILE", "must be a file (sent as multipart/form-data)");
        return { value: rule.multiple ? list : v };
      };
    default: {
      const check = TEXT_TYPES.has(rule.type) ? rule.type : "text";
      return (v) => {
        if (!oneText(v)) return bad("TYPE_TEXT", "must be text");
        if (check === "email" && !EMAIL.test(v)) return bad("TYPE_EMAIL", "must be an email address");
        if (check === "url" && !isHttpUrl(v)) return bad("TYPE_URL", "must be a web address (http or https)");
        if (rule.minLength !== undefined && v.length < rule.minLength)
          return bad("TOO_SHORT", `must be at least ${rule.minLength} characters`);
        if (rule.maxLength !== undefined && v.length > rule.maxLength)
          return bad("TOO_LONG", `must be at most ${rule.maxLength} characters`);
        return { value: v };
      };
    }
  }
}

/** A select, radio or checkbox group: values from its options; a list (from a form post, always an array) when it takes several. */
function choose(
  rule: FieldRule,
  options: Set<string>,
  list: boolean,
  bad: (code: string, message: string) => Outcome,
): (v: unknown, formPost: boolean) => Outcome {
  return (v, formPost) => {
    const values = Array.isArray(v) ? v : [v];
    if (!list && values.length !== 1) return bad("TYPE_TEXT", "must be one value");
    if (!values.every((s) => typeof s === "string" && options.has(s)))
      return bad("NOT_AN_OPTION", `must be one of ${rule.options!.join(", ")}`);
    return { value: list && formPost ? values : v };
  };
}

const range = (rule: FieldRule) =>
  rule.min !== undefined && rule.max !== undefined
    ? `from ${rule.min} to ${rule.max}`
    : rule.min !== undefined
      ? `${rule.min} or more`
      : `${rule.max} or less`;

/** A value as a condition reads it: its texts, none when empty (a single checkbox: "true" when ticked). */
function texts(v: unknown): string[] {
  if (Array.isArray(v)) return v.flatMap(texts);
  if (v === true) return ["true"];
  if (typeof v === "number") return [String(v)];
  return typeof v === "string" && v.trim() !== "" ? [v] : [];
}

/** Whether a `showIf` holds for its controlling field's value. */
function conditionHolds(cond: ShowIf, value: unknown): boolean {
  const values = texts(value);
  if (cond.notEmpty) return values.length > 0;
  if (cond.equals !== undefined) return values.includes(cond.equals);
  return values.some((v) => cond.in!.includes(v));
}

// Keyed by the form's list itself: a form read again (changed) has a new list, compiled anew.
const compiled = new WeakMap<FieldRule[], Compiled>();
const compile = (fields: FieldRule[]): Compiled => {
  let c = compiled.get(fields);
  if (!c) {
    c = {
      rules: fields.map((rule) => ({ rule, check: compileRule(rule) })),
      names: new Set(fields.map((f) => f.name)),
    };
    compiled.set(fields, c);
  }
  return c;
};

/** Every problem with `data` by the form's fields, or none; `data` is given its stored types (form posts) as it goes. */
export function validateFields(form: Form, data: Record<string, unknown>, formPost: boolean): FieldError[] {
  const { rules, names } = compile(form.fields!);
  const errors: FieldError[] = [];
  // A field applies when its condition holds and its controlling field applies (a chain hides as one);
  // conditions read values already typed, since a controlling field comes first.
  const applies = new Map<string, boolean>();
  for (const { rule, check } of rules) {
    const field = rule.name;
    const cond = rule.showIf;
    const shown =
      rule.type !== "page" && (!cond || (applies.get(cond.field) === true && conditionHolds(cond, data[cond.field])));
    applies.set(field, shown);
    if (!shown) {
      // A step break holds nothing, and a field not shown is not stored, whatever was sent for it.
      delete data[field];
      continue;
    }
    const who = `"${rule.label ?? field}"`;
    if (!Object.hasOwn(data, field)) {
      // A form post leaves an unticked checkbox out: it was answered, with false.
      if (formPost && rule.type === "checkbox" && !rule.options) {
        if (rule.required) errors.push({ field, code: "REQUIRED_FIELD_MISSING", message: `${who} must be ticked` });
        else data[field] = false;
      } else if (rule.required) errors.push({ field, code: "REQUIRED_FIELD_MISSING", message: `${who} is required` });
      continue;
    }
    const value = data[field];
    if (isEmpty(value)) {
      if (rule.required) errors.push({ field, code: "REQUIRED_FIELD_EMPTY", message: `${who} is required` });
      else if (formPost && rule.type === "checkbox" && !rule.options) data[field] = false;
      else if (formPost && rule.type === "number") data[field] = null;
      continue;
    }
    const outcome = check(value, formPost);
    if ("code" in outcome) errors.push({ field, ...outcome });
    else if (rule.required && outcome.value === false)
      errors.push({ field, code: "REQUIRED_FIELD_EMPTY", message: `${who} must be ticked` });
    else data[field] = outcome.value;
  }
  if (!form.allowExtraFields)
    for (const field of Object.keys(data))
      if (!names.has(field) && !PAGE_FIELDS.has(field))
        errors.push({ field, code: "UNKNOWN_FIELD", message: `"${field.slice(0, 100)}" is not a field of this form` });
  return errors;
}

/**
 * The field rules, on every submit path, for a form with `fields`: all problems at once in one
 * 400 VALIDATION_FAILED, nothing stored. It runs last, after the honeypot: it sees only the data to
 * be stored, and a bot caught by the honeypot is answered as a person sending the same fields would be.
 */
export const fieldsCheck: SubmitCheck = {
  name: "fields",
  check(candidate) {
    const { form, data, formPost } = candidate;
    if (form.fields === null) return "accept";
    const errors = validateFields(form, data, formPost);
    if (errors.length === 0) {
      // A file sent for a field not shown went with its value: not the submission's, released as unstored.
      const uploads = uploadsOf.get(candidate);
      if (uploads?.some((u) => !Object.hasOwn(data, u.field)))
        uploadsOf.set(
          candidate,
          uploads.filter((u) => Object.hasOwn(data, u.field)),
        );
      return "accept";
    }
    const shown = errors.slice(0, MAX_ERRORS);
    return new AppError(
      "VALIDATION_FAILED",
      errors.length === 1
        ? errors[0]!.message
        : `${errors.length} fields have problems: ${shown.map((e) => e.message).join("; ")}`.slice(0, 2000),
      undefined,
      shown,
    );
  },
};
