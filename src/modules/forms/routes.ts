import { Elysia, t } from "elysia";
import { noBody, requestContext, secret } from "../../http/context";
import { responses } from "../../http/docs";
import { notServed } from "../../http/methods";
import { CursorParam, FormIdParams, LimitParam, pageLimit } from "../../http/schemas";
import { setAt, valueAt } from "../../lib/dotted-path";
import type { Principal } from "../../lib/principal";
import { DeletedSchema, FormListSchema, UsersJoinedSchema, toFormListItem, type Form } from "./model";
import {
  FormCreateSchema,
  FormPatchSchema,
  FormSchema,
  formJsonText,
  toFormJson,
  WRITABLE_SETTINGS,
  type FormPatchBody,
} from "./settings";
import type { FormInput, FormsService } from "./service";

/** A body shaped as Get Form shows a form, as the service's input (what is left out stays undefined). */
function formInput(body: FormPatchBody): FormInput {
  const input: Record<string, unknown> = {};
  for (const { key, row } of WRITABLE_SETTINGS) {
    const value = valueAt(body, key);
    if (value !== undefined) setAt(input, row.field, value);
  }
  return input as FormInput;
}

const MANAGE =
  "Needs a secret key of all the owner's forms (or a session): a publishable key, or a key bound to some forms, is refused with 403 KEY_SCOPE.";

export function formsRoutes(forms: FormsService, deleteForm: (actor: Principal, id: string) => Promise<Form>) {
  return (
    new Elysia({ name: "forms-routes" })
      .use(requestContext)
      .get(
        "/forms/list",
        async ({ query, principal }) => {
          const page = await forms.listForms(principal, {
            limit: pageLimit(query.limit),
            cursor: query.cursor,
            teamId: query.teamId,
          });
          return { forms: page.items.map(toFormListItem), nextCursor: page.nextCursor };
        },
        {
          auth: noBody(secret("forms.read")),
          query: t.Object({
            limit: LimitParam,
            cursor: CursorParam,
            teamId: t.Optional(
              t.String({
                minLength: 1,
                maxLength: 200,
                error: "teamId must be a team id",
                description: "only this team's forms (default: the forms of every team the caller is a member of)",
              }),
            ),
          }),
          detail: {
            summary: "List forms",
            description:
              "The forms of the caller's teams (a key's one team; a session's every team, or teamId's alone), newest first (createdAt, then id, descending).",
            tags: ["Forms"],
            responses: responses({ schema: FormListSchema, description: "a page of forms" }, 400, 401, 403, 429),
          },
        },
      )
      // `list` is no form id: without these guards, PATCH or DELETE /forms/list would be read as a form named "list".
      .patch("/forms/list", notServed, { detail: { hide: true } })
      .delete("/forms/list", notServed, { detail: { hide: true } })
      .post(
        "/forms",
        async ({ body, principal }) =>
          toFormJson(await forms.createForm(principal, { ...formInput(body), name: body.name, teamId: body.teamId })),
        {
          auth: secret("forms.create"),
          body: FormCreateSchema,
          detail: {
            summary: "Create a form",
            description: `A new form of the key's owner, with the settings given (shaped as Get Form shows them; only name is required, the rest has the defaults of formsvc forms create). Answered 200, as submit is. ${MANAGE}`,
            tags: ["Forms"],
            responses: responses(
              { schema: FormSchema, description: "the new form, as Get Form shows it" },
              400,
              401,
              403,
              429,
            ),
          },
        },
      )
      .get(
        "/forms/:formId",
        async ({ params, principal, set }) => {
          const text = formJsonText(await forms.formFor(principal, params.formId));
          // What Elysia's Response.json would say for the object.
          set.headers["content-type"] = "application/json;charset=utf-8";
          return text;
        },
        {
          auth: noBody(secret("forms.read")),
          params: FormIdParams,
          detail: {
            summary: "Get a form",
            tags: ["Forms"],
            responses: responses({ schema: FormSchema, description: "the form" }, 400, 401, 403, 404, 429),
          },
        },
      )
      .patch(
        "/forms/:formId",
        async ({ params, body, principal }) =>
          toFormJson(await forms.updateForm(principal, params.formId, formInput(body))),
        {
          auth: secret("forms.edit"),
          params: FormIdParams,
          body: FormPatchSchema,
          detail: {
            summary: "Change a form",
            description:
              "Only the fields given change (as formsvc forms update does); {} changes nothing. retentionDays: null keeps submissions forever. Changing formType to or from waitlist recounts the distinct joiners. Read-only fields (id, submissionCount, usersJoinedSettings.count, times) are refused.",
            tags: ["Forms"],
            responses: responses({ schema: FormSchema, description: "the form as it is now" }, 400, 401, 403, 404, 429),
          },
        },
      )
      .delete(
        "/forms/:formId",
        async ({ params, principal }) => {
          const form = await deleteForm(principal, params.formId);
          return { id: form.id, deleted: true as const };
        },
        {
          auth: secret("forms.delete"),
          params: FormIdParams,
          detail: {
            summary: "Delete a form",
            description:
              "Removes the form with all its submissions, its analytics and its queued notifications. It cannot be undone. A large form's submissions go a few hundred per transaction, so the server keeps answering meanwhile (and the form's counts stay true); the answer comes when all is gone.",
            tags: ["Forms"],
            responses: responses({ schema: DeletedSchema, description: "deleted" }, 400, 401, 403, 404, 429),
          },
        },
      )
      .get(
        "/forms/:formId/users-joined",
        async ({ params, principal }) => ({ usersJoined: await forms.usersJoined(principal, params.formId) }),
        {
          auth: noBody(secret("forms.read")),
          params: FormIdParams,
          detail: {
            summary: "Count waitlist joiners",
            description:
              "Distinct joiners by email (case-insensitive); submissions without an email count once each. 0 while the counter is off; 404 for forms that are not waitlists.",
            tags: ["Forms"],
            responses: responses(
              { schema: UsersJoinedSchema, description: "distinct joiners" },
              400,
              401,
              403,
              404,
              429,
            ),
          },
        },
      )
  );
}
