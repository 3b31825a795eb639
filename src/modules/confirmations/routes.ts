import { Elysia, t } from "elysia";
import { locationUrl } from "../../lib/location-url";
import { escapeHtml } from "../../lib/template";
import type { ConfirmationsService } from "./service";

/** A small page for people: no script, no external asset, readable on a phone. */
function page(title: string, message: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<style>body{font-family:system-ui,sans-serif;margin:0;min-height:100vh;display:grid;place-items:center;background:#f6f7f9;color:#1d2430}main{max-width:32rem;margin:1rem;padding:2rem;background:#fff;border-radius:12px;box-shadow:0 1px 4px #0002}h1{font-size:1.4rem;margin:0 0 .75rem}p{line-height:1.5;margin:0}</style>
</head><body><main><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p></main></body></html>
`;
}

/**
 * GET /confirm/{token}: the link of a waitlist confirmation email, outside /api/v1 (it is for people).
 * Answers an HTML page, or 303 to the form's confirmRedirectUrl; an unknown or expired link is a
 * 404 page. Opening it again changes nothing and still answers kindly.
 */
export function confirmationRoutes(confirmations: ConfirmationsService) {
  return new Elysia({ name: "confirmation-routes" }).get(
    "/confirm/:token",
    async ({ params, set }) => {
      const result = await confirmations.confirm(params.token);
      // The token is in the URL: never sent on as a Referer, never kept by a cache.
      set.headers["referrer-policy"] = "no-referrer";
      // Checked when it was set; one set before that check was as strict is no Location: the page instead.
      const redirect = result.outcome !== "unknown" && result.redirectUrl ? locationUrl(result.redirectUrl) : null;
      if (redirect) {
        set.status = 303;
        set.headers.location = redirect;
        return "";
      }
      set.headers["content-type"] = "text/html; charset=utf-8";
      set.headers["content-security-policy"] = "default-src 'none'; style-src 'unsafe-inline'";
      if (result.outcome === "unknown") {
        set.status = 404;
        return page(
          "Link not found",
          "This confirmation link is unknown or has expired (links work for 7 days). Sign up again to get a new one.",
        );
      }
      if (result.recipient)
        return page("You're confirmed", `You will receive the submissions of ${result.formName} from now on.`);
      return result.outcome === "confirmed"
        ? page("You're confirmed", `Thank you: your place on ${result.formName} is confirmed.`)
        : page(
            "Already confirmed",
            `Your place on ${result.formName} was confirmed already; there is nothing more to do.`,
          );
    },
    { params: t.Object({ token: t.String() }), detail: { hide: true } },
  );
}
