import { Elysia, t } from "elysia";
import { noBody, requestContext, secret } from "../../http/context";
import { responses } from "../../http/docs";
import { FormIdParams, TeamIdParam } from "../../http/schemas";
import { ChallengeSchema, FilterStatusSchema } from "./model";
import type { SpamService } from "./service";

export function spamRoutes(spam: SpamService) {
  return new Elysia({ name: "spam-routes" })
    .use(requestContext)
    .get(
      "/forms/:formId/challenge",
      ({ params, principal, set }) => {
        // Each challenge is accepted once: a cached one would be refused as used.
        set.headers["cache-control"] = "no-store";
        return spam.challengeFor(principal, params.formId);
      },
      {
        auth: noBody("public"),
        params: FormIdParams,
        detail: {
          summary: "Get a proof-of-work challenge",
          description:
            "A fresh challenge in the ALTCHA v2 format for this form, the bare object the altcha widget fetches (point its challenge attribute here). It expires after 10 minutes and its solution is accepted once, for this form only; the widget's payload goes in the submission as the field altcha. Answered for every form, whatever its spamSettings.challenge, so a page can carry the widget before the form is switched to pow.",
          tags: ["Forms"],
          responses: responses(
            { schema: ChallengeSchema, description: "a proof-of-work challenge" },
            400,
            401,
            403,
            404,
            429,
          ),
        },
      },
    )
    .get("/spam-filter", ({ principal, query }) => spam.filter.status(principal, { teamId: query.teamId }), {
      auth: noBody(secret("forms.read")),
      query: t.Object({ teamId: TeamIdParam }),
      detail: {
        summary: "What the spam filter has learned",
        description:
          "A team's learning spam filter (each team's forms teach one): how many submissions it learned from as spam and as not spam (every spam / not-spam mark teaches it; a honeypot catch teaches nothing), and whether it files spam yet (once it has 20 of each) and since when. A secret key of all the team's forms, or a dashboard session.",
        tags: ["Submissions"],
        responses: responses(
          { schema: FilterStatusSchema, description: "what the filter has learned" },
          400,
          401,
          403,
          429,
        ),
      },
    });
}
