import { Elysia, t } from "elysia";
import { requestContext } from "../../http/context";
import { responses } from "../../http/docs";
import { CursorParam, FormIdParams, LimitParam, pageLimit } from "../../http/schemas";
import { FormListSchema, FormSchema, UsersJoinedSchema, toFormJson, toFormListItem } from "./model";
import type { FormsService } from "./service";

export function formsRoutes(forms: FormsService) {
  return new Elysia({ name: "forms-routes" })
    .use(requestContext)
    .get(
      "/forms/list",
      ({ query, principal }) => {
        const page = forms.listForms(principal, { limit: pageLimit(query.limit), cursor: query.cursor });
        return { forms: page.items.map(toFormListItem), nextCursor: page.nextCursor };
      },
      {
        auth: "secret",
        query: t.Object({ limit: LimitParam, cursor: CursorParam }),
        detail: {
          summary: "List forms",
          description: "The key owner's forms, newest first (createdAt, then id, descending).",
          tags: ["Forms"],
          responses: responses({ schema: FormListSchema, description: "a page of forms" }, 400, 401, 403, 429),
        },
      },
    )
    .get("/forms/:formId", ({ params, principal }) => toFormJson(forms.formFor(params.formId, principal)), {
      auth: "secret",
      params: FormIdParams,
      detail: { summary: "Get a form", tags: ["Forms"], responses: responses({ schema: FormSchema, description: "the form" }, 400, 401, 403, 404, 429) },
    })
    .get("/forms/:formId/users-joined", ({ params, principal }) => ({ usersJoined: forms.usersJoined(params.formId, principal) }), {
      auth: "secret",
      params: FormIdParams,
      detail: {
        summary: "Count waitlist joiners",
        description: "Distinct joiners by email (case-insensitive); submissions without an email count once each. 0 while the counter is off; 404 for forms that are not waitlists.",
        tags: ["Forms"],
        responses: responses({ schema: UsersJoinedSchema, description: "distinct joiners" }, 400, 401, 403, 404, 429),
      },
    });
}
