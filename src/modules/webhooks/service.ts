import { isoTime, type Clock } from "../../lib/clock";
import { AppError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { isOperator, type Actor } from "../../lib/principal";
import { InternalAddressError } from "../../lib/public-address";
import type { Form } from "../forms/model";
import type { FormsService } from "../forms/service";
import type { ClaimedRow, OutboxRepo } from "../outbox/repo";
import { isWebhookKind } from "../outbox/kinds";
import { toDeliveryJson, WEBHOOK_FORMATS, type DeliveryJson, type Webhook, type WebhookFormat } from "./model";
import type { WebhooksRepo } from "./repo";
import { newWebhookSecret } from "./signature";

export interface WebhooksDeps {
  repo: WebhooksRepo;
  outbox: OutboxRepo;
  forms: FormsService;
  clock: Clock;
  /** Throws when a URL may not be sent to (an internal address without FORMSVC_WEBHOOK_ALLOW_PRIVATE, a name that does not resolve). */
  checkUrl(url: URL): Promise<void>;
  /** Sends a claimed outbox row once and records the attempt (the outbox's own `sendOnce`): `test` goes exactly the way of deliveries. */
  sendOnce(row: ClaimedRow): Promise<boolean>;
}

const MAX_WEBHOOKS_PER_FORM = 20;

export function createWebhooksService({ repo, outbox, forms, clock, checkUrl, sendOnce }: WebhooksDeps) {
  /** The webhook `actor` may manage: 404 when there is none, then the actor's right to its form (403, KEY_SCOPE). */
  const webhookFor = async (actor: Actor, id: string): Promise<Webhook> => {
    const hook = await repo.findWebhookById(id);
    if (!hook) throw new AppError("NOT_FOUND", `no webhook with id ${id}`);
    await forms.formFor(actor, hook.formId);
    return hook;
  };

  /** A delivery by its id (the webhook-id), as `actor` may see it. */
  const deliveryFor = async (actor: Actor, id: string) => {
    const row = await outbox.findByMessageId(id);
    if (!row || !isWebhookKind(row.kind) || !row.webhook_id)
      throw new AppError("NOT_FOUND", `no delivery with id ${id}`);
    return { row, hook: await webhookFor(actor, row.webhook_id) };
  };

  const refuseDisabled = (hook: Webhook) => {
    if (!hook.enabled)
      throw new AppError(
        "CONFLICT",
        `webhook ${hook.id} is disabled (${hook.disabledReason ?? "by its receiver"}); remove it and add it again`,
      );
  };

  const deliveryJson = async (id: number) =>
    toDeliveryJson({ ...(await outbox.findById(id))!, total_attempts: (await outbox.attemptsOf(id)).length });

  return {
    /**
     * Adds a webhook to a form. The URL must be http(s) and, unless private addresses are allowed,
     * resolve only to public ones (checked again at every delivery). A `standard` webhook gets its
     * signing secret, returned here.
     */
    async addWebhook(actor: Actor, formId: string, input: { url: string; format?: string }): Promise<Webhook> {
      const form: Form = await forms.formFor(actor, formId);
      const format = (input.format ?? "standard") as WebhookFormat;
      if (!WEBHOOK_FORMATS.includes(format))
        throw new AppError("INVALID_PARAMETER", `format must be one of ${WEBHOOK_FORMATS.join(", ")}`);
      let url: URL;
      try {
        url = new URL(input.url.trim());
      } catch {
        throw new AppError("INVALID_PARAMETER", "url must be an absolute http(s) URL");
      }
      if (url.protocol !== "http:" && url.protocol !== "https:")
        throw new AppError("INVALID_PARAMETER", "url must start with http:// or https://");
      if (url.href.length > 2048) throw new AppError("INVALID_PARAMETER", "url must be at most 2,048 characters");
      try {
        await checkUrl(url);
      } catch (e) {
        if (e instanceof InternalAddressError) throw new AppError("INVALID_PARAMETER", `url refused: ${e.message}`);
        throw new AppError(
          "INVALID_PARAMETER",
          `url refused: ${url.hostname} could not be resolved (${(e as Error).message})`,
        );
      }
      if ((await repo.listWebhooks(form.id)).length >= MAX_WEBHOOKS_PER_FORM)
        throw new AppError("CONFLICT", `a form has at most ${MAX_WEBHOOKS_PER_FORM} webhooks`);
      const hook: Webhook = {
        id: newId("whk"),
        formId: form.id,
        url: url.href,
        format,
        secret: format === "standard" ? newWebhookSecret() : null,
        enabled: true,
        disabledReason: null,
        createdAt: isoTime(clock.now()),
      };
      await repo.insertWebhook(hook);
      return hook;
    },

    /** A form's webhooks (every form's for the operator without a form), oldest first. */
    async listWebhooks(actor: Actor, formId: string | null): Promise<Webhook[]> {
      if (formId === null && !isOperator(actor))
        throw new AppError("INVALID_PARAMETER", "name the form whose webhooks to list");
      return repo.listWebhooks(formId === null ? null : (await forms.formFor(actor, formId)).id);
    },

    /** Removes a webhook with its deliveries (pending ones are not sent). */
    async removeWebhook(actor: Actor, id: string): Promise<Webhook> {
      const hook = await webhookFor(actor, id);
      await repo.deleteWebhook(id);
      return hook;
    },

    /** A webhook's deliveries, newest first. */
    async deliveries(actor: Actor, webhookId: string, limit: number): Promise<DeliveryJson[]> {
      const hook = await webhookFor(actor, webhookId);
      return (await outbox.listByWebhook(hook.id, limit)).map(toDeliveryJson);
    },

    /** Sends a delivery again, with the same webhook-id and body: pending and due now, on a fresh schedule. */
    async replay(actor: Actor, deliveryId: string): Promise<DeliveryJson> {
      const { row, hook } = await deliveryFor(actor, deliveryId);
      refuseDisabled(hook);
      if (row.status === "sending") throw new AppError("CONFLICT", `delivery ${deliveryId} is being sent right now`);
      await outbox.replay(row.id, isoTime(clock.now()));
      return deliveryJson(row.id);
    },

    /**
     * Sends a `webhook.test` event (or a test message, for Slack and Discord) now, through the same
     * channel as deliveries, and records it as a delivery that is not retried.
     */
    async testWebhook(actor: Actor, id: string): Promise<{ delivery: DeliveryJson; ok: boolean }> {
      const hook = await webhookFor(actor, id);
      refuseDisabled(hook);
      const form = await forms.requireForm(hook.formId);
      const at = isoTime(clock.now());
      const rowId = await outbox.insertSending({
        kind: "webhook",
        formId: form.id,
        submissionId: null,
        webhookId: hook.id,
        messageId: newId("msg"),
        recipient: hook.url,
        formName: form.name,
        data: "{}",
        submittedAt: at,
        createdAt: at,
      });
      const ok = await sendOnce((await outbox.findClaimedById(rowId))!);
      return { delivery: await deliveryJson(rowId), ok };
    },
  };
}

export type WebhooksService = ReturnType<typeof createWebhooksService>;
