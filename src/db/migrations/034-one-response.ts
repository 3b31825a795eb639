import type { Step } from "../portable";

/**
 * One response per email (the form setting `oneResponsePerEmail`): a submission that counts carries
 * its form's extracted, normalized address in `one_response_email`, and a unique index over (form,
 * that address) lets only one commit, whichever engine, whichever process. A submission counts when
 * it reached the inbox while the setting was on, or was in the inbox when it was turned on (the
 * earliest per address); one filed as spam never does, and a deleted or erased one (its row gone)
 * frees the address.
 */
export const steps: Step[] = [
  "ALTER TABLE forms ADD COLUMN one_response_per_email INTEGER NOT NULL DEFAULT 0",
  "ALTER TABLE submissions ADD COLUMN one_response_email TEXT",
  "CREATE UNIQUE INDEX submissions_one_response ON submissions (form_id, one_response_email) WHERE one_response_email IS NOT NULL",
];
