// The HTML a site pastes to put a form on a page, both without JavaScript and both built from the
// form's fields (or, without a list, the fields its type usually has): the drop-in form posting to
// /f/{formId} (no key); and the guide's publishable-key form (docs/guide.md) (examples/contact.html), filled in for
// one form and one key. Posting exactly what either offers is accepted by the form's own rules.
import type { FieldRule } from "../../client/index";

export interface SnippetInput {
  /** formsvc's own origin, e.g. https://forms.example.com */
  server: string;
  formId: string;
  formType: string;
  /** The form's fields; null takes the fields its type usually has. */
  fields: FieldRule[] | null;
  /** The publishable key; a placeholder when there is none yet. */
  apiKey: string;
  /** The form's honeypot field, or null when it has none. */
  honeypotField: string | null;
  /** The page to send people to afterwards, or "" for none. */
  redirectUrl: string;
}

const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

const NAME = `<label>Name <input name="name" autocomplete="name" required></label>`;
const EMAIL = `<label>Email <input name="email" type="email" autocomplete="email" required></label>`;
const MESSAGE = `<label>Message <textarea name="message" required></textarea></label>`;

/** The fields the API's form types usually carry (SPEC: "typical data keys by form type"). */
const FIELDS: Record<string, string[]> = {
  contact: [NAME, EMAIL, MESSAGE],
  feedback: [
    EMAIL,
    `<label>Rating (1–5) <input name="rating" type="number" min="1" max="5" required></label>`,
    MESSAGE,
  ],
  waitlist: [NAME, EMAIL],
};

const HONEYPOT = (field: string) => [
  `  <!--`,
  `    The honeypot: people never see it, so a filled one means a bot, and formsvc stores that`,
  `    submission as spam. Off screen rather than display:none (which some bots skip), hidden from`,
  `    screen readers (aria-hidden), out of the Tab order (tabindex="-1"), never autofilled`,
  `    (autocomplete="off", and a name and label no autofill heuristic matches).`,
  `  -->`,
  `  <div style="position: absolute; left: -10000px; width: 1px; height: 1px; overflow: hidden" aria-hidden="true">`,
  `    <label>Leave this empty <input type="text" name="${esc(field)}" tabindex="-1" autocomplete="off"></label>`,
  `  </div>`,
];

const at = (name: string, v: unknown) => (v === undefined || v === "" ? "" : ` ${name}="${esc(String(v))}"`);
const on = (name: string, v: boolean | undefined) => (v ? ` ${name}` : "");

/** One field of the list as plain HTML: its label around its control, the rule's checks as attributes the browser applies too. */
function fieldLines(rule: FieldRule): string[] {
  // A page without formsvc's script shows a conditional field always: required only when it applies, which the server checks.
  const r = rule.showIf ? { ...rule, required: false } : rule;
  const label = esc(r.label || r.name);
  const name = at("name", r.name);
  if (r.type === "hidden") return [`<input type="hidden"${name} value="">`];
  // A step of the hosted page: on a page of one's own, a heading.
  if (r.type === "page") return r.label ? [`<h2>${label}</h2>`] : [];
  if (r.options && (r.type === "radio" || r.type === "checkbox"))
    return [
      `<fieldset>`,
      `  <legend>${label}</legend>`,
      ...r.options.map(
        (o) =>
          `  <label><input type="${r.type}"${name}${at("value", o)}${on("required", r.type === "radio" && r.required)}> ${esc(o)}</label>`,
      ),
      `</fieldset>`,
    ];
  if (r.type === "checkbox")
    return [`<label><input type="checkbox"${name} value="true"${on("required", r.required)}> ${label}</label>`];
  const common = `${name}${on("required", r.required)}`;
  if (r.type === "select")
    return [
      `<label>${label}`,
      `  <select${common}${on("multiple", r.multiple)}>`,
      ...(r.multiple ? [] : [`    <option value="">Choose…</option>`]),
      ...(r.options ?? []).map((o) => `    <option${at("value", o)}>${esc(o)}</option>`),
      `  </select>`,
      `</label>`,
    ];
  const lengths = `${at("minlength", r.minLength)}${at("maxlength", r.maxLength)}`;
  if (r.type === "textarea")
    return [`<label>${label} <textarea${common}${lengths}${at("placeholder", r.placeholder)}></textarea></label>`];
  const limits = `${lengths}${at("min", r.min)}${at("max", r.max)}`;
  return [
    `<label>${label} <input${at("type", r.type === "text" ? "" : r.type)}${common}${limits}${at("placeholder", r.placeholder)}></label>`,
  ];
}

export interface DropinSnippetInput {
  /** formsvc's own origin, e.g. https://forms.example.com */
  server: string;
  formId: string;
  formType: string;
  /** The form's fields; null takes the fields its type usually has. */
  fields: FieldRule[] | null;
  honeypotField: string | null;
}

/** The lines of a form's own fields, or of those its type usually has; and whether it needs multipart (a file). */
function bodyOf(s: { fields: FieldRule[] | null; formType: string }) {
  return {
    lines: (s.fields ? s.fields.flatMap(fieldLines) : (FIELDS[s.formType] ?? [NAME, EMAIL, MESSAGE])).map(
      (f) => `  ${f}`,
    ),
    enctype: s.fields?.some((f) => f.type === "file") ? ' enctype="multipart/form-data"' : "",
  };
}

/** The drop-in snippet: a plain HTML form posting to /f/{formId}, with no key and no script, ready to paste. */
export function dropinSnippet(s: DropinSnippetInput): string {
  const { lines: fields, enctype } = bodyOf(s);
  const lines = [
    `<form method="post" action="${esc(`${s.server}/f/${encodeURIComponent(s.formId)}`)}"${enctype}>`,
    ...fields,
    ...(s.honeypotField ? HONEYPOT(s.honeypotField) : []),
    `  <button type="submit">Send</button>`,
    `</form>`,
  ];
  return `${lines.join("\n")}\n`;
}

/** The publishable-key snippet, ready to paste. */
export function formSnippet(s: SnippetInput): string {
  const action = `${s.server}/api/v1/forms/submit?apiKey=${encodeURIComponent(s.apiKey).replace(/%E2%80%A6/g, "…")}`;
  const { lines: fields, enctype } = bodyOf(s);
  const lines = [
    `<form method="post" action="${esc(action)}"${enctype}>`,
    `  <input type="hidden" name="formId" value="${esc(s.formId)}">`,
    ...(s.redirectUrl ? [`  <input type="hidden" name="redirectUrl" value="${esc(s.redirectUrl)}">`] : []),
    ...fields,
    ...(s.honeypotField ? HONEYPOT(s.honeypotField) : []),
    `  <button type="submit">Send</button>`,
    `</form>`,
  ];
  return `${lines.join("\n")}\n`;
}
