/**
 * CORS for the public endpoints only (submit and challenge): a web page on another origin posts
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

/** Headers of the answer to a preflight (OPTIONS with Access-Control-Request-Method), which needs no key. */
export function preflightHeaders(request: Request, methods: string[]): Record<string, string> {
  const origin = request.headers.get("origin");
  if (!origin) return {};
  return {
    "access-control-allow-origin": origin,
    "access-control-allow-methods": methods.join(", "),
    "access-control-allow-headers": "Content-Type, X-API-Key, Idempotency-Key",
    "access-control-max-age": "86400",
    vary: "Origin",
  };
}
