import { connect as netConnect, type Socket } from "node:net";
import { hostname } from "node:os";
import { connect as tlsConnect, type ConnectionOptions, type TLSSocket } from "node:tls";

export interface SmtpClientOptions {
  host: string;
  port: number;
  /** TLS from the first byte (smtps://); otherwise STARTTLS whenever the server offers it. */
  secure: boolean;
  auth?: { user: string; pass: string };
  maxConnections?: number;
  /** Extra TLS settings (a test's own certificate authority); certificates are verified by default. */
  tls?: ConnectionOptions;
  connectionTimeoutMs?: number;
  socketTimeoutMs?: number;
}

/** One server reply: its code and every line as the server wrote it, joined by "\n". */
interface Reply {
  code: number;
  text: string;
}

/**
 * An SMTP failure, shaped as nodemailer shaped its own (`code`, `responseCode`, `response`): what
 * `describeMailError` and the outbox read, so failures read and are classified as before.
 */
export class SmtpError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly response?: string,
    readonly responseCode?: number,
  ) {
    super(message);
  }
}

const fromReply = (message: string, code: string, reply: Reply) => new SmtpError(message, code, reply.text, reply.code);

const ok = (r: Reply) => r.code >= 200 && r.code < 300;

// What nodemailer said in EHLO: this host's name when it is fully qualified, else a literal address.
function ehloName(): string {
  let name = "";
  try {
    name = hostname();
  } catch {}
  if (!name.includes(".")) return "[127.0.0.1]";
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(name) ? `[${name}]` : name;
}

// An address that would break out of its command (a line break, angle brackets) never reaches the server.
const SAFE_ADDRESS = /^[^\s<>\u0000-\u001f\u007f]+$/;
const NON_ASCII = /[^\x00-\x7f]/;
const IP_LITERAL = /^[\d.]+$|:/;

interface Job {
  from: string;
  to: string[];
  body: string | Buffer;
  resolve: (r: Reply) => void;
  reject: (e: unknown) => void;
  /** Sent again once on a fresh connection when a reused one turned out closed before it answered. */
  retried?: boolean;
}

/** One SMTP connection: replies are read in order, each resolving the oldest command waiting for one. */
class Connection {
  private socket!: Socket;
  private buffered = "";
  private lines: string[] = [];
  private waiting: { resolve: (r: Reply) => void; reject: (e: unknown) => void }[] = [];
  private features = new Set<string>();
  private authMethods: string[] = [];
  closed = false;
  private error: SmtpError | null = null;
  /** A reply has come on this connection since its last job began (its socket was alive then). */
  answered = false;
  onClosed: () => void = () => {};

  constructor(private readonly o: Required<Omit<SmtpClientOptions, "auth" | "tls">> & SmtpClientOptions) {}

  /** Connects, reads the greeting, says EHLO, upgrades to TLS when offered, logs in. */
  async open(): Promise<void> {
    const o = this.o;
    const servername = IP_LITERAL.test(o.host) ? undefined : o.host;
    const socket = o.secure
      ? tlsConnect({ host: o.host, port: o.port, servername, ...o.tls })
      : netConnect({ host: o.host, port: o.port });
    this.attach(socket, o.secure);
    socket.setTimeout(o.connectionTimeoutMs);
    const greeting = await this.expect();
    if (greeting.code !== 220) throw fromReply(`the server's greeting was ${greeting.code}`, "EPROTOCOL", greeting);
    await this.hello();
    if (!o.secure && this.features.has("STARTTLS")) {
      const r = await this.command("STARTTLS");
      if (r.code !== 220) throw fromReply("STARTTLS was refused", "ETLS", r);
      await this.upgrade(servername);
      await this.hello();
    }
    if (o.auth) await this.login(o.auth);
    socket.setTimeout(o.socketTimeoutMs);
  }

  private attach(socket: Socket, tls: boolean): void {
    this.socket = socket;
    let secured = !tls;
    if (tls) socket.once("secureConnect", () => (secured = true));
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => this.read(chunk));
    socket.on("error", (e: NodeJS.ErrnoException) => {
      const code =
        e.code === "ENOTFOUND" || e.code === "EAI_AGAIN"
          ? "EDNS"
          : tls && !secured && !/^E(CONN|HOST|NET)/.test(e.code ?? "")
            ? "ETLS"
            : "ECONNECTION";
      this.fail(new SmtpError(e.message, code));
    });
    socket.on("timeout", () => {
      if (this.waiting.length) this.fail(new SmtpError("no answer in time", "ETIMEDOUT"));
      else this.quit();
    });
    socket.on("close", () => this.fail(new SmtpError("the connection closed unexpectedly", "ECONNECTION")));
  }

  private upgrade(servername: string | undefined): Promise<void> {
    const plain = this.socket;
    plain.removeAllListeners("data");
    plain.removeAllListeners("close");
    plain.removeAllListeners("timeout");
    plain.removeAllListeners("error");
    const secure = tlsConnect({ socket: plain, servername, ...this.o.tls }) as TLSSocket;
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve: () => {}, reject });
      secure.once("secureConnect", () => {
        this.waiting.shift();
        resolve();
      });
      this.attach(secure, true);
      secure.setTimeout(this.o.connectionTimeoutMs);
    });
  }

  private async hello(): Promise<void> {
    let r = await this.command(`EHLO ${ehloName()}`);
    if (!ok(r)) {
      r = await this.command(`HELO ${ehloName()}`);
      if (!ok(r)) throw fromReply("the server refused EHLO and HELO", "EPROTOCOL", r);
    }
    this.features.clear();
    for (const line of r.text.split("\n").slice(1)) {
      const [word = "", ...args] = line
        .slice(4)
        .toUpperCase()
        .split(/[\s=]+/);
      this.features.add(word);
      if (word === "AUTH") this.authMethods = args;
    }
  }

  private async login({ user, pass }: { user: string; pass: string }): Promise<void> {
    const b64 = (s: string) => Buffer.from(s).toString("base64");
    const methods = this.authMethods;
    let r: Reply;
    if (methods.length === 0 || methods.includes("PLAIN"))
      r = await this.command(`AUTH PLAIN ${b64(`\0${user}\0${pass}`)}`);
    else if (methods.includes("LOGIN")) {
      r = await this.command("AUTH LOGIN");
      if (r.code === 334) r = await this.command(b64(user));
      if (r.code === 334) r = await this.command(b64(pass));
    } else throw new SmtpError(`no login method in common (the server offers ${methods.join(", ")})`, "EAUTH");
    if (r.code !== 235) throw fromReply("the login was refused", "EAUTH", r);
  }

  /** One message: MAIL, RCPT and DATA in one write when the server pipelines, then the message in one write. */
  async send(job: Job): Promise<Reply> {
    this.answered = false;
    const utf8 = this.features.has("SMTPUTF8") && [job.from, ...job.to].some((a) => NON_ASCII.test(a));
    const eight = this.features.has("8BITMIME") && (typeof job.body === "string" ? NON_ASCII.test(job.body) : true);
    const commands = [
      `MAIL FROM:<${job.from}>${eight ? " BODY=8BITMIME" : ""}${utf8 ? " SMTPUTF8" : ""}`,
      ...job.to.map((to) => `RCPT TO:<${to}>`),
      "DATA",
    ];
    let replies: Reply[];
    if (this.features.has("PIPELINING")) {
      const answers = commands.map(() => this.expect());
      this.write(`${commands.join("\r\n")}\r\n`);
      replies = await Promise.all(answers);
    } else {
      replies = [await this.command(commands[0]!)];
      for (let i = 1; i < commands.length && ok(replies[0]!); i++) {
        if (i === commands.length - 1 && !replies.slice(1).some(ok)) break;
        replies.push(await this.command(commands[i]!));
      }
    }
    const [mail, ...rest] = replies;
    const rcpts = rest.slice(0, job.to.length);
    const data = rest[job.to.length];
    if (!ok(mail!)) return this.reset(fromReply(`the sender was refused`, "EENVELOPE", mail!));
    const refused = rcpts.find((r) => !ok(r));
    if (!rcpts.some(ok)) {
      if (data?.code === 354) await this.command(".");
      return this.reset(fromReply("every recipient was refused", "EENVELOPE", refused ?? mail!));
    }
    if (data?.code !== 354) return this.reset(fromReply("the DATA command was refused", "EENVELOPE", data ?? mail!));
    const text = typeof job.body === "string" ? job.body : job.body.toString("utf8");
    const stuffed = text.includes("\n.") || text.startsWith(".") ? text.replace(/(^|\n)\./g, "$1..") : text;
    const end = await this.command(`${stuffed.endsWith("\r\n") ? stuffed : `${stuffed}\r\n`}.`);
    if (!ok(end)) return this.reset(fromReply("the message was refused", "EMESSAGE", end));
    return end;
  }

  /** Clears the server's transaction state after a failure, then throws it. */
  private async reset(e: SmtpError): Promise<never> {
    if (!this.closed) await this.command("RSET").catch(() => {});
    throw e;
  }

  private command(line: string): Promise<Reply> {
    const answer = this.expect();
    this.write(`${line}\r\n`);
    return answer;
  }

  /** The next reply, registered before its command is written so that a fast answer finds its reader. */
  private expect(): Promise<Reply> {
    if (this.error) return Promise.reject(this.error);
    return new Promise<Reply>((resolve, reject) => this.waiting.push({ resolve, reject }));
  }

  private write(text: string): void {
    if (!this.error) this.socket.write(text);
  }

  private read(chunk: string): void {
    this.buffered += chunk;
    let nl: number;
    while ((nl = this.buffered.indexOf("\n")) >= 0) {
      const line = this.buffered.slice(0, nl).replace(/\r$/, "");
      this.buffered = this.buffered.slice(nl + 1);
      this.lines.push(line);
      // "250-…" continues a reply, "250 …" (or a bare code) ends it.
      if (line.charAt(3) === "-") continue;
      const reply = { code: Number(line.slice(0, 3)) || 0, text: this.lines.join("\n") };
      this.lines = [];
      this.answered = true;
      const waiter = this.waiting.shift();
      if (waiter) waiter.resolve(reply);
      else this.fail(new SmtpError(`an answer nobody asked for: ${reply.text}`, "EPROTOCOL"));
    }
  }

  private fail(e: SmtpError): void {
    this.error ??= e;
    if (!this.closed) {
      this.closed = true;
      this.socket.destroy();
      this.onClosed();
    }
    const waiting = this.waiting;
    this.waiting = [];
    for (const w of waiting) w.reject(e);
  }

  /** Says QUIT and closes; nothing waits for the answer. */
  quit(): void {
    if (this.closed) return;
    this.closed = true;
    this.onClosed();
    this.socket.end("QUIT\r\n");
  }

  /** An idle connection does not keep the process alive. */
  idle(isIdle: boolean): void {
    if (isIdle) this.socket.unref();
    else this.socket.ref();
  }
}

/**
 * A small pool of persistent SMTP connections, each carrying one message at a time: an idle
 * connection takes the next queued message, a new one is opened while fewer than
 * `maxConnections` are, and a connection idle past the socket timeout says QUIT.
 */
export function createSmtpClient(options: SmtpClientOptions) {
  const o = { maxConnections: 4, connectionTimeoutMs: 10_000, socketTimeoutMs: 30_000, tls: {}, ...options };
  const queue: Job[] = [];
  const open = new Set<Connection>();
  const idle: Connection[] = [];
  let closing = false;

  const run = (c: Connection, job: Job, reused: boolean) => {
    c.idle(false);
    c.send(job)
      .then(job.resolve, (e: unknown) => {
        // A reused connection the server had closed meanwhile: the message never reached it.
        if (reused && c.closed && !c.answered && !job.retried && (e as SmtpError).code === "ECONNECTION") {
          job.retried = true;
          queue.unshift(job);
        } else job.reject(e);
      })
      .finally(() => {
        if (!c.closed) {
          if (closing) c.quit();
          else (idle.push(c), c.idle(true));
        }
        pump();
      });
  };

  function pump(): void {
    while (queue.length) {
      const c = idle.pop();
      if (c) {
        run(c, queue.shift()!, true);
        continue;
      }
      if (open.size >= o.maxConnections) return;
      const job = queue.shift()!;
      const fresh = new Connection(o);
      open.add(fresh);
      fresh.onClosed = () => {
        open.delete(fresh);
        const at = idle.indexOf(fresh);
        if (at >= 0) idle.splice(at, 1);
      };
      fresh.open().then(
        () => run(fresh, job, false),
        (e: unknown) => {
          fresh.quit();
          open.delete(fresh);
          job.reject(e);
          pump();
        },
      );
    }
  }

  return {
    /** Sends one message (RFC 5322 text, CRLF line ends) to its envelope; resolves with the server's final answer. */
    send(envelope: { from: string; to: string[] }, body: string | Buffer): Promise<{ response: string }> {
      if (closing) return Promise.reject(new SmtpError("the mailer is closed", "ECONNECTION"));
      const bad = [envelope.from, ...envelope.to].find((a) => !SAFE_ADDRESS.test(a));
      if (bad !== undefined || envelope.to.length === 0)
        return Promise.reject(new SmtpError(`invalid address ${JSON.stringify(bad ?? "")}`, "EENVELOPE"));
      return new Promise<Reply>((resolve, reject) => {
        queue.push({ from: envelope.from, to: envelope.to, body, resolve, reject });
        pump();
      }).then((r) => ({ response: r.text }));
    },

    /** QUIT on every connection (a busy one after its message); messages still queued fail. */
    close(): void {
      closing = true;
      for (const job of queue.splice(0)) job.reject(new SmtpError("the mailer is closed", "ECONNECTION"));
      for (const c of idle.splice(0)) c.quit();
    },
  };
}

export type SmtpClient = ReturnType<typeof createSmtpClient>;
