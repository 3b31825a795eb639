/**
 * CORS for the public endpoints only (submit, challenge, and the drop-in POST /f/{formId}): a web page on another origin posts
 * there with a publishable key. Every other endpoint sends no CORS header: it is for servers and
 * the same-origin dashboard. Which origins may submit is the form's `allowedOrigins`, checked by
 * the submit pipeline; a refusal for that reason carries no CORS header (front.ts).
 */
const EXPOSED = "X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, X-Request-Id";

/** Headers of an actual answer to a request from another origin: the page's script may read it, and the rate-limit headers. */
export function corsHeaders(request: Request): Record<string, string> {
  const origin = request.headers.get("origin");
  if (!origin) return {};
  return { "access-control-allow-origin": origin, "access-control-expose-headers": EXPOSED, vary: "Origin" };
}

const ALLOW_HEADERS = "Content-Type, X-API-Key, Idempotency-Key";
// What Formspree's client libraries send to /f/ (their values are ignored): they work unchanged against formsvc.
const DROP_IN_ALLOW_HEADERS = `${ALLOW_HEADERS}, Accept, X-Requested-With, Formspree-Client, Formspree-Session-Data`;

/** Headers of the answer to a preflight (OPTIONS with Access-Control-Request-Method), which needs no key; `dropIn` for /f/. */
export function preflightHeaders(request: Request, methods: string[], dropIn = false): Record<string, string> {
  const origin = request.headers.get("origin");
  if (!origin) return {};
  return {
    "access-control-allow-origin": origin,
    "access-control-allow-methods": methods.join(", "),
    "access-control-allow-headers": dropIn ? DROP_IN_ALLOW_HEADERS : ALLOW_HEADERS,
    "access-control-max-age": "86400",
    vary: "Origin",
  };
}
