import type { Step } from "../portable";

/** What a form's owner should know of its posts (a redirect target dropped), newest first, as JSON text. */
export const steps: Step[] = ["ALTER TABLE forms ADD COLUMN warnings TEXT NOT NULL DEFAULT '[]'"];
