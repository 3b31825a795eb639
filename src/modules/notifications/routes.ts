import { Elysia, t } from "elysia";
import { requestContext, secret } from "../../http/context";
import { responses } from "../../http/docs";
import { FormIdParams, UnknownField } from "../../http/schemas";
import { FormPatchSchema } from "../forms/settings";
import type { NotificationPreviews } from "./preview";

export const NotificationPreviewSchema = t.Object({
  subject: t.String(),
  text: t.String(),
  html: t.String({ description: "the HTML part, a whole document; every value in it is escaped" }),
  submissionId: t.Nullable(
    t.String({ description: "the submission it was rendered from: the form's latest in the inbox; null = a sample" }),
  ),
});

export const NotificationPreviewBody = t.Object(
  {
    // The setting's own input schema: the same size cap and the same 400 as PATCH /forms/{formId}.
    template: FormPatchSchema.properties.notificationTemplate,
  },
  { additionalProperties: UnknownField },
);

/** `POST /forms/{formId}/notification-preview`: the owner notification as it would be sent, for the dashboard's settings page. */
export function notificationRoutes(previews: NotificationPreviews) {
  return new Elysia({ name: "notification-routes" })
    .use(requestContext)
    .post(
      "/forms/:formId/notification-preview",
      async ({ params, body, principal }) =>
        await previews.previewNotification(principal, params.formId, body.template),
      {
        auth: secret("forms.read"),
        params: FormIdParams,
        body: NotificationPreviewBody,
        detail: {
          summary: "Preview the owner notification",
          description:
            "The notification email (subject, text and HTML part) exactly as it would be sent, rendered from the form's latest inbox submission, or from a sample built from its fields when it has none. `template` previews a notificationTemplate before it is saved (checked as PATCH checks the setting: a 400 that says where a tag is unbalanced); null previews formsvc's own email; left out, the form's saved setting. Changes nothing and sends nothing.",
          tags: ["Forms"],
          responses: responses(
            { schema: NotificationPreviewSchema, description: "the notification as it would be sent" },
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
