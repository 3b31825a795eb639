import type { ClientOrigin } from "../../lib/client-ip";
import type { Actor } from "../../lib/principal";
import { slot, type Slots } from "../../lib/slots";
import { uploadsOf, type Upload } from "../files/model";
import type { SubmitterInfo } from "./meta";
import type { SubmitBody } from "./model";
import { readIdempotencyKey } from "./read-body";

/** One submit as the pipeline takes it (service.ts `submit`), whichever route read it. */
export interface SubmitRequest {
  actor: Actor;
  body: SubmitBody;
  submitter: SubmitterInfo;
  idempotencyKey: string | null;
  /** The body was a form post (urlencoded, multipart): its values are all text, typed by the field rules. */
  formPost: boolean;
  /** A drop-in post: a valid `_replyto` is the extracted email, ahead of the usual rule (Wave 3). */
  senderFirst: boolean;
  /**
   * What the stages read beside the body (the uploads, the subject) and what they add as they go,
   * each under its own slot (lib/slots.ts); the candidate and the submission it becomes share it.
   */
  stages: Slots;
}

/** The page's `_subject` (drop-in posts), one line of at most 200 characters, for the owner's notification; `data._subject` keeps it as typed. */
export const subjectOf = slot<string>("subject");

/** What a submit route read of a request; or, from a caller without one (seeding, tests), its submitter as given. */
export type SubmitRead = {
  actor: Actor;
  body: SubmitBody;
  formPost?: boolean;
  senderFirst?: boolean;
  subject?: string;
  /** The files a multipart post carried, already in the store (files/service.ts `receive`). */
  uploads?: Upload[];
} & (
  | { headers: Headers; client: Pick<ClientOrigin, "ip" | "proxyCountry"> }
  | { submitter: SubmitterInfo; idempotencyKey?: string | null }
);

/**
 * The one place a submit request is made, by both submit routes (and callers that submit without
 * HTTP): the submitter's headers and address, and the Idempotency-Key (a malformed one is a 400).
 */
export function submitRequest(read: SubmitRead): SubmitRequest {
  const { actor, body, formPost = false, senderFirst = false, subject, uploads } = read;
  const request: SubmitRequest = {
    actor,
    body,
    submitter: "headers" in read ? submitterOf(read.headers, read.client) : read.submitter,
    idempotencyKey: "headers" in read ? readIdempotencyKey(read.headers) : (read.idempotencyKey ?? null),
    formPost,
    senderFirst,
    stages: {},
  };
  if (subject !== undefined) subjectOf.set(request, subject);
  if (uploads?.length) uploadsOf.set(request, uploads);
  return request;
}

const submitterOf = (headers: Headers, client: Pick<ClientOrigin, "ip" | "proxyCountry">): SubmitterInfo => ({
  userAgent: headers.get("user-agent"),
  acceptLanguage: headers.get("accept-language"),
  referer: headers.get("referer"),
  origin: headers.get("origin"),
  ip: client.ip,
  proxyCountry: client.proxyCountry,
});
