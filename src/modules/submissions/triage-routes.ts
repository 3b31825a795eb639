import { Elysia } from "elysia";
import { noBody, requestContext, secret } from "../../http/context";
import { responses } from "../../http/docs";
import { notServed } from "../../http/methods";
import { FormIdParams } from "../../http/schemas";
import { DeletedSchema } from "../forms/model";
import { listedJson, SubmissionDetailSchema, SubmissionParams } from "./model";
import {
  BulkResultSchema,
  BulkSchema,
  NoteBodySchema,
  NoteListSchema,
  NoteParams,
  NoteSchema,
  TriageSchema,
} from "./triage-model";
import type { Triage } from "./triage";

const tags = ["Submissions"];
const OTHERS =
  "A submission of another form is a 404; a form of a team the caller is not in a 403 FORBIDDEN, a role below editor 403 ROLE_TOO_LOW.";

/** The inbox: a submission's state, assignee, tags and notes, and bulk actions on many. */
export function triageRoutes(triage: Triage) {
  return (
    new Elysia({ name: "triage-routes" })
      .use(requestContext)
      .patch(
        "/forms/:formId/submissions/:submissionId",
        async ({ params, body, principal, set }) => {
          const stored = await triage.update(principal, params.formId, params.submissionId, body);
          set.headers["content-type"] = "application/json;charset=utf-8";
          return `${listedJson(stored).slice(0, -1)},"status":${JSON.stringify(stored.status)}}`;
        },
        {
          auth: secret("submissions.edit"),
          params: SubmissionParams,
          body: TriageSchema,
          detail: {
            summary: "Change a submission's state, assignee or tags",
            description: `Only what is given changes; {} changes nothing. state: new, open, done or archived (the forms' unread counts the inbox's new ones). assignee: a member of the form's team by email (400 NOT_A_MEMBER otherwise), or null. tags replaces its tags; addTags and removeTags change them (not with tags); at most 20, each 1 to 40 characters. Each change is in the audit trail and, for an inbox submission, sent to the form's webhooks as submission.updated. ${OTHERS}`,
            tags,
            responses: responses(
              { schema: SubmissionDetailSchema, description: "the submission as it is now" },
              400,
              401,
              403,
              404,
              429,
            ),
          },
        },
      )
      .post(
        "/forms/:formId/submissions/bulk",
        async ({ params, body, principal }) => await triage.bulk(principal, params.formId, body),
        {
          auth: secret("submissions.edit"),
          params: FormIdParams,
          body: BulkSchema,
          detail: {
            summary: "Act on many submissions at once",
            description: `One action on 1 to 1,000 submissions of the form, all or none, in one transaction: set (the changes of PATCH …/submissions/{submissionId}, in set), delete, spam or not-spam (as the routes for one submission do, the spam filter learning from each mark). An id that is not one of the form's submissions refuses the whole call with a 404 naming it, and nothing changes. ${OTHERS}`,
            tags,
            responses: responses(
              { schema: BulkResultSchema, description: "what was done" },
              400,
              401,
              403,
              404,
              413,
              429,
            ),
          },
        },
      )
      // `bulk` is no submission id: other methods on it answer 405 (Allow: POST).
      .get("/forms/:formId/submissions/bulk", notServed, { detail: { hide: true } })
      .patch("/forms/:formId/submissions/bulk", notServed, { detail: { hide: true } })
      .delete("/forms/:formId/submissions/bulk", notServed, { detail: { hide: true } })
      .post(
        "/forms/:formId/submissions/:submissionId/notes",
        async ({ params, body, principal }) =>
          await triage.addNote(principal, params.formId, params.submissionId, body.text),
        {
          auth: secret("submissions.edit"),
          params: SubmissionParams,
          body: NoteBodySchema,
          detail: {
            summary: "Add a note to a submission",
            description: `A note for the team (up to 10,000 characters), kept with its author (the member, or who made the key) and time; the submission's noteCount counts it, and an inbox submission's webhooks get submission.updated. ${OTHERS}`,
            tags,
            responses: responses({ schema: NoteSchema, description: "the note" }, 400, 401, 403, 404, 429),
          },
        },
      )
      .get(
        "/forms/:formId/submissions/:submissionId/notes",
        async ({ params, principal }) => await triage.listNotes(principal, params.formId, params.submissionId),
        {
          auth: noBody(secret("submissions.read")),
          params: SubmissionParams,
          detail: {
            summary: "List a submission's notes",
            description:
              "Oldest first. A submission of another form is a 404; a form of a team the caller is not in a 403.",
            tags,
            responses: responses(
              { schema: NoteListSchema, description: "the submission's notes" },
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
        "/forms/:formId/submissions/:submissionId/notes/:noteId",
        async ({ params, principal }) =>
          await triage.deleteNote(principal, params.formId, params.submissionId, params.noteId),
        {
          auth: secret("submissions.edit"),
          params: NoteParams,
          detail: {
            summary: "Delete a note",
            description: `Only the note's author deletes it (anyone else: 403 NOT_AUTHOR). ${OTHERS}`,
            tags,
            responses: responses({ schema: DeletedSchema, description: "deleted" }, 400, 401, 403, 404, 429),
          },
        },
      )
  );
}
