import { Elysia } from "elysia";
import { noBody, requestContext, secret } from "../../http/context";
import { responses } from "../../http/docs";
import { FormIdParams } from "../../http/schemas";
import { AnalyticsQuerySchema, AnalyticsSchema } from "./model";
import type { AnalyticsService } from "./service";

export function analyticsRoutes(analytics: AnalyticsService) {
  return new Elysia({ name: "analytics-routes" }).use(requestContext).get(
    "/forms/:formId/analytics",
    async ({ params, query, principal, set }) => {
      set.headers["content-type"] = "application/json;charset=utf-8";
      return await analytics.analyticsJson(principal, params.formId, query);
    },
    {
      auth: noBody(secret("forms.read")),
      params: FormIdParams,
      query: AnalyticsQuerySchema,
      detail: {
        summary: "Form analytics",
        description:
          "Daily submission counts (one entry per UTC day, zero-filled) and the top 10 countries, browsers and devices. `period` is the last 1/7/30/365 days ending today (default month). With `startDate` and/or `endDate` the period is `custom`: both dates give that inclusive range, only `startDate` runs to today, only `endDate` takes the period's length ending there. At most 1,830 days.",
        tags: ["Analytics"],
        responses: responses(
          { schema: AnalyticsSchema, description: "analytics for the range" },
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
