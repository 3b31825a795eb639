import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SMTPServer, type SMTPServerOptions, type SMTPServerSession } from "smtp-server";
import { createSmtpMailer, describeMailError } from "../../src/modules/outbox/mailer";
import { cleanupAfterEach } from "../helpers/fixture";

const defer = cleanupAfterEach();

/**
 * A scripted SMTP server: `answer` gives the reply to each command, the message is read up to its
 * lone dot. It records every command and each body as they arrived.
 */
async function scripted(answer: (line: string, held: string[]) => string) {
  const seen = { commands: [] as string[], bodies: [] as string[] };
  // What `answer` keeps between commands, over every connection (a pool may open another after a refusal).
  const held: string[] = [];
  const server = createServer((socket: Socket) => {
    let buffered = "";
    let body: string[] | null = null;
    socket.write("220 scripted ESMTP\r\n");
    socket.on("data", (chunk) => {
      buffered += chunk.toString("utf8");
      const lines = buffered.split("\r\n");
      buffered = lines.pop()!;
      for (const line of lines) {
        if (body) {
          if (line === ".") (seen.bodies.push(body.join("\r\n")), (body = null), socket.write(answer(".", held)));
          else body.push(line);
          continue;
        }
        seen.commands.push(line);
        if (/^EHLO /.test(line)) socket.write("250-scripted\r\n250 8BITMIME\r\n");
        else if (line === "QUIT") socket.end("221 bye\r\n");
        else {
          const reply = answer(line, held);
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
const message = {
  to: "owner@example.com",
  subject: "hello",
  text: "line one\n.a line that starts with a dot",
  html: "",
};

// Each case: how the scripted server answers, what the first send through the mailer must come to,
// and that a second message still goes out after it.
const cases: {
  name: string;
  answer: (line: string, held: string[]) => string;
  expected: { response?: string; responseCode?: number; code?: string; described?: RegExp };
  check?: (seen: Awaited<ReturnType<typeof scripted>>["seen"]) => void;
}[] = [
  {
    name: "a multi-line answer is read whole, and a line that starts with a dot is dot-stuffed on the wire",
    answer: (line) => (line === "." ? "250-2.0.0 queued as A1\r\n250 2.0.0 see you\r\n" : ok(line)),
    expected: { response: "250-2.0.0 queued as A1\n250 2.0.0 see you" },
    check: (seen) => {
      expect(seen.commands).toContain("MAIL FROM:<forms@example.net>");
      expect(seen.commands).toContain("RCPT TO:<owner@example.com>");
      expect(seen.bodies[0]).toContain("\r\n..a line that starts with a dot");
    },
  },
  {
    name: "a recipient refused for now (450) is a failure with its code",
    answer: (line) =>
      line.startsWith("RCPT") && line.includes("owner@") ? "450 4.2.1 mailbox busy, try later\r\n" : ok(line),
    expected: {
      responseCode: 450,
      code: "EENVELOPE",
      described: /^the SMTP server answered 450: 450 4\.2\.1 mailbox busy/,
    },
  },
  {
    name: "a recipient refused for good (550) is a failure with its code",
    answer: (line) =>
      line.startsWith("RCPT") && line.includes("owner@") ? "550-5.1.1 no such user\r\n550 5.1.1 here\r\n" : ok(line),
    expected: {
      responseCode: 550,
      code: "EENVELOPE",
      described: /^the SMTP server answered 550: 550-5\.1\.1 no such user\n550 5\.1\.1 here$/,
    },
  },
  {
    name: "a message refused after its data (552) is a failure with its code",
    answer: (line, held) => (line === "." && held.push(".") === 1 ? "552 5.3.4 too big\r\n" : ok(line)),
    expected: { responseCode: 552, code: "EMESSAGE" },
  },
];

describe("the mailer against a scripted SMTP server", () => {
  for (const c of cases)
    test(c.name, async () => {
      const { port, seen } = await scripted(c.answer);
      const mailer = createSmtpMailer(new URL(`smtp://127.0.0.1:${port}`), "forms@example.net");
      defer(() => mailer.close());
      const first = await mailer.send(message).then(
        (r) => r,
        (e: unknown) => e as Record<string, unknown>,
      );
      const got = first as Record<string, unknown>;
      for (const [k, v] of Object.entries(c.expected))
        if (k === "described") expect(describeMailError(first)).toMatch(v as RegExp);
        else expect({ [k]: got[k] }).toEqual({ [k]: v });
      c.check?.(seen);
      const second = await mailer.send({ ...message, to: "other@example.com" });
      expect(second.response).toMatch(/^250/);
    });

  // The API takes no such address; if one reached the mailer, its line break must not add a command.
  test("an address with a line break in it adds no command of its own", async () => {
    const { port, seen } = await scripted(ok);
    const mailer = createSmtpMailer(new URL(`smtp://127.0.0.1:${port}`), "forms@example.net");
    defer(() => mailer.close());
    await mailer.send({ ...message, to: "a@example.com>\r\nRCPT TO:<victim@example.com" }).catch(() => null);
    expect(seen.commands.filter((l) => l.startsWith("RCPT")).length).toBeLessThanOrEqual(1);
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
