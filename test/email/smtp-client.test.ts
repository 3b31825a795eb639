import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SMTPServer, type SMTPServerOptions, type SMTPServerSession } from "smtp-server";
import { createSmtpMailer, describeMailError } from "../../src/modules/outbox/mailer";
import { createSmtpClient } from "../../src/modules/outbox/smtp-client";
import { cleanupAfterEach } from "../helpers/fixture";

const defer = cleanupAfterEach();

/**
 * A scripted SMTP server: `answer` gives the reply to each command (null: none yet), the message is
 * read up to its lone dot. It records every command and chunk as they arrived, and each body.
 */
async function scripted(answer: (line: string, held: string[]) => string | null, ehlo: string[]) {
  const seen = { commands: [] as string[], chunks: [] as string[][], bodies: [] as string[], connections: 0 };
  const server = createServer((socket: Socket) => {
    seen.connections += 1;
    let buffered = "";
    let body: string[] | null = null;
    const held: string[] = [];
    socket.write("220 scripted ESMTP\r\n");
    socket.on("data", (chunk) => {
      buffered += chunk.toString("utf8");
      const lines = buffered.split("\r\n");
      buffered = lines.pop()!;
      if (!body) seen.chunks.push(lines);
      for (const line of lines) {
        if (body) {
          if (line === ".") (seen.bodies.push(body.join("\r\n")), (body = null), socket.write(answer(".", held) ?? ""));
          else body.push(line);
          continue;
        }
        seen.commands.push(line);
        if (/^EHLO /.test(line))
          socket.write(
            `250-scripted\r\n${ehlo.map((e, i) => `250${i === ehlo.length - 1 ? " " : "-"}${e}\r\n`).join("")}`,
          );
        else if (line === "QUIT") socket.end("221 bye\r\n");
        else {
          const reply = answer(line, held);
          if (reply === null) continue;
          socket.write(reply);
          if (line === "DATA" && reply.includes("354")) body = [];
        }
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  defer(() => new Promise<void>((r) => server.close(() => r())));
  return { port, seen };
}

const ok = (line: string) => (line === "." ? "250 2.0.0 queued\r\n" : line === "DATA" ? "354 go on\r\n" : "250 ok\r\n");
const message = "Subject: hello\r\n\r\nline one\r\n.a line that starts with a dot\r\n";

// Each case: how the scripted server answers, what the first send must come to, and that a second
// message on the same connection still goes out (the connection survives a refusal).
const cases: {
  name: string;
  ehlo: string[];
  answer: (line: string, held: string[]) => string | null;
  expected: { response?: string; responseCode?: number; code?: string; described?: RegExp };
  check?: (seen: Awaited<ReturnType<typeof scripted>>["seen"]) => void;
}[] = [
  {
    // The server answers nothing until DATA has arrived: a client waiting for MAIL's answer would never send it.
    name: "with PIPELINING, MAIL, RCPT and DATA go in one write, and a multi-line answer is read whole",
    ehlo: ["PIPELINING", "8BITMIME"],
    answer: (line, held) => {
      if (line === ".") return "250-2.0.0 queued as A1\r\n250 2.0.0 see you\r\n";
      held.push(line);
      return line === "DATA" ? "250 sender ok\r\n250 recipient ok\r\n354 go on\r\n" : null;
    },
    expected: { response: "250-2.0.0 queued as A1\n250 2.0.0 see you" },
    check: (seen) => {
      expect(seen.chunks.find((c) => c[0]?.startsWith("MAIL FROM"))).toEqual([
        "MAIL FROM:<forms@example.net>",
        "RCPT TO:<owner@example.com>",
        "DATA",
      ]);
      // Dot-stuffed on the wire, one dot again once the server reads it back.
      expect(seen.bodies[0]).toContain("\r\n..a line that starts with a dot");
    },
  },
  {
    name: "without PIPELINING each command waits for its answer",
    ehlo: ["8BITMIME"],
    answer: ok,
    expected: { response: "250 2.0.0 queued" },
    check: (seen) => expect(seen.chunks.filter((c) => c.length > 1)).toEqual([]),
  },
  {
    name: "a recipient refused for now (450) is a failure with its code, and the connection is reset for the next message",
    ehlo: ["PIPELINING"],
    answer: (line, held) =>
      line.startsWith("RCPT") && line.includes("owner@")
        ? (held.push(line), "450 4.2.1 mailbox busy, try later\r\n")
        : line === "DATA" && held.length
          ? ((held.length = 0), "554 no valid recipients\r\n")
          : ok(line),
    expected: {
      responseCode: 450,
      code: "EENVELOPE",
      described: /^the SMTP server answered 450: 450 4\.2\.1 mailbox busy/,
    },
    check: (seen) => expect(seen.commands).toContain("RSET"),
  },
  {
    name: "a recipient refused for good (550) is a failure with its code",
    ehlo: ["PIPELINING"],
    answer: (line, held) =>
      line.startsWith("RCPT") && line.includes("owner@")
        ? (held.push(line), "550-5.1.1 no such user\r\n550 5.1.1 here\r\n")
        : line === "DATA" && held.length
          ? ((held.length = 0), "554 no valid recipients\r\n")
          : ok(line),
    expected: {
      responseCode: 550,
      code: "EENVELOPE",
      described: /^the SMTP server answered 550: 550-5\.1\.1 no such user\n550 5\.1\.1 here$/,
    },
  },
  {
    name: "a message refused after its data (552) is a failure with its code",
    ehlo: ["PIPELINING"],
    answer: (line, held) => (line === "." && held.push(".") === 1 ? "552 5.3.4 too big\r\n" : ok(line)),
    expected: { responseCode: 552, code: "EMESSAGE" },
  },
];

describe("the SMTP client against a scripted server", () => {
  for (const c of cases)
    test(c.name, async () => {
      const { port, seen } = await scripted(c.answer, c.ehlo);
      const client = createSmtpClient({ host: "127.0.0.1", port, secure: false, socketTimeoutMs: 3000 });
      defer(() => client.close());
      const first = await client.send({ from: "forms@example.net", to: ["owner@example.com"] }, message).then(
        (r) => r,
        (e: unknown) => e as Record<string, unknown>,
      );
      const got = first as Record<string, unknown>;
      for (const [k, v] of Object.entries(c.expected))
        if (k === "described") expect(describeMailError(first)).toMatch(v as RegExp);
        else expect({ [k]: got[k] }).toEqual({ [k]: v });
      c.check?.(seen);
      const second = await client.send({ from: "forms@example.net", to: ["other@example.com"] }, message);
      expect(second.response).toMatch(/^250/);
      expect(seen.connections).toBe(1);
    });

  test("an address that would end its command is refused before anything is written", async () => {
    const { port, seen } = await scripted(ok, ["PIPELINING"]);
    const client = createSmtpClient({ host: "127.0.0.1", port, secure: false });
    defer(() => client.close());
    const error = await client
      .send({ from: "forms@example.net", to: ["a@example.com>\r\nRCPT TO:<victim@example.com"] }, message)
      .catch((e: { code: string }) => e);
    expect(error).toMatchObject({ code: "EENVELOPE" });
    expect(seen.commands.filter((l) => l.startsWith("RCPT"))).toEqual([]);
  });
});

/** A self-signed certificate for 127.0.0.1, made by openssl for this run. */
function selfSigned(): { key: string; cert: string } {
  const dir = mkdtempSync(join(tmpdir(), "smtp-tls-"));
  try {
    const made = Bun.spawnSync(
      ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        .concat(["-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem"), "-days", "1"])
        .concat(["-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"]),
      { stderr: "pipe" },
    );
    if (made.exitCode !== 0) throw new Error(made.stderr.toString());
    return { key: readFileSync(join(dir, "key.pem"), "utf8"), cert: readFileSync(join(dir, "cert.pem"), "utf8") };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const tls = selfSigned();

/** smtp-server with these options; records each message's session (TLS, login) and subject line. */
async function realServer(options: SMTPServerOptions) {
  const sessions: { secure: boolean; user: unknown; subject: string }[] = [];
  const server = new SMTPServer({
    logger: false,
    key: tls.key,
    cert: tls.cert,
    onAuth(auth, _session, callback) {
      if (auth.username === "ada" && auth.password === "s3cret:@/") return callback(null, { user: auth.username });
      callback(new Error("invalid username or password"));
    },
    onData(stream, session: SMTPServerSession, callback) {
      let text = "";
      stream.on("data", (c: Buffer) => (text += c.toString()));
      stream.on("end", () => {
        sessions.push({
          secure: session.secure,
          user: session.user || null,
          subject: /^Subject: (.*)$/m.exec(text)?.[1] ?? "",
        });
        callback();
      });
    },
    ...options,
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.server.address() as { port: number }).port;
  defer(() => Promise.race([new Promise<void>((r) => server.close(() => r())), Bun.sleep(300)]));
  return { port, sessions };
}

// Through the mailer as the server builds it (FORMSVC_SMTP_URL), against smtp-server.
const tlsCases: {
  name: string;
  url: (port: number) => string;
  options: SMTPServerOptions;
  expected: { secure: boolean; user: unknown } | RegExp;
}[] = [
  {
    name: "smtp:// upgrades with STARTTLS when the server offers it",
    url: (p) => `smtp://127.0.0.1:${p}`,
    options: { authOptional: true },
    expected: { secure: true, user: null },
  },
  {
    name: "smtps:// speaks TLS from the first byte",
    url: (p) => `smtps://127.0.0.1:${p}`,
    options: { secure: true, authOptional: true },
    expected: { secure: true, user: null },
  },
  {
    name: "the URL's user and password log in with AUTH PLAIN after STARTTLS",
    url: (p) => `smtp://ada:${encodeURIComponent("s3cret:@/")}@127.0.0.1:${p}`,
    options: { authMethods: ["PLAIN", "LOGIN"] },
    expected: { secure: true, user: "ada" },
  },
  {
    name: "AUTH LOGIN when the server offers only that",
    url: (p) => `smtp://ada:${encodeURIComponent("s3cret:@/")}@127.0.0.1:${p}`,
    options: { authMethods: ["LOGIN"] },
    expected: { secure: true, user: "ada" },
  },
  {
    name: "a wrong password is a refused login",
    url: (p) => `smtp://ada:wrong@127.0.0.1:${p}`,
    options: {},
    expected: /^the SMTP server refused the login: 535/,
  },
  {
    name: "plain SMTP when the server offers no STARTTLS",
    url: (p) => `smtp://127.0.0.1:${p}`,
    options: { authOptional: true, disabledCommands: ["STARTTLS"] },
    expected: { secure: false, user: null },
  },
];

describe("the mailer's TLS and login against smtp-server", () => {
  for (const c of tlsCases)
    test(c.name, async () => {
      const { port, sessions } = await realServer(c.options);
      const mailer = createSmtpMailer(new URL(c.url(port)), "formsvc <forms@example.net>", { ca: tls.cert });
      defer(() => mailer.close());
      const send = mailer.send({ to: "owner@example.com", subject: "Over TLS", text: "hi", html: "<p>hi</p>" });
      if (c.expected instanceof RegExp) {
        expect(describeMailError(await send.catch((e: unknown) => e))).toMatch(c.expected);
        expect(sessions).toEqual([]);
        return;
      }
      expect((await send).response).toMatch(/^250/);
      expect(sessions).toEqual([{ ...c.expected, subject: "Over TLS" }]);
    });

  test("a certificate nobody vouches for is a TLS failure, and nothing is sent", async () => {
    const { port, sessions } = await realServer({ authOptional: true });
    const mailer = createSmtpMailer(new URL(`smtp://127.0.0.1:${port}`), "forms@example.net");
    defer(() => mailer.close());
    const error = await mailer
      .send({ to: "owner@example.com", subject: "x", text: "x", html: "x" })
      .catch((e: unknown) => e);
    expect(describeMailError(error)).toMatch(/^TLS with the SMTP server failed/);
    expect(sessions).toEqual([]);
  });
});
