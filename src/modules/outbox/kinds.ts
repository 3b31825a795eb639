import { renderPasswordReset } from "../accounts/reset-message";
import { renderConfirmation } from "../confirmations/message";
import { renderResumeLink } from "../dropin/resume-message";
import type { FileLinker } from "../files/model";
import { renderBackupAlert, renderWebhookAlert } from "../notifications/alerts";
import { renderAutoresponse } from "../notifications/autoresponse";
import { renderDigestMail } from "../notifications/digest";
import type { DigestSubmission } from "../notifications/digest-repo";
import type { NotificationAttachments } from "../notifications/attachments";
import { renderNotification } from "../notifications/message";
import { renderInvitation } from "../teams/invitation-message";
import { renderEditLink } from "../submissions/edit-link-message";
import { mailRetry, type Channel } from "./channel";
import { mailChannel, type Mailer } from "./mailer";
import type { MailMessage } from "./message";
import type { ClaimedRow } from "./repo";

/** What the kinds' channels are built from (services.ts has them). */
export interface KindDeps {
  /** null while FORMSVC_SMTP_URL is not set: mail waits. */
  mailer: Mailer | null;
  /** FORMSVC_PUBLIC_URL ("" when not set). */
  publicUrl: string;
  mailRetryBaseSeconds: number;
  mailRetryHours: number;
  fileLink: FileLinker;
  /** A digest's listed submissions as they are now. */
  listedSubmissions: (formId: string, ids: string[]) => Promise<DigestSubmission[]>;
  /** An owner notification's attachments, made as it is sent (notifications/attachments.ts). */
  notificationAttachments: NotificationAttachments;
  /** Webhook deliveries (webhooks/channel.ts: signed POSTs, retried on the webhook schedule). */
  webhook: Channel;
}

interface MailKind {
  transport: "smtp";
  render(row: ClaimedRow, deps: KindDeps): MailMessage | Promise<MailMessage>;
  /** Mail is retried with exponential backoff until FORMSVC_MAIL_RETRY_HOURS after it was queued. */
  retry: "mail";
  /** Sent right after a start (a restart is when an operator has fixed the mail settings), whatever its retry schedule said. */
  dueAtStart: boolean;
  /** Its links start with FORMSVC_PUBLIC_URL (never a request's Host): it waits until that is set. */
  needsPublicUrl?: boolean;
  /** Its payload holds a token, erased once the email is out (only its hash is kept elsewhere). */
  secretPayload?: boolean;
  /** Sent to the person who submitted (their erasure and export include it). */
  toSubmitter?: boolean;
}

interface HttpKind {
  transport: "http";
  /** The channel (its own retry schedule, in the channel's retryIn). */
  channel(deps: KindDeps): Channel;
  retry: "webhook";
  dueAtStart: boolean;
}

/**
 * Every kind of outbox row, one entry each: how it is rendered, by which transport it goes, how it
 * is retried, and whether a start makes it due. A new kind is an entry here and its renderer's
 * module; the database keeps no list of kinds. Mail kinds wait while SMTP is not configured.
 */
export const KINDS = {
  notification: {
    transport: "smtp",
    render: async (row, d) =>
      queuedBeforeKinds(row, d) ?? renderNotification(row, d.fileLink, await d.notificationAttachments(row)),
    retry: "mail",
    dueAtStart: true,
  },
  digest: {
    transport: "smtp",
    render: (row, d) => renderDigestMail(row, d.listedSubmissions),
    retry: "mail",
    dueAtStart: true,
  },
  autoresponse: { transport: "smtp", render: renderAutoresponse, retry: "mail", dueAtStart: true, toSubmitter: true },
  confirmation: {
    transport: "smtp",
    render: (row, d) => renderConfirmation(row, d.publicUrl),
    retry: "mail",
    dueAtStart: true,
    needsPublicUrl: true,
    secretPayload: true,
    toSubmitter: true,
  },
  // Webhooks keep their schedule at a start, so a restart does not send every receiver its whole backlog at once.
  webhook: { transport: "http", channel: (d) => d.webhook, retry: "webhook", dueAtStart: false },
  // `submission.updated`: the inbox's changes to a submission (webhooks/payload.ts), through the same channel.
  webhook_update: { transport: "http", channel: (d) => d.webhook, retry: "webhook", dueAtStart: false },
  password_reset: {
    transport: "smtp",
    render: (row, d) => renderPasswordReset(row, d.publicUrl),
    retry: "mail",
    dueAtStart: true,
    needsPublicUrl: true,
    secretPayload: true,
  },
  invitation: {
    transport: "smtp",
    render: (row, d) => renderInvitation(row, d.publicUrl),
    retry: "mail",
    dueAtStart: true,
    needsPublicUrl: true,
    secretPayload: true,
  },
  // A visitor's own link to a saved answer (dropin/partials.ts).
  resume_link: {
    transport: "smtp",
    render: (row, d) => renderResumeLink(row, d.publicUrl),
    retry: "mail",
    dueAtStart: true,
    needsPublicUrl: true,
    secretPayload: true,
    toSubmitter: true,
  },
  // A submission's edit link, asked for by its address when the form refused a second answer (editableDays).
  edit_link: {
    transport: "smtp",
    render: (row, d) => renderEditLink(row, d.publicUrl),
    retry: "mail",
    dueAtStart: true,
    needsPublicUrl: true,
    secretPayload: true,
    toSubmitter: true,
  },
  webhook_alert: { transport: "smtp", render: renderWebhookAlert, retry: "mail", dueAtStart: true },
  backup_alert: { transport: "smtp", render: renderBackupAlert, retry: "mail", dueAtStart: true },
} as const satisfies Record<string, MailKind | HttpKind>;

export type OutboxKind = keyof typeof KINDS;

/**
 * A digest or an alert that an instance of the previous version, still serving during a rolling
 * upgrade, queued as `notification` (as migration 026 found them), rendered as its own kind. A later
 * version drops this.
 */
function queuedBeforeKinds(row: ClaimedRow, d: KindDeps): MailMessage | Promise<MailMessage> | null {
  if (row.payload?.startsWith('{"digest":')) return renderDigestMail(row, d.listedSubmissions);
  if (row.payload?.startsWith('{"alert":'))
    return row.form_id === null ? renderBackupAlert(row) : renderWebhookAlert(row);
  return null;
}
export const OUTBOX_KINDS = Object.keys(KINDS) as OutboxKind[];

const kindsWhere = (test: (k: MailKind | HttpKind) => boolean | undefined) =>
  OUTBOX_KINDS.filter((k) => test(KINDS[k]));
export const DUE_AT_START = kindsWhere((k) => k.dueAtStart);
export const SECRET_PAYLOAD = kindsWhere((k) => "secretPayload" in k && k.secretPayload);
export const TO_SUBMITTER = kindsWhere((k) => "toSubmitter" in k && k.toSubmitter);

export const isOutboxKind = (s: string): s is OutboxKind => Object.hasOwn(KINDS, s);

/** Whether rows of this kind are webhook deliveries (sent over HTTP, listed and replayed as a webhook's). */
export const isWebhookKind = (kind: OutboxKind): boolean => KINDS[kind].transport === "http";

/** Each kind's channel, built from the registry. */
export function kindChannels(deps: KindDeps): Record<OutboxKind, Channel> {
  const retryMail = mailRetry(deps.mailRetryBaseSeconds, deps.mailRetryHours);
  const channel = (k: MailKind | HttpKind): Channel =>
    k.transport === "http"
      ? k.channel(deps)
      : mailChannel(
          deps.mailer,
          (row) => k.render(row, deps),
          retryMail,
          k.needsPublicUrl ? () => deps.publicUrl !== "" : undefined,
        );
  return Object.fromEntries(OUTBOX_KINDS.map((name) => [name, channel(KINDS[name])])) as Record<OutboxKind, Channel>;
}
