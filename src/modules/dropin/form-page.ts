import { PAGE_CSP } from "../../http/assets";
import { escapeHtml } from "../../lib/template";
import type { FieldRule, Form } from "../forms/model";
import { widgetLanguagePath } from "../spam/widget";
import { textsOf, type Locale, type Texts } from "./locale";
import { partialPath, resumeBox } from "./partials-page";

/** One problem with one field, as the field rules report it (VALIDATION_FAILED's `errors`). */
export interface FieldProblem {
  field?: string;
  code: string;
  message: string;
}

/** What the hosted page shows besides the form: the values a refused post sent, and its problems. */
export interface FormPageState {
  values?: Record<string, unknown>;
  problems?: FieldProblem[];
  /** A sentence about the whole post (closed form, failed challenge), shown above the fields. */
  notice?: string;
  /** The resume token of the saved answer the page continues (partialSubmissions), carried by its posts. */
  partial?: string;
  /** Where the page posts: the form's drop-in address unless said (an edit link posts back to itself). */
  action?: string;
}

/** Where the pages for people (hosted form, thank-you, errors) take their stylesheet and the widget's. */
export const PAGE_CSS_PATH = "/f/assets/page.css";
/** A form's own colour, as a stylesheet of its own (the policy allows no inline style): `/f/assets/accent/0f766e.css`. */
export const accentCssPath = (hex: string) => `/f/assets/accent/${hex.slice(1).toLowerCase()}.css`;
export const ALTCHA_CSS_PATH = "/f/assets/altcha.css";
/** The script of a hosted page with steps or conditions (page-script.ts). */
export const PAGE_JS_PATH = "/f/assets/page.js";

/**
 * The headers of formsvc's pages for people: the dashboard's policy, but framed by formsvc's own
 * pages (the dashboard's preview), a worker from a blob (the ALTCHA widget solves in one), and a
 * form that may post on to wherever the answer redirects (`_next`, `successUrl`): Chrome applies
 * `form-action` to the redirect too, and those are checked by the server.
 */
export const PERSON_PAGE_HEADERS: Readonly<Record<string, string>> = {
  "content-type": "text/html; charset=utf-8",
  "content-security-policy": `${PAGE_CSP.replace("frame-ancestors 'none'", "frame-ancestors 'self'").replace(
    "; form-action 'self'",
    "",
  )}; worker-src blob:`,
  "x-frame-options": "SAMEORIGIN",
  "referrer-policy": "strict-origin-when-cross-origin",
};

/**
 * A page's language in its headers: Content-Language, and where the visitor's Accept-Language chose
 * it (the form's `locale` is auto, or no form is known) a Vary that says so to caches.
 */
export function languageHeaders(headers: Record<string, unknown>, { lang }: Texts, locale: Locale | undefined): void {
  headers["content-language"] = lang;
  if (locale === undefined || locale === "auto")
    headers.vary = headers.vary ? `${String(headers.vary)}, Accept-Language` : "Accept-Language";
}

const esc = (v: unknown) => escapeHtml(String(v));
const attr = (name: string, v: unknown) => (v === undefined || v === null || v === "" ? "" : ` ${name}="${esc(v)}"`);
const flag = (name: string, on: boolean | undefined) => (on ? ` ${name}` : "");

/**
 * A page for people: the shared head (stylesheets from the binary, no script unless asked), a title
 * and a body, in `lang` (its route says so in Content-Language too: `languageHeaders`).
 */
export function personPage(title: string, main: string, head = "", accent: string | null = null, lang = "en"): string {
  const colour = accent ? `\n<link rel="stylesheet" href="${accentCssPath(accent)}">` : "";
  return `<!doctype html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="${PAGE_CSS_PATH}">${colour}${head}
</head>
<body>
<main>
${main}
</main>
</body>
</html>
`;
}

/** The values a refused post sent for one field, as text (a file or other object sends nothing back). */
function sent(value: unknown): string[] {
  const list = Array.isArray(value) ? value : value === undefined || value === null ? [] : [value];
  return list.filter((v) => ["string", "number", "boolean"].includes(typeof v)).map(String);
}

const TICKED = new Set(["true", "on", "1", "yes"]);
const INPUT_TYPES = new Set(["text", "email", "url", "tel", "number", "date"]);
const AUTOCOMPLETE: Record<string, string> = { name: "name", email: "email", phone: "tel", tel: "tel" };

/** One field: its label, its control with the values sent, and its problem beside it. */
function fieldHtml(
  rule: FieldRule,
  i: number,
  values: string[],
  problem: string | undefined,
  texts: Texts,
  when = "",
): string {
  const id = `f${i}`;
  const errorId = `${id}-error`;
  // What the page's script reads: the field a wrapper holds, and when it applies.
  const logic = rule.showIf
    ? `${attr("data-field", rule.name)}${attr("data-show-if", JSON.stringify(rule.showIf))}`
    : "";
  if (rule.type === "hidden")
    return `<input type="hidden"${attr("name", rule.name)}${attr("value", values[0])}${logic}>`;
  const label = esc(rule.label ?? rule.name);
  const mark = rule.required ? ` <span class="required" aria-hidden="true">*</span>` : "";
  const invalid = problem ? ` aria-invalid="true" aria-describedby="${errorId}"` : "";
  const error = `${when}${problem ? `<p class="error" id="${errorId}">${esc(problem)}</p>` : ""}`;
  // A conditional field is required only while it applies, which a page without script cannot know:
  // the script sets `required` while it shows, and without script the server says so.
  const required = flag(rule.showIf ? "data-required" : "required", rule.required);
  const common = `${attr("name", rule.name)}${required}${invalid}`;

  if (rule.options && (rule.type === "radio" || rule.type === "checkbox")) {
    // A group: its legend names it; `required` on a radio asks for one of the group, on checkboxes it would ask for all.
    const boxes = rule.options
      .map((o, j) => {
        const own = `${rule.type === "radio" ? common : `${attr("name", rule.name)}${invalid}`}`;
        const checked = flag("checked", values.includes(o));
        return `<label class="choice"><input type="${rule.type}" id="${id}-${j}"${own}${attr("value", o)}${checked}> ${esc(o)}</label>`;
      })
      .join("\n");
    return `<fieldset class="field${problem ? " invalid" : ""}" id="${id}"${problem ? ` aria-describedby="${errorId}"` : ""}${logic}>
<legend>${label}${mark}</legend>
${error}${boxes}
</fieldset>`;
  }

  let control: string;
  if (rule.type === "checkbox") {
    const box = `<input type="checkbox" id="${id}"${common} value="true"${flag(
      "checked",
      values.some((v) => TICKED.has(v.toLowerCase())),
    )}>`;
    return `<div class="field checkbox${problem ? " invalid" : ""}"${logic}><label for="${id}">${box} ${label}${mark}</label>${error}</div>`;
  } else if (rule.type === "select") {
    const blank = rule.multiple ? "" : `<option value="">${esc(texts.t("page.choose"))}</option>`;
    const options = (rule.options ?? [])
      .map((o) => `<option${attr("value", o)}${flag("selected", values.includes(o))}>${esc(o)}</option>`)
      .join("");
    control = `<select id="${id}"${common}${flag("multiple", rule.multiple)}>${blank}${options}</select>`;
  } else if (rule.type === "textarea") {
    const lengths = `${attr("minlength", rule.minLength)}${attr("maxlength", rule.maxLength)}`;
    control = `<textarea id="${id}"${common}${lengths}${attr("placeholder", rule.placeholder)} rows="5">${esc(values[0] ?? "")}</textarea>`;
  } else if (rule.type === "file") {
    control = `<input type="file" id="${id}"${common}${flag("multiple", rule.multiple)}>`;
  } else {
    const type = INPUT_TYPES.has(rule.type) ? rule.type : "text";
    const limits =
      `${attr("minlength", rule.minLength)}${attr("maxlength", rule.maxLength)}` +
      `${attr("min", rule.min)}${attr("max", rule.max)}${type === "number" ? ' step="any"' : ""}`;
    const auto = attr("autocomplete", AUTOCOMPLETE[rule.name.toLowerCase()] ?? (type === "email" ? "email" : ""));
    control = `<input type="${type}" id="${id}"${common}${limits}${attr("placeholder", rule.placeholder)}${auto}${attr("value", values[0])}>`;
  }
  return `<div class="field${problem ? " invalid" : ""}"${logic}><label for="${id}">${label}${mark}</label>${error}${control}</div>`;
}

/** When a conditional field applies, in words, for a page without script (which shows every field). */
function whenHtml(rule: FieldRule, rules: FieldRule[], { t }: Texts): string {
  const cond = rule.showIf;
  if (!cond) return "";
  const by = rules.find((r) => r.name === cond.field);
  const quote = (text: string) => t("page.quote", { text });
  const field = quote(by?.label ?? cond.field);
  const said =
    cond.equals !== undefined
      ? by?.type === "checkbox" && !by.options && cond.equals === "true"
        ? t("page.when.ticked", { field })
        : t("page.when.equals", { field, value: quote(cond.equals) })
      : cond.in
        ? t("page.when.in", { field, values: cond.in.map(quote).join(t("sep.options")) })
        : t("page.when.filled", { field });
  return `<p class="when">${esc(said)}</p>`;
}

/**
 * The fields, and with `page` fields their steps: each a section headed by its page's label. Without
 * script every step shows, one after another; the page's script shows one at a time.
 */
function fieldsHtml(rules: FieldRule[], html: (rule: FieldRule, i: number) => string): string {
  if (!rules.some((r) => r.type === "page")) return rules.map(html).join("\n");
  const steps: string[][] = [[]];
  rules.forEach((r, i) => {
    if (r.type !== "page") steps[steps.length - 1]!.push(html(r, i));
    else steps.push(r.label ? [`<h2>${esc(r.label)}</h2>`] : []);
  });
  // Fields before the first page make the first step; a form that starts with a page has none there.
  if (steps[0]!.length === 0) steps.shift();
  return steps.map((step) => `<section class="step">\n${step.join("\n")}\n</section>`).join("\n");
}

/**
 * The hosted page of a form with `fields` (GET /f/{formId}), and the same page when a post from it
 * is refused: the visitor's values kept (escaped) and each problem beside its field, linked from a
 * summary at the top. Works without script but for the proof of work (the ALTCHA widget, when the
 * form's challenge is pow); no inline script or style, so PERSON_PAGE_HEADERS' policy holds.
 */
export function hostedFormPage(form: Form, state: FormPageState = {}, texts: Texts = textsOf("en")): string {
  const { t } = texts;
  const rules = form.fields ?? [];
  const values = state.values ?? {};
  const problems = state.problems ?? [];
  const index = new Map(rules.map((r, i) => [r.name, i]));
  const byField = new Map<string, string>();
  for (const p of problems)
    if (p.field !== undefined && index.has(p.field) && !byField.has(p.field)) byField.set(p.field, p.message);

  const summary = problems.length
    ? `<div class="summary" role="alert" aria-labelledby="summary-title">
<h2 id="summary-title">${esc(t("page.summary", { count: problems.length }))}</h2>
<ul>${problems
        .map((p) => {
          const i = p.field === undefined ? undefined : index.get(p.field);
          const rule = i === undefined ? undefined : rules[i];
          if (i === undefined || !rule || rule.type === "hidden") return `<li>${esc(p.message)}</li>`;
          // A group's link goes to its first choice: a fieldset takes no focus.
          const target = rule.options && rule.type !== "select" ? `f${i}-0` : `f${i}`;
          return `<li><a href="#${target}">${esc(p.message)}</a></li>`;
        })
        .join("")}</ul>
</div>`
    : "";
  const notice = state.notice ? `<p class="notice" role="status">${esc(state.notice)}</p>` : "";
  const pow = form.challenge === "pow";
  const multipart = rules.some((r) => r.type === "file");
  const honeypot = form.honeypotField
    ? `<div class="hp" aria-hidden="true"><label>${esc(t("page.honeypot"))} <input type="text"${attr("name", form.honeypotField)} tabindex="-1" autocomplete="off"></label></div>`
    : "";
  const widget = pow
    ? `<altcha-widget challenge="/f/${encodeURIComponent(form.id)}/challenge" auto="onfocus" language="${texts.lang}"></altcha-widget>
<noscript><p class="notice">${esc(t("page.powNoscript"))}</p></noscript>`
    : "";
  const anyRequired = rules.some((r) => r.required && r.type !== "hidden");
  const logic = rules.some((r) => r.type === "page" || r.showIf);
  // The script's own words, as data: one script serves every language.
  const scriptTexts = { back: t("page.back"), next: t("page.next"), progress: t("page.progress") };
  const star = `<span class="required" aria-hidden="true">*</span><span class="visually-hidden">${esc(t("page.star"))}</span>`;
  // Save and resume: a second button posts what is typed, unchecked and without files, to the save route.
  const saving = form.partialSubmissions
    ? `\n<input type="hidden" name="_partial"${attr("value", state.partial)}>
<button type="submit" class="secondary" data-save formaction="${partialPath(form.id)}" formenctype="application/x-www-form-urlencoded" formnovalidate>${esc(t("save.button"))}</button>`
    : "";

  const main = `<h1>${esc(form.name)}</h1>
${form.description ? `<p class="description">${esc(form.description)}</p>` : ""}
${notice}${summary}
<form method="post" action="${esc(state.action ?? `/f/${encodeURIComponent(form.id)}`)}" enctype="${multipart ? "multipart/form-data" : "application/x-www-form-urlencoded"}"${logic ? ` data-logic${attr("data-texts", JSON.stringify(scriptTexts))}` : ""}>
${anyRequired ? `<p class="hint">${esc(t("page.required")).replace("{star}", star)}</p>\n` : ""}${fieldsHtml(rules, (r, i) => fieldHtml(r, i, sent(values[r.name]), byField.get(r.name), texts, whenHtml(r, rules, texts)))}
${honeypot}
${widget}
<button type="submit">${esc(t("page.send"))}</button>${saving}
</form>${saving && resumeBox(form.id, state.partial ?? "", "", true, texts)}`;
  // The widget's stylesheet under the id it looks for, so it injects no <style> of its own (which the policy would refuse).
  // The widget's words in the page's language: its pack, after the widget (both deferred, so in order).
  const pack = widgetLanguagePath(texts.lang);
  const head =
    (pow
      ? `\n<link rel="stylesheet" id="altcha-css" href="${ALTCHA_CSS_PATH}">\n<script ${pack ? "defer" : "async"} src="/widget/altcha.js"></script>` +
        (pack ? `\n<script defer src="${pack}"></script>` : "")
      : "") + (logic ? `\n<script defer src="${PAGE_JS_PATH}"></script>` : "");
  return personPage(form.name, main, head, form.accentColor, texts.lang);
}

/** The hosted page of a closed form: its name, why it is closed, and no form. */
export function closedFormPage(form: Form, why: string, texts: Texts): string {
  return personPage(
    form.name,
    `<h1>${esc(form.name)}</h1>
<p class="notice" role="status">${esc(why)}</p>`,
    "",
    form.accentColor,
    texts.lang,
  );
}

/** The page for an address with no hosted form behind it: one kind sentence, whatever the reason. */
export function noFormPage({ t, lang }: Texts): string {
  return personPage(
    t("notFound.title"),
    `<h1>${esc(t("notFound.title"))}</h1>
<p>${esc(t("notFound.text"))}</p>`,
    "",
    null,
    lang,
  );
}
