import { Readable } from "node:stream";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";
import type { ConnectionOptions } from "node:tls";
import type * as Nodemailer from "nodemailer";
import type { Channel, Failure } from "./channel";
import { oneLine, type MailMessage } from "./message";
import type { ClaimedRow } from "./repo";

/** Sends mail; the one seam between the outbox and the outside world. */
export interface Mailer {
  send(message: MailMessage): Promise<{ response: string }>;
  close(): void;
}

// nodemailer sends one command at a time per connection, so more connections hide the round trips:
// 16 sent the most here (4: ~680, 8: ~890, 16: ~1,200 emails/s; bench/RESULTS.md, "Issue 44: one
// mail path"). A relay that refuses some of them fails those messages, which the outbox retries.
const MAX_CONNECTIONS = 16;

/**
 * SMTP through nodemailer, the design card's mail library: its composer writes each message and its
 * pooled transport sends it (smtp://user:pass@host:587, STARTTLS when the server offers it; smtps://
 * for TLS from the start). `tls` adds TLS settings (a test's certificate authority). It carries the
 * AUTH methods, SMTPUTF8 and the edge cases a form backend should not own; its throughput on this
 * machine is in bench/RESULTS.md, "Issue 44: one mail path".
 */
export function createSmtpMailer(url: URL, from: string, tls?: ConnectionOptions): Mailer {
  // Loaded only when mail is configured: an instance without SMTP never pays its memory.
  const nodemailer = require("nodemailer") as typeof Nodemailer;
  const transport = nodemailer.createTransport({
    // Connections kept open for every message they carry (nodemailer's default closes one after 100
    // messages): a new connection is a greeting, EHLO, perhaps TLS and a login.
    pool: true,
    maxConnections: MAX_CONNECTIONS,
    maxMessages: Infinity,
    host: url.hostname.replace(/^\[(.*)\]$/, "$1"),
    port: Number(url.port) || (url.protocol === "smtps:" ? 465 : 587),
    secure: url.protocol === "smtps:",
    auth: url.username ? { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } : undefined,
    tls,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
  });
  // The address alone, for a message that names its own sender (nodemailer quotes or encodes the name).
  const address = /<([^<>]+)>\s*$/.exec(from)?.[1]?.trim() ?? from.trim();
  return {
    async send(m) {
      // A stored file's stream, read as nodemailer writes the message; closed however the sending ends.
      const streams: Readable[] = [];
      const content = (c: Uint8Array | ReadableStream<Uint8Array>) => {
        if (c instanceof Uint8Array) return Buffer.from(c.buffer, c.byteOffset, c.byteLength);
        const stream = Readable.fromWeb(c as unknown as NodeReadableStream<Uint8Array>);
        streams.push(stream);
        return stream;
      };
      const info = await transport
        .sendMail({
          from: m.fromName ? { name: oneLine(m.fromName), address } : from,
          to: m.to,
          replyTo: m.replyTo,
          // Anything that reaches a header loses control characters: a form name cannot start a new header.
          subject: oneLine(m.subject),
          text: m.text,
          html: m.html,
          headers: m.headers && Object.fromEntries(Object.entries(m.headers).map(([k, v]) => [k, oneLine(v)])),
          attachments: m.attachments?.map((a) => ({
            filename: oneLine(a.filename),
            content: content(a.content),
            contentType: a.contentType,
          })),
        })
        .finally(() => streams.forEach((s) => s.destroy()));
      return { response: String(info.response ?? "") };
    },
    close: () => transport.close(),
  };
}

/** A sentence for an SMTP failure: wrong host, refused connection, authentication, TLS. */
export function describeMailError(e: unknown): string {
  const err = e as { code?: string; originalCode?: string; responseCode?: number; response?: string; message?: string };
  const base = err.response ?? err.message ?? String(e);
  // nodemailer reports a certificate it cannot verify as a socket error; Node's code says it is TLS.
  const tls = err.code === "ESOCKET" && /CERT|SIGNATURE|ISSUER|TLS|SSL/.test(err.originalCode ?? "");
  switch (tls ? "ETLS" : err.code) {
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
