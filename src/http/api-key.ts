/**
 * The API key of a request: the X-API-Key header, else the `apiKey` query parameter,
 * else `Authorization: Bearer`. Empty values count as absent.
 */
export function readApiKey(request: Request): string | null {
  const header = request.headers.get("x-api-key")?.trim();
  if (header) return header;
  const url = request.url;
  if (url.includes("apiKey=")) {
    const fromQuery = new URL(url).searchParams.get("apiKey")?.trim();
    if (fromQuery) return fromQuery;
  }
  const auth = request.headers.get("authorization");
  if (auth && /^bearer\s+/i.test(auth)) {
    const token = auth.replace(/^bearer\s+/i, "").trim();
    if (token) return token;
  }
  return null;
}
