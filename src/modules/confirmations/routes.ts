import { Elysia, t, type Context } from "elysia";
import { discardBody } from "../../http/body";
import { requestContext } from "../../http/context";
import { locationUrl } from "../../lib/location-url";
import { escapeHtml } from "../../lib/template";
import type { ConfirmationsService, OpenResult } from "./service";

/** A small page for people: no script, no external asset, readable on a phone; `button`, a form that POSTs to the page's own URL. */
function page(title: string, message: string, button?: string): string {
  const form = button ? `<form method="post"><button type="submit">${escapeHtml(button)}</button></form>` : "";
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<style>body{font-family:system-ui,sans-serif;margin:0;min-height:100vh;display:grid;place-items:center;background:#f6f7f9;color:#1d2430}main{max-width:32rem;margin:1rem;padding:2rem;background:#fff;border-radius:12px;box-shadow:0 1px 4px #0002}h1{font-size:1.4rem;margin:0 0 .75rem}p{line-height:1.5;margin:0}form{margin:1.25rem 0 0}button{font:inherit;font-weight:600;padding:.7rem 1.2rem;min-height:2.75rem;border:0;border-radius:8px;background:#2856d8;color:#fff;cursor:pointer}button:focus-visible{outline:3px solid #2856d8;outline-offset:2px}@media (prefers-color-scheme:dark){body{background:#11151c;color:#e6e9ef}main{background:#1b2029;box-shadow:none}}</style>
</head><body><main><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p>${form}</main></body></html>
`;
}

const NOT_FOUND = page(
  "Link not found",
  "This confirmation link is unknown or has expired (links work for 7 days). Sign up again to get a new one.",
);

/** The page for what opening or confirming a link came to: an HTML page, or 303 to the form's confirmRedirectUrl. */
function answer(result: OpenResult, set: Context["set"]): string {
  // The token is in the URL: never sent on as a Referer, never kept by a cache.
  set.headers["referrer-policy"] = "no-referrer";
  // Checked when it was set; one set before that check was as strict is no Location: the page instead.
  const redirect = "redirectUrl" in result && result.redirectUrl ? locationUrl(result.redirectUrl) : null;
  if (redirect) {
    set.status = 303;
    set.headers.location = redirect;
    return "";
  }
  set.headers["content-type"] = "text/html; charset=utf-8";
  set.headers["content-security-policy"] = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'";
  switch (result.outcome) {
    case "unknown":
      set.status = 404;
      return NOT_FOUND;
    case "pending":
      return page(
        "Confirm your address",
        `Do you want to receive the submissions of ${result.formName} by email? Nothing is sent to you until you confirm.`,
        "Yes, send them to me",
      );
    case "confirmed":
    case "already":
      if (result.recipient)
        return page("You're confirmed", `You will receive the submissions of ${result.formName} from now on.`);
      return result.outcome === "confirmed"
        ? page("You're confirmed", `Thank you: your place on ${result.formName} is confirmed.`)
        : page(
            "Already confirmed",
            `Your place on ${result.formName} was confirmed already; there is nothing more to do.`,
          );
  }
}

/**
 * The link of a confirmation email, outside /api/v1 (it is for people). GET of a waitlist's link
 * (double opt-in) confirms, as it always has; GET of a recipient's link shows a page whose one
 * button POSTs to the same URL, and only that confirms, since mail scanners open every link. A HEAD
 * (a scanner, a preview) changes nothing. An unknown or expired link is a 404 page; a link opened
 * again changes nothing and still answers kindly.
 */
export function confirmationRoutes(confirmations: ConfirmationsService) {
  const params = t.Object({ token: t.String() });
  return new Elysia({ name: "confirmation-routes" })
    .use(requestContext)
    .get(
      "/confirm/:token",
      async ({ params, request, set }) =>
        // Bun answers HEAD with this handler, without the body.
        answer(await confirmations.open(params.token, request.method === "HEAD"), set),
      { params, detail: { hide: true } },
    )
    .post(
      "/confirm/:token",
      async ({ params, set, request, maxBodyBytes, bodyPace }) => {
        // The button sends nothing; a body is still read through the one reader (413 over the limit, paced).
        await discardBody(request, maxBodyBytes, bodyPace);
        return answer(await confirmations.confirm(params.token), set);
      },
      { params, parse: "none", detail: { hide: true } },
    );
}
