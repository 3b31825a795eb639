import { isoTime, utcDay, type Clock } from "../../lib/clock";
import type { Operator } from "../../lib/principal";
import { escapeHtml } from "../../lib/template";
import type { Form } from "../forms/model";
import { oneLine, type MailMessage } from "../outbox/message";
import type { OutboxRepo, OutboxRow } from "../outbox/repo";
import type { DigestRepo } from "./digest-repo";
import { recipientsOf } from "./queue";

const DAY_MS = 24 * 60 * 60 * 1000;

/** What a digest's outbox row carries (as its payload): the day, and each listed submission's time and link. */
export interface DigestPayload {
  digest: {
    day: string;
    total: number;
    items: { id: string; at: string; url: string | null }[];
    /** The form's submissions in the dashboard; null without FORMSVC_PUBLIC_URL. */
    inbox: string | null;
  };
  fromName: string | null;
}

/**
 * A submission's page in the dashboard (and the form's inbox without `submissionId`); null without a
 * public URL. A real path, not the app's `#` route: some mail clients drop a link's fragment.
 */
export function dashboardLink(publicUrl: string, formId: string, submissionId?: string): string | null {
  if (!publicUrl) return null;
  const parts = ["forms", formId, "submissions", ...(submissionId ? [submissionId] : [])];
  return `${publicUrl.replace(/\/$/, "")}/dashboard/${parts.map(encodeURIComponent).join("/")}`;
}

/**
 * The daily digest (`notifyMode: daily`): for each such form that wants owner email and had
 * non-spam submissions on a UTC day, one outbox row per recipient (as each-mode's), queued with
 * the (form, day) mark in one transaction, so a second run or another instance queues nothing.
 */
export function createDigests(deps: {
  repo: DigestRepo;
  outbox: OutboxRepo;
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
        const { items, total } = await repo.submissionsBetween(form.id, from, to);
        if (total === 0) continue;
        const recipients = recipientsOf(form, await outbox.ownerEmail(form.ownerId));
        if (!recipients.length) continue;
        const payload: DigestPayload = {
          digest: {
            day,
            total,
            items: items.map((s) => ({
              id: s.id,
              at: s.created_at,
              url: dashboardLink(deps.publicUrl, form.id, s.id),
            })),
            inbox: dashboardLink(deps.publicUrl, form.id),
          },
          fromName: form.fromName,
        };
        const now = isoTime(clock.now());
        queued += await deps.atomically(async () => {
          if (!(await repo.take(form.id, day, total, now))) return 0;
          for (const recipient of recipients)
            await outbox.insert({
              kind: "notification",
              formId: form.id,
              submissionId: null,
              recipient,
              formName: form.name,
              data: "{}",
              payload: JSON.stringify(payload),
              submittedAt: from,
              createdAt: now,
            });
          return recipients.length;
        });
      }
      if (queued) deps.sendSoon(queued);
      return queued;
    },
  };
}

export type Digests = ReturnType<typeof createDigests>;

/** A digest's email: the day's count, then each listed submission's time (UTC) and dashboard link. */
export function renderDigest(row: OutboxRow, p: DigestPayload): MailMessage {
  const { day, total, items, inbox } = p.digest;
  const name = oneLine(row.form_name);
  const subject = `${name}: ${total} new submission${total === 1 ? "" : "s"} on ${day}`;
  const time = (at: string) => `${at.slice(11, 19)} UTC`;
  const more = total > items.length ? total - items.length : 0;
  const text = [
    `${total} new submission${total === 1 ? "" : "s"} to ${name} on ${day} (UTC):`,
    "",
    ...items.map((s) => `${time(s.at)}  ${s.id}${s.url ? `  ${s.url}` : ""}`),
    ...(more ? ["", `… and ${more} more${inbox ? `: ${inbox}` : ""}`] : []),
  ].join("\n");
  const link = (url: string | null, label: string) =>
    url ? `<a href="${escapeHtml(url)}">${escapeHtml(label)}</a>` : escapeHtml(label);
  const html = [
    `<!doctype html><html><body style="font-family:sans-serif">`,
    `<h2>${escapeHtml(subject)}</h2>`,
    `<table cellpadding="4">${items.map((s) => `<tr><td>${escapeHtml(time(s.at))}</td><td>${link(s.url, s.id)}</td></tr>`).join("")}</table>`,
    ...(more ? [`<p>… and ${more} more${inbox ? `: ${link(inbox, "all submissions")}` : ""}</p>`] : []),
    `</body></html>`,
  ].join("\n");
  return { to: row.recipient, subject, text, html, ...(p.fromName ? { fromName: p.fromName } : {}) };
}
