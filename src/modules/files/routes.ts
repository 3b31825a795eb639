import { Elysia, t } from "elysia";
import { noBody, requestContext, secret } from "../../http/context";
import { responses } from "../../http/docs";
import { FormId } from "../../http/schemas";
import type { SubmissionsService } from "../submissions/service";
import { attachment, type FilesService } from "./service";

const FileParams = t.Object({
  formId: FormId,
  submissionId: t.String({ minLength: 1, maxLength: 200, error: "submissionId must be a submission id" }),
  fileId: t.String({ minLength: 1, maxLength: 200, error: "fileId must be a file id" }),
});

const FILE_CONTENT = { "*/*": { schema: t.String({ format: "binary", description: "the file's bytes as stored" }) } };
const FILE_HEADERS = {
  "Content-Disposition": {
    description: "attachment; filename=\"<ASCII name>\"; filename*=UTF-8''<the original name> (RFC 6266, RFC 5987)",
    required: true,
    schema: { type: "string" },
  },
  "X-Content-Type-Options": { description: "nosniff", required: true, schema: { type: "string" } },
  "Content-Security-Policy": { description: "sandbox", required: true, schema: { type: "string" } },
};

/** The bytes of a stored file as an attachment that no browser runs or sniffs, whatever it holds. */
function fileResponse(file: { row: { type: string; name: string }; size: number; stream: ReadableStream<Uint8Array> }) {
  return new Response(file.stream, {
    headers: {
      "content-type": file.row.type,
      "content-length": String(file.size),
      "content-disposition": attachment(file.row.name),
      "x-content-type-options": "nosniff",
      "content-security-policy": "sandbox",
      "cache-control": "private, no-store",
    },
  });
}

/** Downloads: an owner's (secret key or session), and a signed link's (no key, for 7 days). */
export function filesRoutes(files: FilesService, submissions: Pick<SubmissionsService, "submissionFor">) {
  return new Elysia({ name: "files-routes" })
    .use(requestContext)
    .get(
      "/forms/:formId/submissions/:submissionId/files/:fileId",
      async ({ params, principal }) =>
        fileResponse(
          await files.download(principal, params.formId, params.submissionId, params.fileId, submissions.submissionFor),
        ),
      {
        auth: noBody(secret("submissions.read")),
        params: FileParams,
        detail: {
          summary: "Download a submission's file",
          description:
            "The bytes as uploaded, streamed, with the type sniffed from them when they came; always an attachment, never run by a browser (nosniff, CSP sandbox). A file of another submission is a 404.",
          tags: ["Submissions"],
          responses: responses(
            { description: "the file", content: FILE_CONTENT, headers: FILE_HEADERS },
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
      "/files/:fileId",
      async ({ params, query }) =>
        fileResponse(await files.downloadSigned(params.fileId, query.expires, query.signature)),
      {
        params: t.Object({ fileId: t.String({ minLength: 1, maxLength: 200, error: "fileId must be a file id" }) }),
        query: t.Object({
          expires: t.String({ maxLength: 20, error: "expires must be the link's Unix time", description: "Unix time" }),
          signature: t.String({ maxLength: 100, error: "signature must be the link's signature" }),
        }),
        detail: {
          summary: "Download a file by a signed link",
          // The signature is the credential: no key, no session.
          security: [],
          description:
            "The link in an owner notification or a webhook payload: no key, for 7 days from when it was made. A link changed in any way, or past its time, is a 403; a file deleted since is a 404.",
          tags: ["Submissions"],
          responses: responses(
            { description: "the file", content: FILE_CONTENT, headers: FILE_HEADERS },
            400,
            403,
            404,
            429,
          ),
        },
      },
    );
}
