import { AppError } from "../lib/errors";
import type { BodyPace } from "./body-pace";

// Invalid UTF-8 is a 400, not U+FFFD read in place of what was sent. Stateless without `stream`, so shared.
const utf8 = new TextDecoder("utf-8", { fatal: true });

const tooLarge = (maxBytes: number) =>
  new AppError("PAYLOAD_TOO_LARGE", `request body is larger than ${maxBytes} bytes (FORMSVC_MAX_BODY_BYTES)`);

/**
 * A body the server could not read to its end: its chunked framing is broken, or the client closed
 * the connection before it ended. Bun throws for both (with no message); that is the request's fault, a 400.
 */
export const unreadableBody = () =>
  new AppError(
    "INVALID_BODY",
    "the request body could not be read: its framing is broken, or the connection closed before it ended",
  );

/**
 * Reads at most `maxBytes` of a request body; a longer one is a 413 however it is framed: refused
 * unread when its Content-Length says so, else counted as it streams and refused as soon as the count
 * passes, so no more than `maxBytes` is ever held. The pace ends a body that comes too slowly (408).
 * The one body reader of the server: every route's body passes here, and only once its caller has been checked.
 */
export async function readCapped(request: Request, maxBytes: number, pace: BodyPace): Promise<Uint8Array> {
  const declared = request.headers.get("content-length");
  if (declared !== null) {
    const length = Number(declared);
    if (length > maxBytes) throw tooLarge(maxBytes);
    // Bun reads no more than the declared length, so a short body that says its length is read in one go.
    if (pace.fitsOneWindow(length)) {
      let bytes: Uint8Array;
      try {
        bytes = new Uint8Array(await pace.whole(request));
      } catch (e) {
        throw e instanceof AppError ? e : unreadableBody();
      }
      if (bytes.byteLength > maxBytes) throw tooLarge(maxBytes);
      return bytes;
    }
  }
  const chunks: Uint8Array[] = [];
  await countChunks(request, maxBytes, pace, (chunk) => chunks.push(chunk));
  return Buffer.concat(chunks);
}

/** Hands each chunk of a body to `take`, and throws 413 once they pass `maxBytes`. */
async function countChunks(
  request: Request,
  maxBytes: number,
  pace: BodyPace,
  take: (chunk: Uint8Array) => void,
): Promise<void> {
  if (!request.body) return;
  let size = 0;
  try {
    for await (const chunk of pace.chunks(request)) {
      size += chunk.byteLength;
      if (size > maxBytes) throw tooLarge(maxBytes);
      take(chunk);
    }
  } catch (e) {
    throw e instanceof AppError ? e : unreadableBody();
  }
}

/** Whether a Content-Type header names JSON (`application/json`, parameters such as charset allowed). */
const isJson = (contentType: string | null) => contentType?.split(";")[0]!.trim().toLowerCase() === "application/json";

/**
 * The JSON object a management route takes: 415 for another Content-Type (before a byte is read),
 * 413 over `maxBytes`, 400 for a body that is empty, not UTF-8, not JSON, or JSON but not an object
 * (`false`, `0`, `""`, `[]`, `null` are never read as `{}`). The route's schema checks its fields next.
 */
export async function readJsonObject(
  request: Request,
  maxBytes: number,
  pace: BodyPace,
): Promise<Record<string, unknown>> {
  if (!isJson(request.headers.get("content-type"))) {
    throw new AppError(
      "UNSUPPORTED_MEDIA_TYPE",
      "Content-Type must be application/json: this endpoint takes a JSON object",
    );
  }
  const bytes = await readCapped(request, maxBytes, pace);
  if (bytes.byteLength === 0)
    throw new AppError("INVALID_BODY", "request body is empty: send a JSON object ({} where nothing is required)");
  let parsed: unknown;
  try {
    parsed = JSON.parse(utf8.decode(bytes));
  } catch {
    throw new AppError("INVALID_BODY", "request body is not valid JSON");
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    const what = parsed === null ? "null" : Array.isArray(parsed) ? "an array" : `a ${typeof parsed}`;
    throw new AppError("INVALID_BODY", `request body must be a JSON object, not ${what}`);
  }
  checkShape(parsed);
  return parsed as Record<string, unknown>;
}

/** How deep a JSON body may nest: deeper than any documented body (a form's fields' options are 4 levels down), and a submission's data. */
export const MAX_DEPTH = 32;

/**
 * Refuses what the route's schema check cannot describe: when a value fails a schema, Elysia writes
 * it into its error as text, which recurses once per level of nesting (a deep enough array
 * overflows the stack) and calls an object's own `toString` (JSON can make it a number). No
 * documented object has a member of that name, and none nests past a few levels: both are a 400
 * here, before the schema runs.
 */
function checkShape(body: object): void {
  const pending: [unknown, number, string][] = [[body, 1, ""]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [value, depth, path] = next;
    if (typeof value !== "object" || value === null) continue;
    if (depth > MAX_DEPTH)
      throw new AppError("INVALID_BODY", `request body is nested more than ${MAX_DEPTH} levels deep`);
    if (Array.isArray(value)) value.forEach((v, i) => pending.push([v, depth + 1, `${path}[${i}]`]));
    else
      for (const [key, v] of Object.entries(value)) {
        const at = path ? `${path}.${key}` : key;
        if (key === "toString")
          throw new AppError("INVALID_BODY", `${at}: this endpoint takes no field named toString`);
        pending.push([v, depth + 1, at]);
      }
  }
}

/** Reads a body a route does not take, only to refuse one over `maxBytes` (413); what fits is dropped as it comes. */
export async function discardBody(request: Request, maxBytes: number, pace: BodyPace): Promise<void> {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > maxBytes) throw tooLarge(maxBytes);
  await countChunks(request, maxBytes, pace, () => {});
}
