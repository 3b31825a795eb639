import type { Sql } from "../../db/sql";
import type { Webhook, WebhookFormat } from "./model";

interface Row {
  id: string;
  form_id: string;
  url: string;
  format: string;
  secret: string | null;
  enabled: number;
  disabled_reason: string | null;
  created_at: string;
}

const toWebhook = (r: Row): Webhook => ({
  id: r.id,
  formId: r.form_id,
  url: r.url,
  format: r.format as WebhookFormat,
  secret: r.secret,
  enabled: r.enabled === 1,
  disabledReason: r.disabled_reason,
  createdAt: r.created_at,
});

export function createWebhooksRepo(sql: Sql) {
  return {
    async insertWebhook(w: Webhook): Promise<void> {
      await sql.run(
        "INSERT INTO webhooks (id, form_id, url, format, secret, enabled, created_at) VALUES (?, ?, ?, ?, ?, 1, ?)",
        [w.id, w.formId, w.url, w.format, w.secret, w.createdAt],
      );
    },
    async findWebhookById(id: string): Promise<Webhook | null> {
      const r = await sql.get<Row>("SELECT * FROM webhooks WHERE id = ?", [id]);
      return r ? toWebhook(r) : null;
    },
    /** One form's webhooks (or every form's), oldest first. */
    async listWebhooks(formId: string | null): Promise<Webhook[]> {
      return (
        await sql.all<Row>(
          "SELECT * FROM webhooks WHERE CAST(?1 AS TEXT) IS NULL OR form_id = ?1 ORDER BY created_at, id",
          [formId],
        )
      ).map(toWebhook);
    },
    async deleteWebhook(id: string): Promise<void> {
      await sql.run("DELETE FROM webhooks WHERE id = ?", [id]);
    },
    /** Stops sending to a webhook (its receiver answered 410 Gone); its pending deliveries fail when their turn comes. */
    async disableWebhook(id: string, reason: string): Promise<void> {
      await sql.run("UPDATE webhooks SET enabled = 0, disabled_reason = ? WHERE id = ?", [reason, id]);
    },
  };
}

export type WebhooksRepo = ReturnType<typeof createWebhooksRepo>;
