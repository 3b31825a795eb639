import type { Step } from "../portable";

/** What a person's list of sessions shows of each: the browser it was opened in and the client address of that login. */
export const steps: Step[] = [
  "ALTER TABLE sessions ADD COLUMN user_agent TEXT",
  "ALTER TABLE sessions ADD COLUMN address TEXT",
];
