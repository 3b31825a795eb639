import { slot } from "../../lib/slots";
import type { SubmitCheck } from "../submissions/pipeline";

/** Set when the honeypot came back filled: the spam filter names it among its reasons. */
export const honeypotCaught = slot<true>("honeypot");

/**
 * Whether a honeypot field came back filled. People never see the field, so anything in it was put
 * there by a program: a string with more than whitespace, a number, a boolean, or a list or object
 * holding any of those. A form post with the field repeated and left empty (`["", ""]`) is empty.
 */
export function isFilled(value: unknown): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value === "string") return /\S/.test(value);
  if (Array.isArray(value)) return value.some(isFilled);
  if (typeof value === "object") return Object.values(value).some(isFilled);
  return true;
}

/**
 * The honeypot check: a submission that fills the form's honeypot field is stored as spam (reason
 * `honeypot`). The field
 * is removed from `data` in every case, so it is never stored. A form without one passes everything.
 */
export const honeypotCheck: SubmitCheck = {
  name: "honeypot",
  check(candidate) {
    const { form, data } = candidate;
    const field = form.honeypotField;
    if (field === null || !Object.hasOwn(data, field)) return "accept";
    const filled = isFilled(data[field]);
    delete data[field];
    if (!filled) return "accept";
    // The spam filter names it among the reasons, and learns from it as from a spam mark.
    honeypotCaught.set(candidate, true);
    return "spam";
  },
};
