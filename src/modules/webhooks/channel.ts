import { isoTime } from "../../lib/clock";
import { oneLine } from "../outbox/message";
import type { Channel } from "../outbox/channel";
import type { HttpAnswer, HttpSender } from "../outbox/http-sender";
import type { WebhookFormat } from "./model";
import type { FileLinker } from "../files/model";
import { webhookBody } from "./payload";
import type { WebhooksRepo } from "./repo";
import { signatureHeaders } from "./signature";

/** The delays after the first attempt, in seconds (the contract's schedule); then the delivery has failed. */
export const RETRY_SCHEDULE_S = [5, 300, 1800, 7200, 18_000, 36_000, 50_400, 72_000, 86_400];
const MAX_RETRY_AFTER_MS = 24 * 60 * 60 * 1000;

/** Retry-After in milliseconds from now: delay-seconds or an HTTP date; null when absent or unreadable. */
export function retryAfterMs(value: string | null, now: number): number | null {
  if (value === null) return null;
  const ms = /^\s*\d+\s*$/.test(value) ? Number(value) * 1000 : Date.parse(value) - now;
  return Number.isFinite(ms) ? Math.min(MAX_RETRY_AFTER_MS, Math.max(0, ms)) : null;
}

/** One line for a receiver's answer that is not a success. */
function describeAnswer(a: HttpAnswer): string {
  if (a.status >= 300 && a.status < 400) {
    let where = "";
    try {
      where = a.location ? ` to ${new URL(a.location, "http://x").host}` : "";
    } catch {}
    return `HTTP ${a.status}: a redirect${where}, not followed (give the webhook its final URL)`;
  }
  const body = oneLine(a.body).slice(0, 200);
  return `HTTP ${a.status}${body ? `: ${body}` : ""}`;
}

export interface WebhookChannelDeps {
  sender: HttpSender;
  repo: WebhooksRepo;
  /** FORMSVC_WEBHOOK_RETRY_SCALE: multiplies every delay of the schedule. */
  retryScale: number;
  /** Signed links to a submission's files, put beside each file entry of the payload. */
  link?: FileLinker;
  /** Wall time for `webhook-timestamp` (receivers compare it with their own clock). */
  now?: () => number;
}

/**
 * Webhook deliveries as an outbox channel: the body for the webhook's format, signed per the
 * Standard Webhooks spec for `standard`, POSTed through the HTTP sender (10 s, no redirects, public
 * addresses only). A 2xx is success; a 410 disables the webhook and fails the delivery; a 429's
 * Retry-After is waited at least; anything else is retried on the schedule, with ±10 % jitter.
 */
export function webhookChannel({ sender, repo, retryScale, link, now = Date.now }: WebhookChannelDeps): Channel {
  return {
    transport: "http",
    ready: () => true,
    async attempt(row) {
      if (row.webhook_url === null || row.webhook_enabled === null)
        return { ok: false, statusCode: null, error: "the webhook was removed", final: true };
      if (row.webhook_enabled !== 1)
        return { ok: false, statusCode: null, error: "the webhook is disabled", final: true };
      const format = row.webhook_format as WebhookFormat;
      const body = webhookBody(row, format, link);
      const headers =
        format === "standard" && row.webhook_secret
          ? signatureHeaders(row.webhook_secret, row.message_id!, Math.floor(now() / 1000), body)
          : {};
      const answer = await sender.post({ url: row.webhook_url, headers, body });
      if (answer.status >= 200 && answer.status < 300) return { ok: true, statusCode: answer.status };
      const error = describeAnswer(answer);
      if (answer.status === 410) {
        await repo.disableWebhook(row.webhook_id!, `the receiver answered 410 Gone at ${isoTime(now())}`);
        return {
          ok: false,
          statusCode: 410,
          error: `${error} (webhook disabled)`,
          final: true,
          logged: "HTTP 410 (webhook disabled)",
        };
      }
      const wait = answer.status === 429 ? retryAfterMs(answer.retryAfter, now()) : null;
      return {
        ok: false,
        statusCode: answer.status,
        error,
        logged: `HTTP ${answer.status}`,
        ...(wait !== null ? { retryAfterMs: wait } : {}),
      };
    },
    retryIn(row, failure) {
      const seconds = RETRY_SCHEDULE_S[row.attempts];
      if (seconds === undefined) return null;
      const jitter = 0.9 + Math.random() * 0.2;
      return Math.max(seconds * 1000 * retryScale * jitter, failure.retryAfterMs ?? 0);
    },
  };
}
