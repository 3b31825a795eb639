import { isoTime, utcDay, type Clock } from "../../lib/clock";
import type { Operator } from "../../lib/principal";
import { fieldLabel } from "../../lib/field-label";
import { peopleTime } from "../../lib/people-time";
import { display, escapeHtml } from "../../lib/template";
import { filesOf } from "../files/model";
import type { Form } from "../forms/model";
import { oneLine, type MailMessage } from "../outbox/message";
import type { OutboxRepo, OutboxRow } from "../outbox/repo";
import type { DigestRepo, DigestSubmission } from "./digest-repo";
import type { MemberNotificationsRepo } from "./member-repo";
import { dashboardLink, labelsOf, readersOf, type FieldLabels } from "./queue";

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * What a digest's outbox row carries (as its payload): the day and the ids it lists, no field values
 * (they are read when it is sent, see DigestRepo.listedSubmissions).
 */
export interface DigestPayload {
  digest: {
    day: string;
    total: number;
    /** The listed submissions, newest first. */
    ids: string[];
    /** The form's submissions in the dashboard; null without FORMSVC_PUBLIC_URL. */
    inbox: string | null;
    /** The form's field labels when it was queued. */
    labels: FieldLabels;
  };
  fromName: string | null;
  /** The IANA zone its reader reads times in (left out by earlier versions: UTC). */
  timeZone?: string;
}

/**
 * The daily digest (`notifyMode: daily`): for each such form that wants owner email and had
 * non-spam submissions on a UTC day, one outbox row per reader (as each-mode's: readersOf), queued with
 * the (form, day) mark in one transaction, so a second run or another instance queues nothing.
 */
export function createDigests(deps: {
  repo: DigestRepo;
  outbox: OutboxRepo;
  members: MemberNotificationsRepo;
  dailyForms: () => Promise<Form[]>;
  atomically: <T>(fn: () => Promise<T>) => Promise<T>;
  clock: Clock;
  publicUrl: string;
  /** Wakes the outbox once rows are queued. */
  sendSoon: (queued: number) => void;
}) {
  const { repo, outbox, clock } = deps;
  return {
    /** Queues the digests of `day` (YYYY-MM-DD; default the UTC day before the clock's); how many rows were queued. */
    async queueDigests(_actor: Operator, day: string = utcDay(clock.now() - DAY_MS)): Promise<number> {
      const from = `${day}T00:00:00.000Z`;
      const to = isoTime(Date.parse(from) + DAY_MS);
      let queued = 0;
      for (const form of await deps.dailyForms()) {
        if (!form.emailEnabled || !form.developerNotifications) continue;
        const { ids, total } = await repo.submissionsBetween(form.id, from, to);
        if (total === 0) continue;
        const readers = await readersOf(
          form,
          (await deps.members.readers([form.id])).get(form.id)!,
          async (ownerId) => (await outbox.ownerReader(ownerId))?.timeZone ?? null,
        );
        if (!readers.length) continue;
        const digest = { day, total, ids, inbox: dashboardLink(deps.publicUrl, form.id), labels: labelsOf(form) };
        const now = isoTime(clock.now());
        queued += await deps.atomically(async () => {
          if (!(await repo.take(form.id, day, total, now))) return 0;
          for (const { email, timeZone } of readers) {
            const payload: DigestPayload = { digest, fromName: form.fromName, timeZone };
            await outbox.insert({
              kind: "digest",
              formId: form.id,
              submissionId: null,
              recipient: email,
              formName: form.name,
              data: "{}",
              payload: JSON.stringify(payload),
              submittedAt: from,
              createdAt: now,
            });
          }
          return readers.length;
        });
      }
      if (queued) deps.sendSoon(queued);
      return queued;
    },
  };
}

export type Digests = ReturnType<typeof createDigests>;

// Bounds on a digest's size: at most DIGEST_MAX_LISTED submissions, each with this many fields, each cut.
const MAX_FIELDS = 10;
const MAX_VALUE = 200;
const MAX_LABEL = 100;

/** Text as one line of at most `max` characters, "…" where it was cut. */
function cut(text: string, max: number): string {
  const chars = Array.from(text.replace(/\s+/g, " ").trim());
  return chars.length > max ? `${chars.slice(0, max).join("")}…` : chars.join("");
}

/** A value as one line of at most MAX_VALUE characters (a file as its name). */
function digestValue(value: unknown): string {
  const files = filesOf(value);
  return cut(files ? files.map((f) => f.name).join(", ") : display(value), MAX_VALUE);
}

/** A listed submission's first MAX_FIELDS fields as people read them, and how many more it has. */
function digestFields(
  data: string,
  labels: DigestPayload["digest"]["labels"],
): { fields: [string, string][]; more: number } {
  const { _meta: _, ...values } = JSON.parse(data) as Record<string, unknown>;
  const all = Object.entries(values);
  return {
    fields: all.slice(0, MAX_FIELDS).map(([name, v]) => [cut(fieldLabel(name, labels), MAX_LABEL), digestValue(v)]),
    more: Math.max(0, all.length - MAX_FIELDS),
  };
}

/**
 * A digest's email: the day's count, then each listed submission (newest first) with its time (in the owner's zone),
 * dashboard link and fields, then how many more there were and the form's inbox. `listed` are the
 * payload's submissions as they are now (any order; one gone since is left out).
 */
export function renderDigest(row: OutboxRow, p: DigestPayload, listed: DigestSubmission[]): MailMessage {
  const { day, total, ids, inbox, labels } = p.digest;
  const byId = new Map(listed.map((s) => [s.id, s]));
  const items = ids.flatMap((id) => {
    const s = byId.get(id);
    return s
      ? [{ id, at: s.created_at, url: inbox && `${inbox}/${encodeURIComponent(id)}`, ...digestFields(s.data, labels) }]
      : [];
  });
  const name = oneLine(row.form_name);
  const subject = `${name}: ${total} new submission${total === 1 ? "" : "s"} on ${day}`;
  const time = (at: string) => peopleTime(at, p.timeZone);
  const more = total - ids.length;
  const moreFields = (n: number) => `… ${n} more field${n === 1 ? "" : "s"}`;
  const noLink =
    "Open the form's submissions in the dashboard to see them all (with FORMSVC_PUBLIC_URL set, this email links there).";
  const text = [
    `${total} new submission${total === 1 ? "" : "s"} to ${name} on ${day} (UTC), newest first:`,
    ...items.flatMap((s) => [
      "",
      `${time(s.at)}  ${s.id}${s.url ? `  ${s.url}` : ""}`,
      ...s.fields.map(([label, value]) => `  ${label}: ${value}`),
      ...(s.more ? [`  ${moreFields(s.more)}`] : []),
    ]),
    "",
    ...(more > 0 ? [`… and ${more} more.`] : []),
    inbox ? `All of this form's submissions: ${inbox}` : noLink,
  ].join("\n");
  const link = (url: string | null, label: string) =>
    url ? `<a href="${escapeHtml(url)}">${escapeHtml(label)}</a>` : escapeHtml(label);
  const html = [
    `<!doctype html><html><body style="font-family:sans-serif">`,
    `<h2>${escapeHtml(subject)}</h2>`,
    ...items.map((s) =>
      [
        `<p><b>${escapeHtml(time(s.at))}</b> ${link(s.url, s.id)}</p>`,
        `<table cellpadding="2">`,
        ...s.fields.map(
          ([label, value]) =>
            `<tr><th align="left" valign="top">${escapeHtml(label)}</th><td>${escapeHtml(value)}</td></tr>`,
        ),
        ...(s.more ? [`<tr><td colspan="2">${escapeHtml(moreFields(s.more))}</td></tr>`] : []),
        `</table>`,
      ].join(""),
    ),
    ...(more > 0 ? [`<p>… and ${more} more.</p>`] : []),
    `<p>${inbox ? link(inbox, "All of this form's submissions") : escapeHtml(noLink)}</p>`,
    `</body></html>`,
  ].join("\n");
  return { to: row.recipient, subject, text, html, ...(p.fromName ? { fromName: p.fromName } : {}) };
}

/** A `digest` row's email, with its listed submissions read now (see DigestRepo.listedSubmissions). */
export async function renderDigestMail(
  row: OutboxRow,
  listed: (formId: string, ids: string[]) => Promise<DigestSubmission[]>,
): Promise<MailMessage> {
  const p = JSON.parse(row.payload ?? "{}") as DigestPayload;
  // A digest queued before its payload named ids listed `items` (and no labels).
  const old = p.digest as { items?: { id: string }[] };
  p.digest.ids ??= old.items?.map((i) => i.id) ?? [];
  p.digest.labels ??= [];
  return renderDigest(row, p, await listed(row.form_id!, p.digest.ids));
}
