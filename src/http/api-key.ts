/** The token of an `Authorization: Bearer <token>` header, or null; an empty token counts as absent. */
export function bearerToken(header: string | null): string | null {
  if (!header || !/^bearer\s+/i.test(header)) return null;
  return header.replace(/^bearer\s+/i, "").trim() || null;
}

/**
 * The API key of a request: the X-API-Key header, else the `apiKey` query parameter,
 * else `Authorization: Bearer`. Empty values count as absent.
 */
export function readApiKey(request: Request): string | null {
  const header = request.headers.get("x-api-key")?.trim();
  if (header) return header;
  const url = request.url;
  const query = url.indexOf("?");
  if (query >= 0 && url.includes("apiKey=", query)) {
    // The query alone: a request's URL may not parse as a whole (front.ts `pathOf`).
    const fromQuery = new URLSearchParams(url.slice(query + 1)).get("apiKey")?.trim();
    if (fromQuery) return fromQuery;
  }
  return bearerToken(request.headers.get("authorization"));
}
