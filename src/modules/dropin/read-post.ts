import { readCapped } from "../../http/body";
import type { BodyPace } from "../../http/body-pace";
import { AppError } from "../../lib/errors";
import { SentFields } from "../../lib/sent-fields";
import type { Form } from "../forms/model";
import { CHALLENGE_FIELDS, type SubmitBody } from "../submissions/model";
import { checkBody, readFormFields } from "../submissions/read-body";

/** The fields of a drop-in post as sent (a repeated name as an array), and whether its body was JSON. */
export interface DropInFields {
  fields: Map<string, unknown>;
  isJson: boolean;
}

/** A drop-in post made into a submit: the body the pipeline checks, its `_subject` as one line, and the values a person sent (to show again). */
export interface DropInPost {
  body: SubmitBody;
  subject?: string;
  values: Record<string, unknown>;
  formPost: boolean;
}

// Invalid UTF-8 is a 400, not U+FFFD stored in place of what was sent. Stateless without `stream`, so shared.
const utf8 = new TextDecoder("utf-8", { fatal: true });
const invalid = (message: string) => new AppError("INVALID_BODY", message);

/** `topics[]` is `topics`: PHP-style list names, as Formspree stores them. */
export const dropInFieldName = (sent: string) => (sent.endsWith("[]") ? sent.slice(0, -2) : sent);
const fieldName = dropInFieldName;

/** The resume token a hosted page's post carries when it finishes a saved answer (partials.ts): a control field of a form that saves. */
export const PARTIAL_FIELD = "_partial";
/** Control fields: what a page tells the endpoint, never stored as data (`_subject` and `_replyto` are: a visitor may type them). */
const NEXT = ["_next", "redirectUrl"];
const DROPPED = ["_cc", "_gotcha"];
/** Other services' honeypot names, honoured while the form's honeypot is the default `_gotcha`. */
const HONEYPOT_ALIASES = ["_gotcha", "_honey", "bot-field", "botcheck"];

function jsonFields(bytes: Uint8Array): Map<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(utf8.decode(bytes));
  } catch {
    throw invalid("request body is not valid JSON");
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
    throw invalid("a JSON body must be an object whose keys are the form's fields");
  const fields = new SentFields();
  for (const [sent, value] of Object.entries(parsed)) {
    const name = fieldName(sent);
    if (name === "") throw invalid("a field has an empty name: every form field needs a name");
    fields.add(name, value);
  }
  return fields.fields;
}

/** The fields of a drop-in post: urlencoded or a flat JSON object (multipart is read as it streams, by the files service); 415 for another type, 413 over `maxBytes`, 400 when malformed. */
export async function readDropInFields(request: Request, maxBytes: number, pace: BodyPace): Promise<DropInFields> {
  const contentType = request.headers.get("content-type") ?? "";
  const type = contentType.split(";")[0]!.trim().toLowerCase();
  const isJson = type === "application/json";
  if (!isJson && type !== "application/x-www-form-urlencoded") {
    throw new AppError(
      "UNSUPPORTED_MEDIA_TYPE",
      "Content-Type must be application/x-www-form-urlencoded, multipart/form-data or application/json",
    );
  }
  const bytes = await readCapped(request, maxBytes, pace);
  return {
    fields: isJson ? jsonFields(bytes) : await readFormFields(bytes, contentType, fieldName),
    isJson,
  };
}

const last = (value: unknown): unknown => (Array.isArray(value) ? value[value.length - 1] : value);

/**
 * Where the page asks its visitor to be sent (`_next`, or `redirectUrl`), a relative URL resolved
 * against the `Referer`; undefined for none. Whether it is a URL the visitor may be sent to is the
 * pipeline's allowed-origin check, which drops it (the post stored) when not.
 */
function nextUrl(sent: unknown, referer: string | null): string | undefined {
  if (sent === undefined || sent === "") return undefined;
  if (typeof sent !== "string") throw invalid("_next must be a URL");
  return URL.parse(sent, referer ?? undefined)?.href ?? sent;
}

/**
 * A drop-in post as a submit of `form`: control fields taken out (`_next`, `_cc`, the honeypots, the
 * challenge answers), the rest as `data`; `_subject` stays as sent and also becomes the notification's
 * subject, `_replyto` stays as sent (the extracted email reads it first). 400 EMPTY when nothing but
 * control fields was sent.
 */
export function dropInPost(form: Form, { fields, isJson }: DropInFields, referer: string | null): DropInPost {
  const data = new Map(fields);
  const body: Record<string, unknown> = { formId: form.id };
  let next: unknown;
  for (const name of NEXT) if (data.has(name)) next = last(data.get(name));
  const sent = last(data.get("_subject"));
  const subject = typeof sent === "string" && sent !== "" ? sent.replace(/[\r\n]+/g, " ").slice(0, 200) : undefined;
  // The honeypot check reads the form's honeypot field; with the default one, any alias filled is that field filled.
  const honeypot =
    form.honeypotField === "_gotcha" ? HONEYPOT_ALIASES.filter((n) => data.has(n)).map((n) => data.get(n)) : [];
  const saving = form.partialSubmissions ? [PARTIAL_FIELD] : [];
  for (const name of [...NEXT, ...DROPPED, ...saving, ...(form.honeypotField === "_gotcha" ? HONEYPOT_ALIASES : [])])
    data.delete(name);
  for (const [name, field] of CHALLENGE_FIELDS) {
    if (!data.has(name)) continue;
    body[field] = last(data.get(name));
    data.delete(name);
  }
  if (data.size === 0 || (form.honeypotField !== null && data.size === 1 && data.has(form.honeypotField)))
    throw new AppError("EMPTY", "the form was sent without any field filled in");
  const values = Object.fromEntries(data);
  const redirectUrl = nextUrl(next, referer);
  if (redirectUrl !== undefined) body.redirectUrl = redirectUrl;
  body.data = honeypot.length ? { ...values, _gotcha: honeypot } : values;
  return { body: checkBody(body), ...(subject !== undefined ? { subject } : {}), values, formPost: !isJson };
}
