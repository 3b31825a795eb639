import { escapeHtml } from "../../lib/template";
import type { Form } from "../forms/model";
import { personPage } from "./form-page";
import type { Texts } from "./locale";

/** What a page after a post shows of its form: its name, over the heading, and its colour. */
type Shown = Pick<Form, "name" | "accentColor">;
const formName = (form: Shown | null) => (form ? `<p class="form-name">${escapeHtml(form.name)}</p>\n` : "");

const backLink = (back: string | null, text: string) =>
  back ? `<p><a href="${escapeHtml(back)}">${escapeHtml(text)}</a></p>` : "";

/** GET /f/{formId}/thanks: thanks the visitor, and links back to the page they came from when it is known and trusted. */
export function thanksPage(form: Shown, back: string | null, { t, lang }: Texts): string {
  return personPage(
    `${t("thanks.title")} · ${form.name}`,
    `<section class="card">${formName(form)}<h1><span class="done" aria-hidden="true">✓</span> ${escapeHtml(t("thanks.title"))}</h1>
<p>${escapeHtml(t("thanks.text", { form: form.name }))}</p>${backLink(back, t("thanks.back"))}</section>`,
    "",
    form.accentColor,
    lang,
  );
}

/**
 * A refused post, for a person: its form's name (when the address named one), what went wrong in one
 * sentence, each field's problem (its message names the field), and a way back.
 */
export function errorPage(
  form: Shown | null,
  sentence: string,
  problems: string[],
  back: string | null,
  { t, lang }: Texts,
): string {
  const items = problems.map((message) => `<li>${escapeHtml(message)}</li>`).join("");
  return personPage(
    form ? `${t("error.short")} · ${form.name}` : t("error.title"),
    `<section class="card">${formName(form)}<h1>${escapeHtml(t("error.title"))}</h1>
<p class="notice" role="alert">${escapeHtml(sentence)}</p>${items ? `<div class="summary"><ul>${items}</ul></div>` : ""}${backLink(back, t("error.back"))}</section>`,
    "",
    form?.accentColor ?? null,
    lang,
  );
}
