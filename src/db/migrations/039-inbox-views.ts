import type { Step } from "../portable";

/**
 * The inbox's views by state ("to do" is new and open) read their state's own range, newest first,
 * instead of walking the form's whole range for the few rows of a state: on a form worked to zero,
 * "to do" read all 1,000,000 to find its 40 (bench/inbox.ts). A list of several states asks each
 * state's range and merges them (submissions/repo.ts `listSubmissionsByForm`).
 */
export const steps: Step[] = [
  "CREATE INDEX submissions_by_state ON submissions (state, form_id, status, created_at, id)",
];
