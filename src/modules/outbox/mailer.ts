import type { ConnectionOptions } from "node:tls";
import type { Channel, Failure } from "./channel";
import type { MailMessage } from "./message";
import { rawMessage } from "./raw-message";
import type { ClaimedRow } from "./repo";
import { createSmtpClient } from "./smtp-client";

/** Sends mail; the one seam between the outbox and the outside world. */
export interface Mailer {
  send(message: MailMessage): Promise<{ response: string }>;
  close(): void;
}

/**
 * SMTP through our own client (`smtp-client.ts`: 4 persistent connections, pipelined commands, the
 * message written by `raw-message.ts` in one write): smtp://user:pass@host:587 (STARTTLS when the
 * server offers it), smtps:// for TLS from the start. `tls` adds TLS settings (a test's certificate
 * authority). nodemailer (pooled transport and composer) sent under 1,000 emails/s where this sends
 * several thousand: bench/RESULTS.md, "Issue 44: one mail path".
 */
export function createSmtpMailer(url: URL, from: string, tls?: ConnectionOptions): Mailer {
  const client = createSmtpClient({
    host: url.hostname.replace(/^\[(.*)\]$/, "$1"),
    port: Number(url.port) || (url.protocol === "smtps:" ? 465 : 587),
    secure: url.protocol === "smtps:",
    auth: url.username ? { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } : undefined,
    tls,
  });
  return {
    async send(m) {
      const { envelope, raw } = rawMessage(m, from);
      return client.send(envelope, raw);
    },
    close: () => client.close(),
  };
}

/** A sentence for an SMTP failure: wrong host, refused connection, authentication, TLS. */
export function describeMailError(e: unknown): string {
  const err = e as { code?: string; responseCode?: number; response?: string; message?: string };
  const base = err.response ?? err.message ?? String(e);
  switch (err.code) {
    case "EDNS":
      return `SMTP host not found: ${base}`;
    case "ESOCKET":
    case "ECONNECTION":
      return `could not connect to the SMTP server: ${base}`;
    case "ETIMEDOUT":
      return `the SMTP server did not answer in time: ${base}`;
    case "EAUTH":
      return `the SMTP server refused the login: ${base}`;
    case "ETLS":
      return `TLS with the SMTP server failed: ${base}`;
    default:
      return err.responseCode ? `the SMTP server answered ${err.responseCode}: ${base}` : base;
  }
}

/**
 * A kind of mail as an outbox channel: `render` turns a row into its message, the mailer sends it.
 * Waits (not ready) while SMTP is not configured, or while `ready` says so.
 */
export function mailChannel(
  mailer: Mailer | null,
  render: (row: ClaimedRow) => MailMessage | Promise<MailMessage>,
  retryIn: (row: ClaimedRow, failure: Failure, now: number) => number | null,
  ready: () => boolean = () => true,
): Channel {
  return {
    transport: "smtp",
    ready: () => mailer !== null && ready(),
    async attempt(row) {
      const message = await render(row);
      try {
        const { response } = await mailer!.send(message);
        return { ok: true, statusCode: Number(/^\d{3}/.exec(response)?.[0]) || null };
      } catch (e) {
        return {
          ok: false,
          statusCode: (e as { responseCode?: number }).responseCode ?? null,
          error: describeMailError(e),
        };
      }
    },
    retryIn,
  };
}
