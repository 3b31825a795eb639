import { AppError } from "../../lib/errors";
import { isLocationUrl } from "../../lib/location-url";
import { httpOrigin, postOrigin } from "../../lib/origin";
import { slot } from "../../lib/slots";
import type { Form } from "../forms/model";
import type { SubmitterInfo } from "./meta";
import type { SubmitCheck } from "./pipeline";

/** The redirect target the post named and was not allowed: answered as a post without one, and the owner told (the form's warnings, the notification). */
export const droppedRedirectOf = slot<string>("droppedRedirect");

const refused = (what: string) =>
  new AppError("ORIGIN_NOT_ALLOWED", `${what} is not one of this form's allowed origins`);

/**
 * Whether a page may send its visitors on to `target`: with allowed origins, only to them, whatever
 * the key (with keys in public pages, an open redirect would be anyone's); without, only to the
 * page's own origin (`Origin`, else `Referer`; `Origin: null` is no origin, so nothing matches it).
 * A request with neither header comes from no page (a server, curl): taken as given.
 */
function redirectAllowed(target: string, form: Form, { origin, referer }: SubmitterInfo): boolean {
  if (!isLocationUrl(target)) return false;
  if (form.allowedOrigins.length > 0) return form.allowedOrigins.includes(httpOrigin(target) ?? "");
  if (origin === null && referer === null) return true;
  const from = postOrigin(origin, referer);
  return from !== null && httpOrigin(target) === from;
}

/**
 * A form with allowed origins takes publishable-key submissions only from pages on those origins
 * (by `Origin`, or lacking it, by `Referer`); a form without any accepts all. A redirect target
 * that is not allowed (or no URL) never costs the visitor their message: it is dropped, and the
 * owner told (the form's warnings, the notification).
 */
export const allowedOriginCheck: SubmitCheck = {
  name: "allowed-origin",
  check(candidate) {
    const { form, caller, body, submitter } = candidate;
    if (form.allowedOrigins.length > 0 && caller.kind === "publishable") {
      const origin = postOrigin(submitter.origin, submitter.referer);
      if (!origin || !form.allowedOrigins.includes(origin)) {
        return refused(
          submitter.origin === null && submitter.referer === null
            ? "a page without Origin or Referer"
            : "the page's origin",
        );
      }
    }
    if (body.redirectUrl && !redirectAllowed(body.redirectUrl, form, submitter))
      droppedRedirectOf.set(candidate, body.redirectUrl);
    return "accept";
  },
};
