import type { Step } from "../portable";

/**
 * What a person's list of sessions shows of each: the browser it was opened in and the client
 * address of that login. `second_factor`: the login proved one (a TOTP or recovery code, a
 * passkey), which FORMSVC_REQUIRE_2FA asks of every session.
 */
export const steps: Step[] = [
  "ALTER TABLE sessions ADD COLUMN user_agent TEXT",
  "ALTER TABLE sessions ADD COLUMN address TEXT",
  "ALTER TABLE sessions ADD COLUMN second_factor INTEGER NOT NULL DEFAULT 0",
];
