import { isoTime, type Clock } from "../../lib/clock";
import type { Form } from "../forms/model";
import { droppedRedirectOf } from "../submissions/allowed-origin";
import type { NewSubmission } from "../submissions/model";
import { subjectOf } from "../submissions/request";
import type { OutboxRepo, QueuedMessage } from "../outbox/repo";

/** An inbox submission to a form whose owner asked to be emailed about each one (spam never is; a daily form's come in its digest). */
export const wantsNotification = (s: NewSubmission) =>
  s.status === "inbox" && s.form.emailEnabled && s.form.developerNotifications && s.form.notifyMode === "each";

/** What a notification row carries besides the submission: how it is worded, as the form said when it was queued. */
export interface NotificationPayload {
  template: Form["notificationTemplate"];
  /** The page's `_subject`, ahead of the template's. */
  subject: string | null;
  fromName: string | null;
  /** The IANA zone the owner reads times in (left out by earlier versions: UTC). */
  timeZone?: string;
  /** The form's field labels when it was queued (left out by earlier versions). */
  labels?: FieldLabels;
  /** The submission in the dashboard; left out without FORMSVC_PUBLIC_URL. */
  link?: string;
  /** A redirect target the post named and was not allowed: the email tells the owner (left out when none). */
  droppedRedirect?: string;
}

/** A form's fields that have a label, as an email names them. */
export type FieldLabels = { name: string; label: string }[];

export const labelsOf = (form: Form): FieldLabels =>
  (form.fields ?? []).flatMap((f) => (f.label ? [{ name: f.name, label: f.label }] : []));

/**
 * A form's submissions in the dashboard (a submission's page is this and `/<submissionId>`); null
 * without a public URL. A real path, not the app's `#` route: some mail clients drop a link's fragment.
 */
export function dashboardLink(publicUrl: string, formId: string): string | null {
  if (!publicUrl) return null;
  return `${publicUrl.replace(/\/$/, "")}/dashboard/forms/${encodeURIComponent(formId)}/submissions`;
}

/** Who hears of a submission (or a day's): every confirmed recipient, else the owner. */
export const recipientsOf = (form: Form, owner: string | null | undefined): string[] => {
  const confirmed = form.recipients.filter((r) => r.confirmed).map((r) => r.email);
  return confirmed.length ? confirmed : owner ? [owner] : [];
};

/**
 * The submit pipeline's writer of owner notifications: one outbox row per submission that asks for
 * an email and per recipient (each retried on its own: one inbox refusing does not resend the
 * others), inside the batch's transaction. A row is queued (and its retry horizon starts) now,
 * also for a submission moved out of spam long after it arrived.
 */
export const queueNotifications =
  (repo: OutboxRepo, clock: Clock, publicUrl: string) =>
  async (batch: NewSubmission[]): Promise<number> => {
    const messages: QueuedMessage[] = [];
    const owners = new Map<string, { email: string; timeZone: string } | null>();
    let now: string | undefined;
    for (const s of batch) {
      if (!wantsNotification(s)) continue;
      if (!owners.has(s.form.ownerId)) owners.set(s.form.ownerId, await repo.ownerReader(s.form.ownerId));
      const owner = owners.get(s.form.ownerId);
      const recipients = recipientsOf(s.form, owner?.email);
      if (!recipients.length) continue;
      now ??= isoTime(clock.now());
      const inbox = dashboardLink(publicUrl, s.form.id);
      const dropped = droppedRedirectOf.get(s);
      const payload: NotificationPayload = {
        template: s.form.notificationTemplate,
        subject: subjectOf.get(s) ?? null,
        fromName: s.form.fromName,
        timeZone: owner?.timeZone ?? "UTC",
        labels: labelsOf(s.form),
        ...(inbox ? { link: `${inbox}/${encodeURIComponent(s.id)}` } : {}),
        ...(dropped !== undefined ? { droppedRedirect: dropped } : {}),
      };
      const text = JSON.stringify(payload);
      for (const recipient of recipients) {
        messages.push({
          kind: "notification",
          formId: s.form.id,
          submissionId: s.id,
          recipient,
          replyTo: s.email,
          formName: s.form.name,
          data: s.json,
          payload: text,
          submittedAt: s.createdAt,
          createdAt: now,
        });
      }
    }
    await repo.insertAll(messages);
    return messages.length;
  };
