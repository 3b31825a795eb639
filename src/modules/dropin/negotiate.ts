/** The quality `accept` gives `type` (`application/json`): its most specific matching range's, 0 when none matches. */
function quality(accept: string, type: string): number {
  const major = type.slice(0, type.indexOf("/"));
  let best = -1;
  let q = 0;
  for (const range of accept.split(",")) {
    const [media = "", ...params] = range.split(";");
    const name = media.trim().toLowerCase();
    const rank = name === type ? 2 : name === `${major}/*` ? 1 : name === "*/*" ? 0 : -1;
    if (rank <= best) continue;
    best = rank;
    const qParam = params.map((p) => p.trim().toLowerCase()).find((p) => p.startsWith("q="));
    const value = qParam ? Number(qParam.slice(2)) : 1;
    q = Number.isFinite(value) ? value : 0;
  }
  return q;
}

/**
 * Whether a drop-in post is answered with JSON rather than a page for a person (Formspree's rule):
 * `X-Requested-With: XMLHttpRequest`; or `Accept` ranks application/json above text/html; or the
 * body is JSON and `Accept` does not rank text/html above application/json. No `Accept` header accepts anything.
 */
export function wantsJson(headers: Headers): boolean {
  if (headers.get("x-requested-with")?.toLowerCase() === "xmlhttprequest") return true;
  const accept = headers.get("accept") ?? "*/*";
  const json = quality(accept, "application/json");
  const html = quality(accept, "text/html");
  if (json > html) return true;
  const type = headers.get("content-type")?.split(";")[0]!.trim().toLowerCase();
  return type === "application/json" && !(html > json);
}
