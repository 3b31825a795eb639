import { Elysia, t } from "elysia";
import { noBody, requestContext, secret } from "../../http/context";
import { responses } from "../../http/docs";
import { notServed } from "../../http/methods";
import { textStream } from "../../http/stream";
import { DeletedSchema } from "../forms/model";
import { addressBucket } from "../../lib/address-bucket";
import { locationUrl } from "../../lib/location-url";
import { CursorParam, FormIdParams, LimitParam, pageLimit } from "../../http/schemas";
import {
  IdempotencyKeySchema,
  MovedSchema,
  SubmissionExportSchema,
  SubmissionDetailSchema,
  listedJson,
  SubmissionListSchema,
  SubmissionParams,
  SubmitBodySchema,
  SubmitFormSchema,
  SubmitResultSchema,
  SUBMISSION_STATES,
  type SubmissionState,
  type SubmitResult,
} from "./model";
import type { SubmissionLifecycle } from "./lifecycle";
import { formBody, isMultipart, readSubmitBody } from "./read-body";
import { submitRequest } from "./request";
import type { FilesService } from "../files/service";
import type { FormsService } from "../forms/service";
import type { Principal } from "../../lib/principal";
import type { SubmissionsService } from "./service";
import type { PartialsService } from "../dropin/partials";
import { PartialListSchema } from "../dropin/partials-model";

const STATES = SUBMISSION_STATES.join("|");

const CONTENT_TYPES = { csv: "text/csv; charset=utf-8", json: "application/json; charset=utf-8" } as const;

export function submissionsRoutes(
  submissions: SubmissionsService,
  lifecycle: SubmissionLifecycle,
  maxBodyBytes: number,
  files: FilesService,
  forms: Pick<FormsService, "formFor">,
  /** The `partial` folder: answers saved halfway, kept apart from submissions (dropin/partials.ts). */
  partials: Pick<PartialsService, "list">,
) {
  /** The `files` setting of the form a multipart post names, once its formId has come and the caller may submit to it; else unknown (the submit refuses it in order). */
  const filesPolicy = async (caller: Principal, sent: Map<string, unknown>) => {
    const formId = sent.get("formId");
    if (typeof formId !== "string") return undefined;
    return forms.formFor(caller, formId, "submit").then(
      (form) => form.files,
      () => undefined,
    );
  };
  const routes = new Elysia({ name: "submissions-routes" })
    .use(requestContext)
    .post(
      "/forms/submit",
      async ({ request, principal, client, set, bodyPace }) => {
        let result: SubmitResult;
        let isFormPost = true;
        if (isMultipart(request)) {
          const { fields, uploads } = await bodyPace.uploading(addressBucket(client().ip), () =>
            files.receive(request, {
              body: bodyPace.chunks(request),
              teamId: principal.team,
              maxTextBytes: maxBodyBytes,
              policy: (sent) => filesPolicy(principal, sent),
            }),
          );
          try {
            result = await submissions.submit(
              submitRequest({
                actor: principal,
                body: formBody(fields),
                headers: request.headers,
                client: client(),
                formPost: true,
                uploads,
              }),
            );
          } finally {
            // Not stored (refused, or an earlier answer to the same Idempotency-Key): nothing stays behind.
            await files.release(uploads);
          }
        } else {
          const read = await readSubmitBody(request, maxBodyBytes, bodyPace);
          isFormPost = read.isFormPost;
          result = await submissions.submit(
            submitRequest({
              actor: principal,
              body: read.body,
              headers: request.headers,
              client: client(),
              formPost: isFormPost,
            }),
          );
        }
        if (isFormPost && result.redirect) {
          set.status = 303;
          // read-body.ts took it only if it is one; a header carries its ASCII form (punycode, percent-encoding).
          set.headers.location = locationUrl(result.redirect)!;
        }
        return result;
      },
      {
        auth: "public",
        // We read the body ourselves: the size cap, the content types and the check order are ours.
        parse: "none",
        detail: {
          summary: "Submit to a form",
          description:
            "JSON, or a browser form post (application/x-www-form-urlencoded or multipart/form-data; fields formId, redirectUrl, the rest become data) answered 303 to redirectUrl. Answered only after the submission is committed to disk. Send an Idempotency-Key header to make retries safe. Takes a secret or a publishable key (a web page's, rate limited per visitor); with a publishable key, a form's allowedOrigins must list the page's Origin (or Referer) (else 403 ORIGIN_NOT_ALLOWED). A redirectUrl off the allowed origins (with none set, off the posting page's origin), or not an http(s) URL, is dropped: the post is stored, answered as one without it, and the form gets a REDIRECT_NOT_ALLOWED warning (Get Form's warnings). The form's spam checks run after it is found and owned: a challenge (400 CHALLENGE_FAILED, or 503 when its verifier does not answer), then the honeypot (stored as spam, answered the same). A closed form (paused, past closesAt, at maxSubmissions) is a 403 FORM_CLOSED; a form with fields checks them last, every problem at once in a 400 VALIDATION_FAILED with errors[], and stores a form post's values typed; a field whose showIf does not hold is not required and its value is dropped. A form with oneResponsePerEmail answers a second inbox submission with an extracted email that has answered with 409 ALREADY_SUBMITTED, nothing stored. A request carries at most 1,000 fields, a repeated name counted each time (a multipart body at most 1,000 parts): more is a 400 TOO_MANY_FIELDS. A body slower than FORMSVC_MIN_BODY_RATE bytes a second over 30 s is a 408 BODY_TOO_SLOW; a client address with FORMSVC_MAX_UPLOADS_PER_CLIENT multipart bodies in flight gets a 429 for another.",
          tags: ["Submissions"],
          parameters: [
            {
              name: "Idempotency-Key",
              in: "header",
              required: false,
              description: IdempotencyKeySchema.description,
              schema: IdempotencyKeySchema,
            },
          ],
          requestBody: {
            required: true,
            description:
              "At most FORMSVC_MAX_BODY_BYTES (default 102400) bytes of UTF-8. A form post's fields other than formId and redirectUrl become data (text; a repeated name gives an array). Files come only in multipart/form-data, for a form whose files setting takes them (else 400 NO_FILE_UPLOADS): each is streamed to storage, typed by its bytes (400 FILE_TYPE_NOT_ALLOWED), counted (400 TOO_MANY_FILES, 413 FILES_TOO_BIG), and stored in data as {file, name, type, size, sha256}; a multipart request may carry FORMSVC_MAX_UPLOAD_BYTES in all.",
            content: {
              "application/json": { schema: SubmitBodySchema },
              "application/x-www-form-urlencoded": { schema: SubmitFormSchema },
              "multipart/form-data": { schema: SubmitFormSchema },
            },
          },
          responses: {
            ...responses(
              { schema: SubmitResultSchema, description: "stored (committed to disk)" },
              400,
              401,
              403,
              404,
              409,
              413,
              415,
              429,
              503,
            ),
            ...responses({
              status: 303,
              schema: SubmitResultSchema,
              description: "stored; a form post with an allowed redirectUrl is sent there, with the same body as a 200",
              headers: {
                Location: {
                  description:
                    "redirectUrl in its encoded ASCII form (punycode host; path, query and fragment percent-encoded to a valid URI)",
                  required: true,
                  schema: { type: "string", format: "uri" },
                },
              },
            }),
          },
        },
      },
    )
    // `submit` is no form id: without these guards, GET, PATCH or DELETE /forms/submit would be read
    // as a form named "submit" (and other methods would be offered GET). They answer 405 with Allow: POST.
    .get("/forms/submit", notServed, { detail: { hide: true } })
    .patch("/forms/submit", notServed, { detail: { hide: true } })
    .delete("/forms/submit", notServed, { detail: { hide: true } })
    .all("/forms/submit", notServed, { detail: { hide: true } })
    .get(
      "/forms/:formId/submissions",
      async ({ params, query, principal, set }) => {
        if (query.status === "partial")
          return partials.list(principal, params.formId, { limit: pageLimit(query.limit), cursor: query.cursor });
        set.headers["content-type"] = "application/json;charset=utf-8";
        return await submissions.pageJson(principal, params.formId, {
          limit: pageLimit(query.limit),
          cursor: query.cursor,
          status: query.status,
          filter: {
            states: query.state?.split(",") as SubmissionState[] | undefined,
            tag: query.tag,
            assignee: query.assignee === "none" ? null : query.assignee?.trim().toLowerCase(),
          },
        });
      },
      {
        auth: noBody(secret("submissions.read")),
        params: FormIdParams,
        query: t.Object({
          limit: LimitParam,
          cursor: CursorParam,
          status: t.Optional(
            t.UnionEnum(["inbox", "spam", "partial"], {
              error: "status must be inbox, spam or partial",
              description:
                "inbox (default); spam: what a spam check kept out of the counts; partial: answers saved halfway on the hosted page (partialSubmissions), not submissions",
            }),
          ),
          state: t.Optional(
            t.String({
              pattern: `^(${STATES})(,(${STATES}))*$`,
              error: "state must be one or more of new, open, done, archived, separated by commas",
              description: "only these states, comma-separated (e.g. new,open: the work still to do)",
            }),
          ),
          tag: t.Optional(
            t.String({
              minLength: 1,
              maxLength: 40,
              error: "tag must be 1 to 40 characters",
              description: "only submissions with this tag",
            }),
          ),
          assignee: t.Optional(
            t.String({
              minLength: 1,
              maxLength: 254,
              error: "assignee must be an email, or none",
              description: "only those assigned to this member (by email), or none: those assigned to nobody",
            }),
          ),
        }),
        detail: {
          summary: "List submissions",
          description:
            "Newest first (createdAt, then id, descending). Paging is stable while new submissions arrive. `status=spam` lists the spam folder (counted nowhere). `status=partial` lists answers saved halfway on the hosted page (partialSubmissions), newest first, which are no submissions: counted, notified, searched, exported and sent to webhooks nowhere, each with `status`, `email` and `updatedAt` and without `_meta`, `spam` or the inbox's fields, which the filters ignore. `state`, `tag` and `assignee` keep only the submissions they name (the dashboard's inbox filters); a cursor belongs to the status and filters it came from.",
          tags: ["Submissions"],
          responses: responses(
            {
              schema: t.Union([SubmissionListSchema, PartialListSchema]),
              description: "a page of submissions, or with status=partial of answers saved halfway",
            },
            400,
            401,
            403,
            404,
            429,
          ),
        },
      },
    )
    .get(
      "/forms/:formId/submissions/export",
      async ({ params, query, principal, request, server }) => {
        const format = query.format ?? "csv";
        // A CSV export reads every row for its field names before its first byte: on a form of
        // millions that outlasts the idle timeout (30 s), which would close the connection.
        server?.timeout(request, 0);
        const chunks = await submissions.exportFor(principal, params.formId, format);
        return new Response(textStream(chunks), {
          headers: {
            "content-type": CONTENT_TYPES[format],
            "content-disposition": `attachment; filename="${params.formId.replace(/[^\w-]/g, "_")}.${format}"`,
          },
        });
      },
      {
        auth: noBody(secret("submissions.edit")),
        params: FormIdParams,
        query: t.Object({
          format: t.Optional(
            t.UnionEnum(["csv", "json"], { error: "format must be csv or json", description: "csv (default) or json" }),
          ),
        }),
        detail: {
          summary: "Export submissions",
          description:
            "Every inbox submission of the form, oldest first, streamed as it is read (a page at a time: any size, memory stays flat), as formsvc submissions export writes it. CSV: id, createdAt, every data field seen, then _meta.*; a file field holds each file's name and download path (GET …/submissions/{submissionId}/files/{fileId}), one a line; cells that a spreadsheet would run as a formula start with '. JSON: an array of submissions as the list shows them, with the download `path` beside each file entry. A submission stored while the export runs may or may not be in it.",
          tags: ["Submissions"],
          responses: responses(
            {
              description: "the export, as an attachment",
              headers: {
                "Content-Disposition": {
                  description: 'attachment; filename="<formId>.<format>"',
                  required: true,
                  schema: { type: "string" },
                },
              },
              content: {
                "text/csv": { schema: t.String({ description: "RFC 4180, CRLF line ends" }) },
                "application/json": { schema: SubmissionExportSchema },
              },
            },
            400,
            401,
            403,
            404,
            429,
          ),
        },
      },
    )
    // `export` is no submission id: DELETE or PATCH on it answers 405 (Allow: GET), not "no such submission".
    .delete("/forms/:formId/submissions/export", notServed, { detail: { hide: true } })
    .patch("/forms/:formId/submissions/export", notServed, { detail: { hide: true } })
    .get(
      "/forms/:formId/submissions/:submissionId",
      async ({ params, principal, set }) => {
        const { stored } = await submissions.submissionFor(principal, params.formId, params.submissionId);
        set.headers["content-type"] = "application/json;charset=utf-8";
        // data is spliced in as stored (as the list does), the folder added after it.
        return `${listedJson(stored).slice(0, -1)},"status":${JSON.stringify(stored.status)}}`;
      },
      {
        auth: noBody(secret("submissions.read")),
        params: SubmissionParams,
        detail: {
          summary: "Get a submission",
          description:
            "One submission, inbox or spam, as the list shows it, with the folder it is in (the dashboard's page of one submission, which the daily digest links to). A submission of another form is a 404.",
          tags: ["Submissions"],
          responses: responses(
            { schema: SubmissionDetailSchema, description: "the submission" },
            400,
            401,
            403,
            404,
            429,
          ),
        },
      },
    )
    .delete(
      "/forms/:formId/submissions/:submissionId",
      async ({ params, principal }) => await lifecycle.deleteSubmission(principal, params.formId, params.submissionId),
      {
        auth: secret("submissions.edit"),
        params: SubmissionParams,
        detail: {
          summary: "Delete a submission",
          description:
            "Removes it, inbox or spam, with what it left behind (queued notifications); the form's counts, waitlist joiners and analytics drop it in the same transaction. A submission of another form is a 404.",
          tags: ["Submissions"],
          responses: responses({ schema: DeletedSchema, description: "deleted" }, 400, 401, 403, 404, 429),
        },
      },
    );
  for (const [path, to, summary, description] of [
    [
      "spam",
      "spam",
      "Move a submission to spam",
      "It counts nowhere from now on (submissionCount, waitlist, analytics, exports).",
    ],
    [
      "not-spam",
      "inbox",
      "Move a submission out of spam",
      "It counts from now on, and its notifications and webhooks go out as for a new one.",
    ],
  ] as const) {
    routes.post(
      `/forms/:formId/submissions/:submissionId/${path}`,
      async ({ params, principal }) => {
        const { moved, status } = await submissions.moveSubmission(principal, params.formId, params.submissionId, to);
        return { id: params.submissionId, status, moved };
      },
      {
        auth: secret("submissions.edit"),
        params: SubmissionParams,
        detail: {
          summary,
          description: `${description} Moving it where it already is changes nothing (moved: false). A submission of another form is a 404.`,
          tags: ["Submissions"],
          responses: responses(
            { schema: MovedSchema, description: "where the submission is now" },
            400,
            401,
            403,
            404,
            429,
          ),
        },
      },
    );
  }
  return routes;
}
