import type { Form } from "../forms/model";
import { escapeHtml } from "../../lib/template";

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
}

/**
 * The hosted page of a form with `fields` (GET /f/{formId}), and the same page when a post from it
 * is refused: the visitor's values kept and each problem beside its field.
 * TODO(issue 26): a stub until the hosted page lands; it shows the problems only.
 */
export function hostedFormPage(form: Form, state: FormPageState = {}): string {
  const problems = (state.problems ?? []).map((p) => `<li>${escapeHtml(p.message)}</li>`).join("");
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(form.name)}</title></head><body><h1>${escapeHtml(form.name)}</h1>${state.notice ? `<p>${escapeHtml(state.notice)}</p>` : ""}<ul>${problems}</ul></body></html>`;
}
