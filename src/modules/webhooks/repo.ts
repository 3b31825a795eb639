import type { Database } from "bun:sqlite";
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

export function createWebhooksRepo(db: Database) {
  const enabledOfForm = db.prepare<{ id: string; url: string }, [string]>("SELECT id, url FROM webhooks WHERE form_id = ? AND enabled = 1 ORDER BY created_at, id");
  return {
    insertWebhook(w: Webhook): void {
      db.query("INSERT INTO webhooks (id, form_id, url, format, secret, enabled, created_at) VALUES (?, ?, ?, ?, ?, 1, ?)").run(w.id, w.formId, w.url, w.format, w.secret, w.createdAt);
    },
    findWebhookById(id: string): Webhook | null {
      const r = db.query<Row, [string]>("SELECT * FROM webhooks WHERE id = ?").get(id);
      return r ? toWebhook(r) : null;
    },
    /** One form's webhooks (or every form's), oldest first. */
    listWebhooks(formId: string | null): Webhook[] {
      return db.query<Row, [string | null]>("SELECT * FROM webhooks WHERE ?1 IS NULL OR form_id = ?1 ORDER BY created_at, id").all(formId).map(toWebhook);
    },
    /** The webhooks a new event of this form goes to; read inside the submission's transaction. */
    enabledWebhooksOfForm: (formId: string) => enabledOfForm.all(formId),
    deleteWebhook(id: string): void {
      db.query("DELETE FROM webhooks WHERE id = ?").run(id);
    },
    /** Stops sending to a webhook (its receiver answered 410 Gone); its pending deliveries fail when their turn comes. */
    disableWebhook(id: string, reason: string): void {
      db.query("UPDATE webhooks SET enabled = 0, disabled_reason = ? WHERE id = ?").run(reason, id);
    },
  };
}

export type WebhooksRepo = ReturnType<typeof createWebhooksRepo>;
