import { TypeCompiler } from "@sinclair/typebox/compiler";
import { ValueErrorType, type ValueError } from "@sinclair/typebox/errors";
import { MAX_DEPTH, readCapped } from "../../http/body";
import { AppError } from "../../lib/errors";
import { isLocationUrl } from "../../lib/location-url";
import {
  CHALLENGE_FIELDS,
  IdempotencyKeySchema,
  MAX_FORM_ID_LENGTH,
  MAX_REDIRECT_URL_LENGTH,
  SubmitBodySchema,
  type SubmitBody,
} from "./model";

// Compiled once at load: every body is checked against the schema the OpenAPI document shows.
const submitBody = TypeCompiler.Compile(SubmitBodySchema);
const idempotencyKey = TypeCompiler.Compile(IdempotencyKeySchema);
// Invalid UTF-8 is a 400, not U+FFFD stored in place of what was sent. Stateless without `stream`, so shared.
const utf8 = new TextDecoder("utf-8", { fatal: true });

export interface ReadBody {
  body: SubmitBody;
  /** A browser form post (urlencoded or multipart): answered with 303 when it names a redirectUrl. */
  isFormPost: boolean;
}

const invalid = (message: string) => new AppError("INVALID_BODY", message);
const EMPTY_NAME = "a field has an empty name: every form field needs a name";

/** Why `data` cannot be stored as sent, or null: nesting past `limit` levels, or a number out of range (`1e400` parses to Infinity and would be stored as null). */
function dataProblem(value: unknown, limit: number): string | null {
  if (typeof value === "number")
    return Number.isFinite(value) ? null : "data holds a number too large to store; send it as a string";
  if (value === null || typeof value !== "object") return null;
  if (limit === 0) return `data is nested deeper than ${MAX_DEPTH} levels`;
  for (const v of Object.values(value)) {
    const problem = dataProblem(v, limit - 1);
    if (problem) return problem;
  }
  return null;
}

/** A schema error told as a sentence about the field it concerns. */
function schemaMessage(error: ValueError): string {
  // TypeBox paths are JSON pointers: "/formId", or "/<key>" for a field the body must not hold.
  const field = error.path.slice(1).replaceAll("~1", "/").replaceAll("~0", "~");
  if (error.type === ValueErrorType.ObjectAdditionalProperties) {
    return `unknown field "${field.slice(0, 64)}": the body holds formId, data and optionally redirectUrl, altcha or captchaToken; form fields go in data`;
  }
  switch (field.split("/")[0]) {
    case "":
      return "request body must be a JSON object with formId and data";
    case "formId":
      return error.type === ValueErrorType.StringMaxLength
        ? `formId must be at most ${MAX_FORM_ID_LENGTH} characters`
        : "formId is required and must be a non-empty string";
    case "data":
      return "data is required and must be a JSON object";
    case "altcha":
    case "captchaToken":
      return `${field} must be the text the challenge widget gives, at most ${error.schema.maxLength ?? ""} characters`;
    case "redirectUrl": {
      const url = error.value;
      if (typeof url !== "string" || error.type === ValueErrorType.StringMaxLength)
        return `redirectUrl must be an absolute http(s) URL of at most ${MAX_REDIRECT_URL_LENGTH} characters`;
      if (!/^https?:\/\//i.test(url)) return "redirectUrl must start with http:// or https://";
      if (/[\s\u0000-\u001f\u007f]/.test(url)) return "redirectUrl must not contain spaces or control characters";
      return "redirectUrl must be an absolute http(s) URL";
    }
    default:
      return `${error.path}: ${error.message}`;
  }
}

/** The body if it matches SubmitBodySchema and its data can be stored as sent; else a 400 that says which field is wrong. */
export function checkBody(raw: unknown): SubmitBody {
  if (!submitBody.Check(raw)) {
    const errors = [...submitBody.Errors(raw)];
    // A stray field comes first: it is most often a form field meant for data, which explains the rest.
    throw invalid(
      schemaMessage(errors.find((e) => e.type === ValueErrorType.ObjectAdditionalProperties) ?? errors[0]!),
    );
  }
  const problem = dataProblem(raw.data, MAX_DEPTH);
  if (problem) throw invalid(problem);
  if (Object.hasOwn(raw.data, "")) throw invalid(EMPTY_NAME);
  if (raw.redirectUrl !== undefined && !isLocationUrl(raw.redirectUrl)) {
    throw invalid(
      "redirectUrl must be an absolute http(s) URL whose host is a host name (letters, digits, hyphens, dots) or an IP address, without user:password@",
    );
  }
  return raw;
}

/** A JSON submit body from its bytes: strict UTF-8, valid JSON, then checkBody. */
export function parseJsonBody(bytes: Uint8Array): SubmitBody {
  let parsed: unknown;
  try {
    parsed = JSON.parse(utf8.decode(bytes));
  } catch {
    throw invalid("request body is not valid JSON");
  }
  return checkBody(parsed);
}

/**
 * Whether a multipart body has a part with no name or an empty one: the FormData parser drops such
 * a part without a word, and a field sent must be stored or refused, never lost.
 */
function hasNamelessPart(bytes: Uint8Array, contentType: string): boolean {
  const boundary = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  if (!boundary) return false; // no parts to read: formData() refuses the body
  // latin1 maps each byte to one character, so the headers are read as sent whatever the values hold.
  const text = `\r\n${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1")}`;
  const parts = text.split(`\r\n--${boundary[1] ?? boundary[2]}`).slice(1);
  for (const part of parts) {
    if (part.startsWith("--")) break; // the closing delimiter
    const start = part.indexOf("\r\n") + 2;
    const headers = part.slice(start, Math.max(start, part.indexOf("\r\n\r\n", start)));
    const disposition = /^content-disposition:([^\r\n]*)/im.exec(headers)?.[1] ?? "";
    const name = /;\s*name\s*=\s*(?:"([^"]*)"|([^;\s]*))/i.exec(disposition);
    if (!name || (name[1] ?? name[2]) === "") return true;
  }
  return false;
}

/**
 * A form post's fields in the order sent, a repeated name (checkboxes, multi-selects) keeping every
 * value; `name` maps each sent name to the one stored (the drop-in endpoint drops a trailing `[]`).
 * A Map, not an object: names are data, and `__proto__` or `constructor` must not reach
 * Object.prototype. A field with an empty name or a file is a 400.
 */
export async function readFormFields(
  bytes: Uint8Array,
  contentType: string,
  name: (sent: string) => string = (sent) => sent,
): Promise<Map<string, string | string[]>> {
  let form: FormData;
  try {
    form = await new Response(new Blob([bytes as Uint8Array<ArrayBuffer>]), {
      headers: { "content-type": contentType },
    }).formData();
  } catch {
    throw invalid("form body could not be parsed");
  }
  if (contentType.toLowerCase().startsWith("multipart/") && hasNamelessPart(bytes, contentType))
    throw invalid(EMPTY_NAME);
  const fields = new Map<string, string | string[]>();
  for (const [sent, value] of form.entries()) {
    if (typeof value !== "string")
      throw invalid(`field "${sent.slice(0, 64)}" is a file; file uploads are not accepted`);
    const key = name(sent);
    if (key === "") throw invalid(EMPTY_NAME);
    const previous = fields.get(key);
    fields.set(
      key,
      previous === undefined ? value : Array.isArray(previous) ? [...previous, value] : [previous, value],
    );
  }
  return fields;
}

async function parseForm(bytes: Uint8Array, contentType: string): Promise<SubmitBody> {
  return formBody(await readFormFields(bytes, contentType));
}

/** A form post's fields as the submit body: formId, redirectUrl and the challenge answers taken out, the rest as `data`. */
export function formBody(data: Map<string, unknown>): SubmitBody {
  const fields: Record<string, unknown> = {};
  for (const name of ["formId", "redirectUrl", ...CHALLENGE_FIELDS.keys()]) {
    const sent = data.get(name);
    if (sent === undefined) continue;
    data.delete(name);
    // One value each: the last one sent, as a form post's readers take it.
    const value = Array.isArray(sent) ? sent[sent.length - 1]! : sent;
    // An empty hidden redirect field means "no redirect", as a browser would send it.
    if (name === "redirectUrl" && value === "") continue;
    fields[CHALLENGE_FIELDS.get(name) ?? name] = value;
  }
  // fromEntries defines each name as the object's own property, `__proto__` included.
  return checkBody({ ...fields, data: Object.fromEntries(data) });
}

/** Whether a request's body is `multipart/form-data`: the one kind that may carry files (files/service.ts reads it as it streams). */
export const isMultipart = (request: Request) =>
  (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase() === "multipart/form-data";

/** The submit body from JSON, urlencoded or multipart; 415 for any other type, 413 over the limit, 400 when malformed. */
export async function readSubmitBody(request: Request, maxBytes: number): Promise<ReadBody> {
  const contentType = request.headers.get("content-type") ?? "";
  const type = contentType.split(";")[0]!.trim().toLowerCase();
  const kind =
    type === "application/json"
      ? "json"
      : type === "application/x-www-form-urlencoded" || type === "multipart/form-data"
        ? "form"
        : null;
  if (!kind) {
    throw new AppError(
      "UNSUPPORTED_MEDIA_TYPE",
      "Content-Type must be application/json, application/x-www-form-urlencoded or multipart/form-data",
    );
  }
  const bytes = await readCapped(request, maxBytes);
  return kind === "json"
    ? { body: parseJsonBody(bytes), isFormPost: false }
    : { body: await parseForm(bytes, contentType), isFormPost: true };
}

/** The Idempotency-Key header, if any: 1 to 255 printable ASCII characters. */
export function readIdempotencyKey(headers: Headers): string | null {
  const value = headers.get("idempotency-key");
  if (value === null) return null;
  const key = value.trim();
  if (!idempotencyKey.Check(key))
    throw new AppError("INVALID_PARAMETER", "Idempotency-Key must be 1 to 255 printable ASCII characters");
  return key;
}
