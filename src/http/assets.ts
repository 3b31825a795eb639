/** Cache lifetimes of static files: a year for names that change with their content, a day for fixed names. */
export const CACHE_FOREVER = "public, max-age=31536000, immutable";
export const CACHE_A_DAY = "public, max-age=86400";
export const JS = "text/javascript; charset=utf-8";
export const CSS = "text/css; charset=utf-8";

/** A route handler for a static file or text served from the binary (outside the API: no JSON, cacheable). */
export const asset =
  (body: () => Blob | string, type: string, cache = CACHE_FOREVER) =>
  (ctx: { set: { headers: Record<string, string | number> } }) => {
    ctx.set.headers["content-type"] = type;
    ctx.set.headers["cache-control"] = cache;
    return body();
  };

/**
 * The Content-Security-Policy of formsvc's own pages (/docs, /dashboard): everything from this server
 * only, no inline script or style (the renderers set styles through the DOM, which CSP allows), no
 * framing. `img-src data:` admits the images a page or its stylesheet carries inline (Swagger UI's
 * icons, the dashboard's tab icon); they never touch the network.
 */
export const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");
