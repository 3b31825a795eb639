import { Elysia, t } from "elysia";
import { noBody, requestContext, secret } from "../../http/context";
import { responses } from "../../http/docs";
import { attachment } from "../files/service";
import { SubmissionParams } from "./model";
import type { SubmissionPdfs } from "./pdf";

/** `GET …/submissions/{submissionId}/pdf`: a submission as a PDF, for whoever may read it. */
export function submissionPdfRoutes(pdfs: SubmissionPdfs) {
  return new Elysia({ name: "submission-pdf-routes" }).use(requestContext).get(
    "/forms/:formId/submissions/:submissionId/pdf",
    async ({ params, principal }) => {
      const { bytes, fileName } = await pdfs.pdfFor(principal, params.formId, params.submissionId);
      return new Response(bytes as Uint8Array<ArrayBuffer>, {
        headers: {
          "content-type": "application/pdf",
          "content-disposition": attachment(fileName),
          "x-content-type-options": "nosniff",
          "cache-control": "private, no-store",
        },
      });
    },
    {
      auth: noBody(secret("submissions.read")),
      params: SubmissionParams,
      detail: {
        summary: "Get a submission as a PDF",
        description:
          "The form's name, when the submission came (in the reader's time zone, named: the caller's, or for a key its maker's) and its id, then each field by its label in the form's order (fields the form does not list after them, as stored); uploaded files are listed by name, type and size, not embedded. Fonts: Noto Sans (Latin, Cyrillic, Greek, Vietnamese) and Noto Sans JP (Japanese, and the CJK ideographs it has); a character none of them has (Arabic, Hebrew, Devanagari, Thai, Korean, emoji) shows as U+FFFD and the PDF says so. A value is cut after 20,000 characters and the PDF after 30 pages and 3,000 different Japanese characters (the rest as U+FFFD), each saying so. A submission of another form is a 404.",
        tags: ["Submissions"],
        responses: responses(
          {
            description: "the PDF, as an attachment",
            content: { "application/pdf": { schema: t.String({ format: "binary" }) } },
            headers: {
              "Content-Disposition": {
                description:
                  "attachment; filename=\"<form name> <submission id>.pdf\" (ASCII), with filename*=UTF-8''… (RFC 6266, RFC 5987)",
                required: true,
                schema: { type: "string" },
              },
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
  );
}
