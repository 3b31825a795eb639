import { Elysia, t, type Static } from "elysia";
import { noBody, requestContext, secret } from "../../http/context";
import { responses } from "../../http/docs";
import type { Edits } from "./edits";
import { SubmissionParams } from "./model";

export const RevisionSchema = t.Object({
  revision: t.Unsafe<number>({
    type: "integer",
    minimum: 1,
    description: "1 for the values as first sent, then one more per change",
  }),
  data: t.Record(t.String(), t.Unknown(), { description: "the values the submission had until this change" }),
  createdAt: t.String({
    format: "date-time",
    description: "when the submitter changed them: ISO 8601, UTC, milliseconds",
  }),
});
export const RevisionListSchema = t.Object({ revisions: t.Array(RevisionSchema, { description: "newest first" }) });
export type RevisionListJson = Static<typeof RevisionListSchema>;

/** A submission's earlier values, kept each time its submitter changed it (editableDays). */
export function revisionsRoutes(edits: Edits) {
  return new Elysia({ name: "revisions-routes" }).use(requestContext).get(
    "/forms/:formId/submissions/:submissionId/revisions",
    async ({ params, principal }) => ({
      revisions: await edits.listRevisions(principal, params.formId, params.submissionId),
    }),
    {
      auth: noBody(secret("submissions.read")),
      params: SubmissionParams,
      detail: {
        summary: "List a submission's revisions",
        description:
          "What the submission held before each change its submitter made through the edit link (the form's editableDays), newest first; the submission itself holds the values now. Deleting or erasing the submission removes them. A submission of another form is a 404; a form of a team the caller is not in a 403.",
        tags: ["Submissions"],
        responses: responses(
          { schema: RevisionListSchema, description: "the submission's revisions" },
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
