import { Elysia, t } from "elysia";
import { noBody, requestContext, secret } from "../../http/context";
import { responses } from "../../http/docs";
import { FormIdParams, LimitParam, pageLimit } from "../../http/schemas";
import {
  CreatedWebhookSchema,
  DeliveryListSchema,
  DeliverySchema,
  NewWebhookSchema,
  toCreatedWebhookJson,
  toWebhookJson,
  WebhookListSchema,
} from "./model";
import type { WebhooksService } from "./service";

const WebhookIdParams = t.Object({
  webhookId: t.String({ minLength: 1, maxLength: 200, error: "webhookId must be a webhook id" }),
});
const DeliveryIdParams = t.Object({
  deliveryId: t.String({ minLength: 1, maxLength: 200, error: "deliveryId must be a delivery id" }),
});
const RemovedSchema = t.Object({ id: t.String(), deleted: t.Literal(true) });

/** The webhooks of the management API, for a secret key: the same service and shapes as `formsvc webhooks … --json`. */
export function webhooksRoutes(webhooks: WebhooksService) {
  return new Elysia({ name: "webhooks-routes" })
    .use(requestContext)
    .get(
      "/forms/:formId/webhooks",
      async ({ params, principal }) => (await webhooks.listWebhooks(principal, params.formId)).map(toWebhookJson),
      {
        auth: noBody(secret("webhooks.manage")),
        params: FormIdParams,
        detail: {
          summary: "List a form's webhooks",
          description:
            "Oldest first. Secrets are never listed: a standard webhook's secret is shown once, when it is added.",
          tags: ["Webhooks"],
          responses: responses(
            { schema: WebhookListSchema, description: "the form's webhooks" },
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
      "/forms/:formId/webhooks",
      async ({ params, body, principal }) =>
        toCreatedWebhookJson(await webhooks.addWebhook(principal, params.formId, body)),
      {
        auth: secret("webhooks.manage"),
        params: FormIdParams,
        body: NewWebhookSchema,
        detail: {
          summary: "Add a webhook",
          description:
            "Every inbox submission of the form (and every submission moved out of spam) is POSTed to `url`: `standard` as a signed Standard Webhooks event (`webhook-id`, `webhook-timestamp`, `webhook-signature`), `slack` / `discord` as a message for their incoming webhooks. Events: `submission.created` (data: the submission as the list shows it, without the inbox's state, assignee, tags and noteCount), `submission.updated` (an inbox submission's state, assignee, tags or notes changed, or its submitter changed its answers through the edit link; data: {id, formId, changed, state, assignee, tags, noteCount, previous, note?, deletedNote?, and for an edit data (the values now) and revision, previous.data holding the changed fields' earlier values}), `webhook.test`. Each file entry in a `standard` event's `data` has a `url` beside it: a signed link that downloads the file without a key for 7 days from when the delivery was queued (absolute with FORMSVC_PUBLIC_URL, else the path on the server). A 2xx within 10 s is success; anything else is retried after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h and 24 h (with jitter); a 410 disables the webhook; redirects are not followed. A URL whose host is or resolves to an internal address (loopback, private, link-local …) is refused (400), here and at every delivery, unless the server allows private addresses. The answer carries the signing secret, only here.",
          tags: ["Webhooks"],
          responses: responses(
            { schema: CreatedWebhookSchema, description: "the new webhook, with its secret" },
            400,
            401,
            403,
            404,
            409,
            429,
          ),
        },
      },
    )
    .delete(
      "/webhooks/:webhookId",
      async ({ params, principal }) => ({
        id: (await webhooks.removeWebhook(principal, params.webhookId)).id,
        deleted: true as const,
      }),
      {
        auth: secret("webhooks.manage"),
        params: WebhookIdParams,
        detail: {
          summary: "Remove a webhook",
          description: "With its deliveries: pending ones are not sent.",
          tags: ["Webhooks"],
          responses: responses({ schema: RemovedSchema, description: "removed" }, 400, 401, 403, 404, 429),
        },
      },
    )
    .get(
      "/webhooks/:webhookId/deliveries",
      async ({ params, query, principal }) =>
        await webhooks.deliveries(principal, params.webhookId, pageLimit(query.limit)),
      {
        auth: noBody(secret("webhooks.manage")),
        params: WebhookIdParams,
        query: t.Object({ limit: LimitParam }),
        detail: {
          summary: "List a webhook's deliveries",
          description:
            "Newest first, at most `limit` (default 50): each with its status, attempts, the receiver's last HTTP status and the last error.",
          tags: ["Webhooks"],
          responses: responses(
            { schema: DeliveryListSchema, description: "deliveries, newest first" },
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
      "/deliveries/:deliveryId/replay",
      async ({ params, principal }) => await webhooks.replay(principal, params.deliveryId),
      {
        auth: secret("webhooks.manage"),
        params: DeliveryIdParams,
        detail: {
          summary: "Replay a delivery",
          description:
            "Sends the delivery again with the same webhook-id and body (its file links made afresh, for 7 days from now), now, with a fresh retry schedule. 409 while it is being sent, or when its webhook is disabled.",
          tags: ["Webhooks"],
          responses: responses(
            { schema: DeliverySchema, description: "the delivery, pending again" },
            400,
            401,
            403,
            404,
            409,
            429,
          ),
        },
      },
    );
}
