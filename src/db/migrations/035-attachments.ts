import type { Step } from "../portable";

/** The owner notification's attachments: the submission's PDF, and its files up to a total in bytes (0: none). */
export const steps: Step[] = [
  "ALTER TABLE forms ADD COLUMN attach_pdf INTEGER NOT NULL DEFAULT 0",
  "ALTER TABLE forms ADD COLUMN attach_files_up_to INTEGER NOT NULL DEFAULT 0",
];
