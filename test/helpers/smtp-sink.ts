import { simpleParser, type ParsedMail } from "mailparser";
import { createServer } from "node:net";
import { SMTPServer } from "smtp-server";

export interface SmtpSink {
  port: number;
  url: string;
  messages: ParsedMail[];
  /** While true, every recipient is refused with 550, the reply quoting the address as real servers do. */
  refuse: boolean;
  /** Waits (bounded) until at least `count` messages have arrived. */
  waitFor(count: number, timeoutMs?: number): Promise<ParsedMail[]>;
  close(): Promise<void>;
}

/** A port nobody listens on right now. */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, "127.0.0.1", r));
  const port = (probe.address() as { port: number }).port;
  await new Promise<void>((r) => probe.close(() => r()));
  return port;
}

/** A real SMTP server on loopback that keeps every message it accepts, parsed. */
export async function startSmtpSink(port = 0): Promise<SmtpSink> {
  const messages: ParsedMail[] = [];
  const sink = { refuse: false } as SmtpSink;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onRcptTo(address, _session, callback) {
      if (sink.refuse)
        return callback(
          Object.assign(new Error(`5.1.1 <${address.address}>: Recipient address rejected: mailbox unavailable`), {
            responseCode: 550,
          }),
        );
      callback();
    },
    onData(stream, _session, callback) {
      simpleParser(stream).then(
        (mail) => {
          messages.push(mail);
          callback();
        },
        (e) => callback(e),
      );
    },
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", () => resolve()));
  const actual = (server.server.address() as { port: number }).port;
  return Object.assign(sink, {
    port: actual,
    url: `smtp://127.0.0.1:${actual}`,
    messages,
    async waitFor(count: number, timeoutMs = 10_000) {
      const until = Date.now() + timeoutMs;
      while (messages.length < count) {
        if (Date.now() > until) throw new Error(`expected ${count} message(s), got ${messages.length}`);
        await Bun.sleep(20);
      }
      return messages;
    },
    // smtp-server waits for clients to hang up; a pooled client may not, so stop waiting after a moment.
    close: () => Promise.race([new Promise<void>((resolve) => server.close(() => resolve())), Bun.sleep(300)]),
  });
}
