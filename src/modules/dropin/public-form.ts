import { AppError } from "../../lib/errors";
import { OPERATOR } from "../../lib/principal";
import type { Form } from "../forms/model";
import type { FormsService } from "../forms/service";

const notFound = (id: string) => new AppError("FORM_NOT_FOUND", `there is no public form ${id.slice(0, 100)}`);

/**
 * The form at a /f/ address: 404 FORM_NOT_FOUND whatever the reason when it does not exist or does
 * not take public posts (`publicEndpoint`): the id is the address, so no answer tells which.
 */
export async function publicForm(forms: FormsService, id: string): Promise<Form> {
  const form = await forms.formFor(OPERATOR, id, "submit").catch((e: unknown) => {
    throw e instanceof AppError && e.code === "FORM_NOT_FOUND" ? notFound(id) : e;
  });
  if (!form.publicEndpoint) throw notFound(id);
  return form;
}

/** publicForm, or undefined where it answers 404. */
export const publicFormOrNone = (forms: FormsService, id: string): Promise<Form | undefined> =>
  publicForm(forms, id).catch((e: unknown) => {
    if (e instanceof AppError && e.code === "FORM_NOT_FOUND") return undefined;
    throw e;
  });
