import { escapeHtml } from "../../lib/template";
import { personPage } from "./form-page";

const backLink = (back: string | null, text: string) =>
  back ? `<p><a href="${escapeHtml(back)}">${escapeHtml(text)}</a></p>` : "";

/** GET /f/{formId}/thanks: thanks the visitor, and links back to the page they came from when it is known and trusted. */
export function thanksPage(formName: string, back: string | null): string {
  return personPage(
    "Thank you!",
    `<h1>Thank you!</h1>
<p>Your answer to ${escapeHtml(formName)} has been sent.</p>${backLink(back, "Go back to the site")}`,
  );
}

/** A refused post, for a person: what went wrong in one sentence, each field's problem (its message names the field), and a way back. */
export function errorPage(sentence: string, problems: string[], back: string | null): string {
  const items = problems.map((message) => `<li>${escapeHtml(message)}</li>`).join("");
  return personPage(
    "Your form was not sent",
    `<h1>Your form was not sent</h1>
<p class="notice" role="alert">${escapeHtml(sentence)}</p>${items ? `<div class="summary"><ul>${items}</ul></div>` : ""}${backLink(back, "Go back to the form")}`,
  );
}
