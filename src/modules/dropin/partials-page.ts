import { escapeHtml } from "../../lib/template";
import type { Texts } from "./locale";

/** The save route of a form's hosted page: its "Save and continue later" button and the page's script post there. */
export const partialPath = (formId: string) => `/f/${encodeURIComponent(formId)}/partial`;

/**
 * The box that hands a visitor the link to their saved answer, with a way to have it emailed: a form
 * of its own (outside the hosted form, so the address is never sent as an answer). Hidden on the
 * hosted page until the page's script has saved; shown on the page that answers a save without it.
 */
export function resumeBox(formId: string, token: string, link: string, hidden: boolean, { t }: Texts): string {
  const a = link ? `<a href="${escapeHtml(link)}">${escapeHtml(link)}</a>` : `<a href=""></a>`;
  return `<form class="resume" id="resume" method="post" action="${partialPath(formId)}"${hidden ? " hidden" : ""}>
<p role="status">${escapeHtml(t(hidden ? "save.savedLink" : "save.link"))} ${a}</p>
<input type="hidden" name="_partial"${token ? ` value="${escapeHtml(token)}"` : ""}>
<label for="resume-email">${escapeHtml(t("save.emailMe"))}</label>
<input type="email" id="resume-email" name="_email" required autocomplete="email">
<button type="submit" class="secondary">${escapeHtml(t("save.emailMe"))}</button>
</form>`;
}
