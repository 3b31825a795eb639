import { isoTime, type Clock } from "../../lib/clock";
import { AppError } from "../../lib/errors";
import type { Actor } from "../../lib/principal";
import type { Form } from "../forms/model";
import { SETTINGS } from "../forms/settings";
import type { OutboxRow } from "../outbox/repo";
import type { StoredSubmission } from "../submissions/model";
import type { FileLinker } from "../files/model";
import { renderNotification } from "./message";
import type { NotificationPayload } from "./queue";

type Template = Form["notificationTemplate"];

/** The owner notification as it would be sent, and which submission it was rendered from (null: a sample). */
export interface NotificationPreview {
  subject: string;
  text: string;
  html: string;
  submissionId: string | null;
}

// A sample value per field type, so a form without submissions still previews every placeholder.
const SAMPLE_BY_TYPE: Record<string, unknown> = {
  email: "ada@example.com",
  url: "https://example.com",
  tel: "+44 20 7946 0000",
  number: 42,
  date: "2024-12-10",
  checkbox: true,
  textarea: "Hello! Could you tell me more about your pricing for teams?",
};
const SAMPLE_FIELDS = { name: "Ada Lovelace", email: "ada@example.com", message: "Hello! Could you tell me more?" };
const SAMPLE_META = { browser: "Firefox", browserVersion: "132.0", os: "macOS", osVersion: "14.1", device: "desktop" };

/** A stand-in submission built from the form's field list (or a contact form's usual fields). */
function sampleData(form: Form): Record<string, unknown> {
  if (!form.fields) return { ...SAMPLE_FIELDS, _meta: { ...SAMPLE_META, country: "GB" } };
  const data: Record<string, unknown> = {};
  for (const f of form.fields) {
    if (f.type === "file" || f.type === "hidden" || f.type === "page") continue;
    const option = f.options?.[0];
    data[f.name] =
      option !== undefined ? (f.multiple ? [option] : option) : (SAMPLE_BY_TYPE[f.type] ?? f.label ?? f.name);
  }
  return { ...data, _meta: { ...SAMPLE_META, country: "GB" } };
}

/**
 * The form's owner notification rendered by the sender's own renderNotification, so the preview
 * cannot drift from what is sent: from the form's latest inbox submission (or a sample), with
 * `template` when given (not yet saved: checked as the setting is, a 400 that says where), else
 * the form's saved one.
 */
export function createNotificationPreview(deps: {
  formFor: (actor: Actor, formId: string) => Promise<Form>;
  latestSubmission: (formId: string) => Promise<StoredSubmission | null>;
  clock: Clock;
  /** The senders' signed file links, so a preview's links are what would be sent. */
  link?: FileLinker;
}) {
  return {
    /** The notification of `formId` as its recipients would get it; 404/403 as Get Form. */
    async previewNotification(actor: Actor, formId: string, template?: Template): Promise<NotificationPreview> {
      if (template !== undefined) {
        const problem = SETTINGS.notificationTemplate.check?.(template as never);
        if (problem) throw new AppError("INVALID_PARAMETER", problem);
      }
      const form = await deps.formFor(actor, formId);
      const latest = await deps.latestSubmission(form.id);
      const now = isoTime(deps.clock.now());
      const payload: NotificationPayload = {
        template: template === undefined ? form.notificationTemplate : template,
        subject: null,
        fromName: form.fromName,
      };
      const row: OutboxRow = {
        id: 0,
        kind: "notification",
        form_id: form.id,
        submission_id: latest?.id ?? "sub_sample",
        webhook_id: null,
        message_id: null,
        recipient: "",
        reply_to: latest?.email ?? null,
        form_name: form.name,
        data: latest?.data ?? JSON.stringify(sampleData(form)),
        payload: JSON.stringify(payload),
        submitted_at: latest?.createdAt ?? now,
        created_at: now,
        queued_at: now,
        status: "pending",
        attempts: 0,
        next_attempt_at: now,
        last_status: null,
        last_error: null,
        sent_at: null,
      };
      const { subject, text, html } = renderNotification(row, deps.link);
      return { subject, text, html, submissionId: latest?.id ?? null };
    },
  };
}

export type NotificationPreviews = ReturnType<typeof createNotificationPreview>;
