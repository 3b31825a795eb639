// `bun bench/baselines/smtp-sink.ts SMTP_PORT HTTP_PORT`: a real SMTP server on loopback (smtp-server,
// as the email tests use) that accepts every message and only counts it; GET /count on HTTP_PORT says
// how many arrived. Counting instead of parsing keeps its own CPU out of the way of what is measured.
// Imported (bench/notifications.ts), it is the same server in the bench's own process.
import { SMTPServer } from "smtp-server";

/** An SMTP server that accepts every message, reads its body and drops it, and counts it. */
export function countingSmtpServer(): { server: SMTPServer; count: () => number } {
  let received = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onData(stream, _session, callback) {
      stream.on("data", () => {});
      stream.on("end", () => {
        received += 1;
        callback();
      });
    },
  });
  return { server, count: () => received };
}

if (import.meta.main) {
  const [smtpPort, httpPort] = [Number(process.argv[2]), Number(process.argv[3])];
  const { server, count } = countingSmtpServer();
  server.listen(smtpPort, "127.0.0.1");
  Bun.serve({ port: httpPort, hostname: "127.0.0.1", fetch: () => Response.json({ received: count() }) });
  console.log(`listening on ${httpPort}`);
}
