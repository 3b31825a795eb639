import { TypeCompiler } from "@sinclair/typebox/compiler";
import { ValueErrorType, type ValueError } from "@sinclair/typebox/errors";
import { MAX_DEPTH, readCapped } from "../../http/body";
import type { BodyPace } from "../../http/body-pace";
import { AppError } from "../../lib/errors";
import { MAX_FIELDS, SentFields, tooManyFields } from "../../lib/sent-fields";
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
    case "redirectUrl":
      return `redirectUrl must be a string of at most ${MAX_REDIRECT_URL_LENGTH} characters (an absolute http(s) URL)`;
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
  // Counted before anything walks them: every later step (rules, filter, storage) is linear in the fields.
  let fields = 0;
  for (const _ in raw.data) if (++fields > MAX_FIELDS) throw tooManyFields();
  const problem = dataProblem(raw.data, MAX_DEPTH);
  if (problem) throw invalid(problem);
  if (Object.hasOwn(raw.data, "")) throw invalid(EMPTY_NAME);
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

/** How many fields an urlencoded body names: its non-empty `&`-separated pairs, as a parser reads them. */
function pairsIn(bytes: Uint8Array): number {
  let pairs = 0;
  let empty = true;
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] !== 0x26) empty = false;
    else if (!empty) {
      pairs++;
      empty = true;
    }
  }
  return empty ? pairs : pairs + 1;
}

/**
 * An urlencoded form post's fields in the order sent (SentFields: a repeated name keeps every value,
 * at most MAX_FIELDS); `name` maps each sent name to the one stored (the drop-in endpoint drops a
 * trailing `[]`). A field with an empty name is a 400. Multipart bodies are read as they stream, by
 * the files service.
 */
export async function readFormFields(
  bytes: Uint8Array,
  contentType: string,
  name: (sent: string) => string = (sent) => sent,
): Promise<Map<string, unknown>> {
  // Counted before the parse: refusing 34,000 names costs a scan of the bytes, not a FormData of them.
  if (pairsIn(bytes) > MAX_FIELDS) throw tooManyFields();
  let form: FormData;
  try {
    form = await new Response(new Blob([bytes as Uint8Array<ArrayBuffer>]), {
      headers: { "content-type": contentType },
    }).formData();
  } catch {
    throw invalid("form body could not be parsed");
  }
  const sent = new SentFields();
  for (const [field, value] of form.entries()) {
    const key = name(field);
    if (key === "") throw invalid(EMPTY_NAME);
    sent.add(key, value);
  }
  return sent.fields;
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

/** The submit body from JSON or urlencoded; 415 for any other type, 413 over the limit, 400 when malformed. */
export async function readSubmitBody(request: Request, maxBytes: number, pace: BodyPace): Promise<ReadBody> {
  const contentType = request.headers.get("content-type") ?? "";
  const type = contentType.split(";")[0]!.trim().toLowerCase();
  // multipart/form-data is read as it streams (files/service.ts), never here.
  const kind = type === "application/json" ? "json" : type === "application/x-www-form-urlencoded" ? "form" : null;
  if (!kind) {
    throw new AppError(
      "UNSUPPORTED_MEDIA_TYPE",
      "Content-Type must be application/json, application/x-www-form-urlencoded or multipart/form-data",
    );
  }
  const bytes = await readCapped(request, maxBytes, pace);
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
