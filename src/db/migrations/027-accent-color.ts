import type { Step } from "../portable";

/** The colour of a form's pages for people (hosted page, thank-you, errors); NULL is formsvc's blue. */
export const steps: Step[] = ["ALTER TABLE forms ADD COLUMN accent_color TEXT"];
