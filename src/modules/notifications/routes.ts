import { Elysia, t } from "elysia";
import { noBody, requestContext, secret } from "../../http/context";
import { responses } from "../../http/docs";
import { FormIdParams, UnknownField } from "../../http/schemas";
import { FormPatchSchema } from "../forms/settings";
import type { MemberNotifications } from "./members";
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

export const MemberNotificationSchema = t.Object({
  notify: t.Boolean({ description: "whether the form's owner notification (or daily digest) comes to the caller" }),
  default: t.Boolean({
    description:
      "what the caller's role gives until they choose: true for owners and admins, false for editors and viewers",
  }),
});

export const MemberNotificationBody = t.Object(
  { notify: t.Boolean({ description: "true: the owner notification comes to the caller; false: it does not" }) },
  { additionalProperties: UnknownField },
);

// Said by both routes: who chooses, and what the choice leaves alone.
const MEMBER_CHOICE =
  "Each member of the form's team chooses for themselves, a viewer too (it needs only the right to read the form), with a login session: an API key is no person, and gets a 401. Until a member chooses, their role decides: owners and admins get the notification, editors and viewers do not. The form's `recipients` get it as before; an address that is both gets one email, with times in the member's time zone.";

/**
 * `POST /forms/{formId}/notification-preview`: the owner notification as it would be sent, for the
 * dashboard's settings page; `GET|PUT /forms/{formId}/notifications/me`: the session's own choice of it.
 */
export function notificationRoutes(previews: NotificationPreviews, members: MemberNotifications) {
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
    )
    .get(
      "/forms/:formId/notifications/me",
      async ({ params, principal }) => await members.choiceOf(principal, params.formId),
      {
        auth: noBody("session"),
        params: FormIdParams,
        detail: {
          summary: "Whether the owner notification comes to me",
          description: `The session's member's choice for this form, and their role's default. ${MEMBER_CHOICE} A form of a team the caller is not in is a 403, as Get Form.`,
          tags: ["Forms"],
          responses: responses(
            { schema: MemberNotificationSchema, description: "the caller's choice" },
            400,
            401,
            403,
            404,
            429,
          ),
        },
      },
    )
    .put(
      "/forms/:formId/notifications/me",
      async ({ params, body, principal }) => await members.choose(principal, params.formId, body.notify),
      {
        auth: "session",
        params: FormIdParams,
        body: MemberNotificationBody,
        detail: {
          summary: "Choose whether the owner notification comes to me",
          description: `Keeps the session's member's choice for this form, from the next submission (and the next daily digest) on. ${MEMBER_CHOICE} Must carry the server's own Origin, else 403 CSRF.`,
          tags: ["Forms"],
          responses: responses(
            { schema: MemberNotificationSchema, description: "the caller's choice, kept" },
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
