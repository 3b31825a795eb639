import { AppError, type FieldError } from "../../lib/errors";
import { uploadsOf } from "../files/model";
import { languageFor, textsOf, type Language, type TextKey, type Texts, type Vars } from "../dropin/locale";
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
  rules: { rule: FieldRule; check: (v: unknown, formPost: boolean) => Outcome; say: Say }[];
  names: Set<string>;
  words: Texts;
}

/** A problem's message in the visitor's language, naming the field by its label as the owner wrote it. */
type Say = (key: TextKey, vars?: Vars) => string;
const sayer =
  (words: Texts, rule: FieldRule): Say =>
  (key, vars) =>
    words.t(key, { ...vars, field: words.quote(rule.label ?? rule.name) });
/** A problem: its code, and its message's text. */
type Bad = (code: string, key: TextKey, vars?: Vars) => Outcome;

function compileRule(rule: FieldRule, words: Texts): (v: unknown, formPost: boolean) => Outcome {
  const say = sayer(words, rule);
  const bad: Bad = (code, key, vars) => ({ code, message: say(key, vars) });
  const options = rule.options ? new Set(rule.options) : null;
  const list = options !== null && (rule.multiple === true || rule.type === "checkbox");
  const oneText = (v: unknown): v is string => typeof v === "string";
  switch (rule.type) {
    case "number":
      return (v, formPost) => {
        let n = v;
        if (formPost && typeof v === "string") n = v.trim() === "" ? NaN : Number(v);
        if (typeof n !== "number" || !Number.isFinite(n)) return bad("TYPE_NUMERIC", "field.number");
        if (
          (rule.min !== undefined && n < (rule.min as number)) ||
          (rule.max !== undefined && n > (rule.max as number))
        )
          return outOfRange(rule, bad);
        return { value: n };
      };
    case "date":
      return (v) => {
        if (!oneText(v) || !isDate(v)) return bad("TYPE_DATE", "field.date");
        if (
          (rule.min !== undefined && v < (rule.min as string)) ||
          (rule.max !== undefined && v > (rule.max as string))
        )
          return outOfRange(rule, bad);
        return { value: v };
      };
    case "checkbox":
      if (list) return choose(rule, options!, list, bad, words);
      return (v, formPost) => {
        if (typeof v === "boolean") return { value: v };
        if (!formPost && typeof v !== "string") return bad("TYPE_TEXT", "field.boolean");
        const values = Array.isArray(v) ? v : [v];
        if (!values.every(oneText)) return bad("TYPE_TEXT", "field.boolean");
        return { value: values.some((s) => !UNTICKED.has(s.trim().toLowerCase())) };
      };
    case "select":
    case "radio":
      return choose(rule, options!, list, bad, words);
    case "file":
      // What the upload reader put there (files/service.ts): a reference to a stored file, never text.
      return (v) => {
        const list = Array.isArray(v) ? v : [v];
        if (
          !list.every((f) => typeof f === "object" && f !== null && typeof (f as { file?: unknown }).file === "string")
        )
          return bad("TYPE_FILE", "field.file");
        return { value: rule.multiple ? list : v };
      };
    default: {
      const check = TEXT_TYPES.has(rule.type) ? rule.type : "text";
      return (v) => {
        if (!oneText(v)) return bad("TYPE_TEXT", "field.text");
        if (check === "email" && !EMAIL.test(v)) return bad("TYPE_EMAIL", "field.email");
        if (check === "url" && !isHttpUrl(v)) return bad("TYPE_URL", "field.url");
        if (rule.minLength !== undefined && v.length < rule.minLength)
          return bad("TOO_SHORT", "field.tooShort", { count: rule.minLength });
        if (rule.maxLength !== undefined && v.length > rule.maxLength)
          return bad("TOO_LONG", "field.tooLong", { count: rule.maxLength });
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
  bad: Bad,
  words: Texts,
): (v: unknown, formPost: boolean) => Outcome {
  const all = rule.options!.join(words.t("sep.options"));
  return (v, formPost) => {
    const values = Array.isArray(v) ? v : [v];
    if (!list && values.length !== 1) return bad("TYPE_TEXT", "field.oneValue");
    if (!values.every((s) => typeof s === "string" && options.has(s)))
      return bad("NOT_AN_OPTION", "field.notOption", { options: all });
    return { value: list && formPost ? values : v };
  };
}

const outOfRange = (rule: FieldRule, bad: Bad) =>
  bad(
    "OUT_OF_RANGE",
    rule.min === undefined ? "field.atMost" : rule.max === undefined ? "field.atLeast" : "field.between",
    { min: String(rule.min), max: String(rule.max) },
  );

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

// Keyed by the form's list itself: a form read again (changed) has a new list, compiled anew; its
// messages are written once per language asked for.
const compiled = new WeakMap<FieldRule[], Map<Language, Compiled>>();
const compile = (fields: FieldRule[], lang: Language): Compiled => {
  let byLang = compiled.get(fields);
  if (!byLang) compiled.set(fields, (byLang = new Map()));
  let c = byLang.get(lang);
  if (!c) {
    const words = textsOf(lang);
    c = {
      rules: fields.map((rule) => ({ rule, check: compileRule(rule, words), say: sayer(words, rule) })),
      names: new Set(fields.map((f) => f.name)),
      words,
    };
    byLang.set(lang, c);
  }
  return c;
};

/**
 * Every problem with `data` by the form's fields, or none, its messages in `lang`; `data` is given
 * its stored types (form posts) as it goes.
 */
export function validateFields(
  form: Form,
  data: Record<string, unknown>,
  formPost: boolean,
  lang: Language = "en",
): FieldError[] {
  const { rules, names, words } = compile(form.fields!, lang);
  const errors: FieldError[] = [];
  // A field applies when its condition holds and its controlling field applies (a chain hides as one);
  // conditions read values already typed, since a controlling field comes first.
  const applies = new Map<string, boolean>();
  for (const { rule, check, say } of rules) {
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
    if (!Object.hasOwn(data, field)) {
      // A form post leaves an unticked checkbox out: it was answered, with false.
      if (formPost && rule.type === "checkbox" && !rule.options) {
        if (rule.required) errors.push({ field, code: "REQUIRED_FIELD_MISSING", message: say("field.ticked") });
        else data[field] = false;
      } else if (rule.required) errors.push({ field, code: "REQUIRED_FIELD_MISSING", message: say("field.required") });
      continue;
    }
    const value = data[field];
    if (isEmpty(value)) {
      if (rule.required) errors.push({ field, code: "REQUIRED_FIELD_EMPTY", message: say("field.required") });
      else if (formPost && rule.type === "checkbox" && !rule.options) data[field] = false;
      else if (formPost && rule.type === "number") data[field] = null;
      continue;
    }
    const outcome = check(value, formPost);
    if ("code" in outcome) errors.push({ field, ...outcome });
    else if (rule.required && outcome.value === false)
      errors.push({ field, code: "REQUIRED_FIELD_EMPTY", message: say("field.ticked") });
    else data[field] = outcome.value;
  }
  if (!form.allowExtraFields)
    for (const field of Object.keys(data))
      if (!names.has(field) && !PAGE_FIELDS.has(field))
        errors.push({
          field,
          code: "UNKNOWN_FIELD",
          message: words.t("field.unknown", { field: words.quote(field.slice(0, 100)) }),
        });
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
    const { form, data, formPost, submitter } = candidate;
    if (form.fields === null) return "accept";
    const lang = languageFor(form.locale, submitter.acceptLanguage);
    const errors = validateFields(form, data, formPost, lang);
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
    const { t } = textsOf(lang);
    return new AppError(
      "VALIDATION_FAILED",
      errors.length === 1
        ? errors[0]!.message
        : t("field.problems", {
            count: errors.length,
            list: shown.map((e) => e.message).join(t("sep.problems")),
          }).slice(0, 2000),
      undefined,
      shown,
    );
  },
};
