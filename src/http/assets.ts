/** Cache lifetimes of static files: a year for names that change with their content, a day for fixed names. */
export const CACHE_FOREVER = "public, max-age=31536000, immutable";
export const CACHE_A_DAY = "public, max-age=86400";
export const JS = "text/javascript; charset=utf-8";
export const CSS = "text/css; charset=utf-8";

/** A route handler for a static file or text served from the binary (outside the API: no JSON, cacheable). */
export const asset = (body: () => Blob | string, type: string, cache = CACHE_FOREVER) => (ctx: { set: { headers: Record<string, string | number> } }) => {
  ctx.set.headers["content-type"] = type;
  ctx.set.headers["cache-control"] = cache;
  return body();
};
