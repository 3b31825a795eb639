import type { Step } from "../portable";

/**
 * The language of a form's pages for people and of its visitors' error messages: `auto` (the
 * visitor's Accept-Language) or a language code. No CHECK: the setting's schema says which, and a
 * language added later needs no table rebuild.
 */
export const steps: Step[] = ["ALTER TABLE forms ADD COLUMN locale TEXT NOT NULL DEFAULT 'auto'"];
