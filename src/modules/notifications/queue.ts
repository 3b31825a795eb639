import { isoTime, type Clock } from "../../lib/clock";
import type { Form } from "../forms/model";
import { droppedRedirectOf } from "../submissions/allowed-origin";
import type { NewSubmission } from "../submissions/model";
import { subjectOf } from "../submissions/request";
import { editedOf } from "../submissions/edit-link";
import type { OutboxRepo, QueuedMessage } from "../outbox/repo";
import type { MemberNotificationsRepo, MemberReader } from "./member-repo";

/** An inbox submission to a form whose owner asked to be emailed about each one (spam never is; a daily form's come in its digest). */
export const wantsNotification = (s: NewSubmission) =>
  s.status === "inbox" && s.form.emailEnabled && s.form.developerNotifications && s.form.notifyMode === "each";

/** What a notification row carries besides the submission: how it is worded, as the form said when it was queued. */
export interface NotificationPayload {
  template: Form["notificationTemplate"];
  /** The page's `_subject`, ahead of the template's. */
  subject: string | null;
  fromName: string | null;
  /** The IANA zone its reader reads times in (left out by earlier versions: UTC). */
  timeZone?: string;
  /** The form's field labels when it was queued (left out by earlier versions). */
  labels?: FieldLabels;
  /** The submission in the dashboard; left out without FORMSVC_PUBLIC_URL. */
  link?: string;
  /** A redirect target the post named and was not allowed: the email tells the owner (left out when none). */
  droppedRedirect?: string;
  /** The submission's PDF goes with it (attachments.ts; left out when not). */
  attachPdf?: true;
  /** Its uploaded files go with it, whole, up to this many bytes in all (left out when none). */
  attachFilesUpTo?: number;
  /** Its submitter changed it (editableDays): the revision that keeps the earlier values (left out for a new one). */
  edited?: number;
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

/** Who reads an owner notification or digest: the address, and the zone its times are written in. */
export interface Reader {
  email: string;
  timeZone: string;
}

/**
 * Who hears of a form's submissions (or a day's): its confirmed recipients, and each member of its
 * team who wants to (their choice, else their role's default), one email per address. A member
 * reads times in their own zone, also where their address is a recipient; a recipient who is no
 * member reads them in the zone of the form's creator (`creatorZone`, asked only then), else UTC.
 */
export async function readersOf(
  form: Form,
  members: MemberReader[],
  creatorZone: (ownerId: string) => Promise<string | null>,
): Promise<Reader[]> {
  const byEmail = new Map(members.map((m) => [m.email, m]));
  let creator: string | undefined;
  const outsiderZone = async () =>
    (creator ??=
      members.find((m) => m.ownerId === form.ownerId)?.timeZone ?? (await creatorZone(form.ownerId)) ?? "UTC");
  const readers = new Map<string, Reader>();
  for (const { email, confirmed } of form.recipients) {
    if (!confirmed || readers.has(email)) continue;
    readers.set(email, { email, timeZone: byEmail.get(email)?.timeZone ?? (await outsiderZone()) });
  }
  for (const m of members) if (m.notify && !readers.has(m.email)) readers.set(m.email, m);
  return [...readers.values()].map(({ email, timeZone }) => ({ email, timeZone }));
}

/**
 * The submit pipeline's writer of owner notifications: one outbox row per submission that asks for
 * an email and per reader (readersOf; each retried on its own: one inbox refusing does not resend
 * the others), inside the batch's transaction. The members of all the batch's forms are read in one
 * statement, which keeps the submit path's cost where it was. A row is queued (and its retry horizon
 * starts) now, also for a submission moved out of spam long after it arrived.
 */
export const queueNotifications =
  (repo: OutboxRepo, members: MemberNotificationsRepo, clock: Clock, publicUrl: string) =>
  async (batch: NewSubmission[]): Promise<number> => {
    const messages: QueuedMessage[] = [];
    const wanted = batch.filter(wantsNotification);
    if (!wanted.length) return 0;
    const membersOf = await members.readers([...new Set(wanted.map((s) => s.form.id))]);
    const readers = new Map<string, Reader[]>();
    const zoneOf = async (ownerId: string) => (await repo.ownerReader(ownerId))?.timeZone ?? null;
    let now: string | undefined;
    for (const s of wanted) {
      let formReaders = readers.get(s.form.id);
      if (!formReaders) {
        formReaders = await readersOf(s.form, membersOf.get(s.form.id)!, zoneOf);
        readers.set(s.form.id, formReaders);
      }
      if (!formReaders.length) continue;
      now ??= isoTime(clock.now());
      const inbox = dashboardLink(publicUrl, s.form.id);
      const dropped = droppedRedirectOf.get(s);
      const edited = editedOf.get(s);
      const payload: Omit<NotificationPayload, "timeZone"> = {
        template: s.form.notificationTemplate,
        subject: subjectOf.get(s) ?? null,
        fromName: s.form.fromName,
        labels: labelsOf(s.form),
        ...(inbox ? { link: `${inbox}/${encodeURIComponent(s.id)}` } : {}),
        ...(dropped !== undefined ? { droppedRedirect: dropped } : {}),
        ...(s.form.attachPdf ? { attachPdf: true } : {}),
        ...(s.form.attachFilesUpTo ? { attachFilesUpTo: s.form.attachFilesUpTo } : {}),
        ...(edited !== undefined ? { edited } : {}),
      };
      // One payload text per zone its readers read in (mostly one).
      const texts = new Map<string, string>();
      for (const { email, timeZone } of formReaders) {
        let text = texts.get(timeZone);
        if (text === undefined) texts.set(timeZone, (text = JSON.stringify({ ...payload, timeZone })));
        messages.push({
          kind: "notification",
          formId: s.form.id,
          submissionId: s.id,
          recipient: email,
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
