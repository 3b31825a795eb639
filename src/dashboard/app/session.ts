import { signal } from "@preact/signals";
import { whenEnrolmentRequired, whenUnauthorized } from "./api";
import { go, loginHref, route } from "./router";

import type { Account } from "../../client/index";

export type Me = Account;

/** The logged-in owner; null when nobody is, undefined until the server has said. */
export const me = signal<Me | null | undefined>(undefined);

/** Why the login page is shown, when it is not the first visit (the session ran out, or the user logged out). */
export const loginNotice = signal<string | null>(null);

/** FORMSVC_REQUIRE_2FA held the session to enrolment: the dashboard shows only the enrolment, and says why. */
export const enrolmentRequired = signal(false);

whenEnrolmentRequired(() => void (enrolmentRequired.value = true));

whenUnauthorized(() => {
  if (me.value === null) return;
  me.value = null;
  loginNotice.value = "Your session has ended. Log in again to go on where you were.";
  const here = route.value.hash;
  if (!here.startsWith("#/login")) go(loginHref(here), true);
});
