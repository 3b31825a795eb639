import { t, type Static } from "elysia";
import { UnknownField } from "../../http/schemas";
import type { OutboxRow } from "../outbox/repo";

export const WEBHOOK_FORMATS = ["standard", "slack", "discord"] as const;
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];

export interface Webhook {
  id: string;
  formId: string;
  url: string;
  format: WebhookFormat;
  /** `whsec_…` for the standard format; null for Slack and Discord, whose URL is their secret. */
  secret: string | null;
  enabled: boolean;
  disabledReason: string | null;
  createdAt: string;
}

const timestamp = t.String({ format: "date-time", description: "ISO 8601, UTC, milliseconds" });
const Format = t.Unsafe<WebhookFormat>({
  type: "string",
  enum: [...WEBHOOK_FORMATS],
  description: "standard (signed JSON event), or a Slack / Discord incoming-webhook message",
});

const webhookFields = {
  id: t.String(),
  formId: t.String(),
  url: t.String({ format: "uri" }),
  format: Format,
  enabled: t.Boolean({ description: "false once the receiver answered 410 Gone" }),
  disabledReason: t.Nullable(t.String()),
  createdAt: timestamp,
};

/** A webhook as lists show it: never its secret. */
export const WebhookSchema = t.Object(webhookFields);
export type WebhookJson = Static<typeof WebhookSchema>;

/** A new webhook (`webhooks add --json`, POST): the only answer that carries the secret. */
export const CreatedWebhookSchema = t.Object({
  ...webhookFields,
  secret: t.Nullable(
    t.String({
      description: "whsec_…: the Standard Webhooks signing secret, shown here only; null for slack and discord",
    }),
  ),
});
export type CreatedWebhookJson = Static<typeof CreatedWebhookSchema>;

export const WebhookListSchema = t.Array(WebhookSchema);

export const NewWebhookSchema = t.Object(
  {
    url: t.String({
      minLength: 1,
      maxLength: 2048,
      // What the service's URL parse takes as http(s) (whitespace around it trimmed, the scheme in any case).
      pattern: "^\\s*[Hh][Tt][Tt][Pp][Ss]?://[^\\s/?#]",
      error: "url must be an absolute http(s) URL of at most 2,048 characters",
      description:
        "an absolute http(s) URL whose host is or resolves to a public address (unless the server allows private ones), at most 2,048 characters",
    }),
    format: t.Optional(
      t.UnionEnum([...WEBHOOK_FORMATS], {
        error: "format must be standard, slack or discord",
        description: "standard (default), slack or discord",
      }),
    ),
  },
  { additionalProperties: UnknownField },
);

export const DELIVERY_STATUSES = ["pending", "succeeded", "failed"] as const;

/** One delivery of a webhook: one event, with its attempts (retries and replays keep its id, the `webhook-id`). */
export const DeliverySchema = t.Object({
  id: t.String({ description: "the delivery's webhook-id (msg_…), the same on every retry and replay" }),
  status: t.Unsafe<(typeof DELIVERY_STATUSES)[number]>({ type: "string", enum: [...DELIVERY_STATUSES] }),
  attempts: t.Unsafe<number>({ type: "integer", minimum: 0 }),
  lastStatus: t.Nullable(t.Unsafe<number>({ type: "integer", description: "the receiver's last HTTP status" })),
  lastError: t.Nullable(t.String()),
  createdAt: timestamp,
  nextAttemptAt: t.Nullable(timestamp),
});
export type DeliveryJson = Static<typeof DeliverySchema>;
export const DeliveryListSchema = t.Array(DeliverySchema);

export const toWebhookJson = (w: Webhook): WebhookJson => ({
  id: w.id,
  formId: w.formId,
  url: w.url,
  format: w.format,
  enabled: w.enabled,
  disabledReason: w.disabledReason,
  createdAt: w.createdAt,
});

export const toCreatedWebhookJson = (w: Webhook): CreatedWebhookJson => ({ ...toWebhookJson(w), secret: w.secret });

export function toDeliveryJson(row: OutboxRow & { total_attempts?: number }): DeliveryJson {
  const pending = row.status === "pending" || row.status === "sending";
  return {
    id: row.message_id!,
    status: pending ? "pending" : row.status === "sent" ? "succeeded" : "failed",
    attempts: row.total_attempts ?? row.attempts,
    lastStatus: row.last_status,
    lastError: row.last_error,
    createdAt: row.created_at,
    nextAttemptAt: pending ? row.next_attempt_at : null,
  };
}
