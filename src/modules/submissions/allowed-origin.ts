import { AppError } from "../../lib/errors";
import { httpOrigin } from "../../lib/origin";
import type { SubmitterInfo } from "./meta";
import type { SubmitCheck, Verdict } from "./pipeline";

const refused = (what: string) =>
  new AppError("ORIGIN_NOT_ALLOWED", `${what} is not one of this form's allowed origins`);

/**
 * Without allowed origins, a page may send its visitors back only to its own origin (`Origin`, else
 * `Referer`; `Origin: null` is no origin, so nothing matches it): else any page could use the form as
 * an open redirect. A request with neither header comes from no page (a server, curl): taken as given.
 */
function ownOriginRedirect(target: string, { origin, referer }: SubmitterInfo): Verdict {
  if (origin === null && referer === null) return "accept";
  const from = origin !== null ? httpOrigin(origin) : httpOrigin(referer);
  if (from !== null && httpOrigin(target) === from) return "accept";
  return new AppError(
    "REDIRECT_NOT_ALLOWED",
    "the redirect target is not on the origin of the page that sent the form; set the form's allowedOrigins to redirect elsewhere",
  );
}

/**
 * A form with allowed origins takes publishable-key submissions only from pages on those origins
 * (by `Origin`, or lacking it, by `Referer`), and redirects only to them, whatever the key: with
 * keys in public pages, an open redirect would be anyone's. A form without any accepts all.
 */
export const allowedOriginCheck: SubmitCheck = {
  name: "allowed-origin",
  check({ form, caller, body, submitter }) {
    if (form.allowedOrigins.length === 0)
      return body.redirectUrl === undefined ? "accept" : ownOriginRedirect(body.redirectUrl, submitter);
    if (caller.kind === "publishable") {
      // `Origin: null` (a sandboxed or file: page) is an origin, and not an allowed one.
      const origin = submitter.origin !== null ? httpOrigin(submitter.origin) : httpOrigin(submitter.referer);
      if (!origin || !form.allowedOrigins.includes(origin)) {
        return refused(
          submitter.origin === null && submitter.referer === null
            ? "a page without Origin or Referer"
            : "the page's origin",
        );
      }
    }
    if (body.redirectUrl !== undefined) {
      const target = httpOrigin(body.redirectUrl);
      if (!target || !form.allowedOrigins.includes(target)) return refused("redirectUrl's origin");
    }
    return "accept";
  },
};
