import { escapeHtml } from "../../lib/template";
import type { Form } from "../forms/model";
import { personPage } from "./form-page";
import type { Texts } from "./locale";

/** What a page after a post shows of its form: its name, over the heading, and its colour. */
type Shown = Pick<Form, "name" | "accentColor">;
const formName = (form: Shown | null) => (form ? `<p class="form-name">${escapeHtml(form.name)}</p>\n` : "");

const backLink = (back: string | null, text: string) =>
  back ? `<p><a href="${escapeHtml(back)}">${escapeHtml(text)}</a></p>` : "";

/** A link with which the submitter may change their answers (editableDays), and until when. */
export interface EditOffer {
  path: string;
  until: string;
}

const editLink = (edit: EditOffer | null, { t, time }: Texts) =>
  edit
    ? `<p>${escapeHtml(t("edit.offer", { time: time(edit.until) })).replace(
        "{link}",
        `<a href="${escapeHtml(edit.path)}">${escapeHtml(t("edit.offerLink"))}</a>`,
      )}</p>`
    : "";

/**
 * GET /f/{formId}/thanks: thanks the visitor, links back to the page they came from when it is
 * known and trusted, and offers the edit link when the form takes edits.
 */
export function thanksPage(form: Shown, back: string | null, texts: Texts, edit: EditOffer | null = null): string {
  const { t, lang } = texts;
  return personPage(
    `${t("thanks.title")} · ${form.name}`,
    `<section class="card">${formName(form)}<h1><span class="done" aria-hidden="true">✓</span> ${escapeHtml(t("thanks.title"))}</h1>
<p>${escapeHtml(t("thanks.text", { form: form.name }))}</p>${editLink(edit, texts)}${backLink(back, t("thanks.back"))}</section>`,
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

/**
 * A second answer refused (one response per email) on a form that takes edits: the refusal, and a
 * button that emails the address its answer's edit link (never shown here).
 */
export function editLinkOfferPage(
  form: Shown & { id: string },
  sentence: string,
  email: string | null,
  { t, lang }: Texts,
): string {
  return personPage(
    `${t("error.short")} · ${form.name}`,
    `<section class="card">${formName(form)}<h1>${escapeHtml(t("error.title"))}</h1>
<p class="notice" role="alert">${escapeHtml(sentence)}</p>
<p>${escapeHtml(t("editLink.offer"))}</p>
<form method="post" action="/f/${encodeURIComponent(form.id)}/edit-link">
<label>${escapeHtml(t("editLink.email"))} <input type="email" name="email" required autocomplete="email"${email ? ` value="${escapeHtml(email)}"` : ""}></label>
<button type="submit">${escapeHtml(t("editLink.button"))}</button>
</form></section>`,
    "",
    form.accentColor,
    lang,
  );
}

/** What anyone who asked for an edit link reads, whether or not the address has answered. */
export function editLinkSentPage(form: Shown, { t, lang }: Texts): string {
  return personPage(
    `${t("editLink.sentTitle")} · ${form.name}`,
    `<section class="card">${formName(form)}<h1>${escapeHtml(t("editLink.sentTitle"))}</h1>
<p>${escapeHtml(t("editLink.sent"))}</p></section>`,
    "",
    form.accentColor,
    lang,
  );
}
