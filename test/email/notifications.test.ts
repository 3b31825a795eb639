import { describe, expect, test } from "bun:test";
import { freePort, startSmtpSink, type SmtpSink } from "../helpers/smtp-sink";
import { cleanupAfterEach } from "../helpers/fixture";
import { runCli, runCliAsync, seedOwner, startTestServer, tempDir, type TestServer } from "../helpers/harness";
import { login, session, withPassword } from "../helpers/accounts";

const defer = cleanupAfterEach();

async function sink(port?: number): Promise<SmtpSink> {
  const s = await startSmtpSink(port);
  defer(() => s.close());
  return s;
}

async function server(
  config: Record<string, string | number>,
  at: { dir?: string; db?: string } = {},
): Promise<TestServer> {
  const s = await startTestServer({ config, ...at });
  defer(() => s.close());
  return s;
}

function notifyingForm(s: TestServer, emailEnabled = true, developerNotifications = true) {
  return seedOwner(s, "owner@example.com", {
    name: "Contact <us>",
    formType: "contact",
    emailEnabled,
    developerNotifications,
  });
}

const submit = (s: TestServer, o: { key: string; formId: string }, data: Record<string, unknown>) =>
  s.submit(o.key, o.formId, data);

/** Polls the outbox table until `predicate` holds (bounded). */
async function outboxUntil(s: TestServer, predicate: (rows: any[]) => boolean, timeoutMs = 10_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const rows = await s.query("SELECT * FROM outbox ORDER BY id");
    if (predicate(rows)) return rows;
    if (Date.now() > until) throw new Error(`outbox never reached the expected state: ${JSON.stringify(rows)}`);
    await Bun.sleep(20);
  }
}

describe("owner notifications", () => {
  test("mail the owner one message per submission with both parts, escaped HTML and Reply-To", async () => {
    const smtp = await sink();
    const s = await server({ smtpUrl: smtp.url, mailFrom: "formsvc <noreply@example.com>" });
    const o = await notifyingForm(s);
    const res = await submit(s, o, {
      email: " Ada@Example.com ",
      message: "<script>alert(1)</script>",
      details: { plan: "pro" },
    });
    expect(res.status).toBe(200);
    const [mail] = await smtp.waitFor(1);
    expect(mail!.subject).toBe("New submission: Contact <us>");
    expect(mail!.to && "text" in mail!.to ? mail!.to.text : "").toBe("owner@example.com");
    expect(mail!.replyTo?.value[0]?.address).toBe("ada@example.com");
    expect(mail!.text).toContain("Message: <script>alert(1)</script>");
    expect(mail!.text).toContain('Details: {"plan":"pro"}');
    expect(mail!.html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(mail!.html).not.toContain("<script>");
    await outboxUntil(s, (rows) => rows[0]?.status === "sent");
  });

  test("are written for people: fields by label, the time in the owner's zone, no unknown country, a link to the submission", async () => {
    const smtp = await sink();
    const s = await server({ smtpUrl: smtp.url, publicUrl: "https://forms.example.com" });
    const o = await seedOwner(s, "owner@example.com", {
      name: "Contact",
      emailEnabled: true,
      developerNotifications: true,
      fields: [{ name: "message", type: "text", label: "Your question" }],
      allowExtraFields: true,
    });
    await withPassword(s, "owner@example.com");
    // The server's own origin is its public URL's.
    const { cookie } = await login(s, "owner@example.com", undefined, { origin: "https://forms.example.com" });
    const zone = await s.json("/api/v1/auth/me", {
      method: "PATCH",
      headers: { ...session(s, cookie!, "https://forms.example.com"), "content-type": "application/json" },
      body: JSON.stringify({ timeZone: "europe/berlin" }),
    });
    expect([zone.status, zone.body.timeZone]).toEqual([200, "Europe/Berlin"]);

    const res = await submit(s, o, { message: "How much?", inquiry_type: "sales" });
    expect(res.status).toBe(200);
    const [mail] = await smtp.waitFor(1);
    const [row] = await s.query("SELECT id, created_at FROM submissions");
    expect(mail!.text).toContain("Your question: How much?");
    expect(mail!.text).toContain("Inquiry type: sales");
    expect(mail!.text).toMatch(/Received \w{3}, \d{1,2} \w{3} \d{4}, \d{2}:\d{2} (CET|CEST|GMT\+1|GMT\+2) /);
    const berlin = new Intl.DateTimeFormat("en-GB", { hour: "2-digit", minute: "2-digit", timeZone: "Europe/Berlin" });
    expect(mail!.text).toContain(berlin.format(new Date(row.created_at)));
    expect(mail!.text).not.toContain(row.created_at);
    // A test client has no known country: the email says nothing of one rather than "ZZ".
    expect(mail!.text).not.toMatch(/country|ZZ/i);
    const link = `https://forms.example.com/dashboard/forms/${o.formId}/submissions/${row.id}`;
    expect(mail!.text).toContain(`Open it in the dashboard: ${link}`);
    expect(mail!.html).toContain(`<a href="${link}">Open it in the dashboard</a>`);
    expect(mail!.html).toContain('<th align="left" valign="top">Your question</th>');
  });

  test("send nothing for forms with developer notifications or the email master switch off", async () => {
    const smtp = await sink();
    const s = await server({ smtpUrl: smtp.url });
    const off = await seedOwner(s, "owner@example.com", {
      name: "Quiet",
      emailEnabled: true,
      developerNotifications: false,
    });
    const masterOff = await seedOwner(s, "owner@example.com", {
      name: "Muted",
      emailEnabled: false,
      developerNotifications: true,
    });
    const on = await notifyingForm(s);
    expect((await submit(s, off, { a: 1 })).status).toBe(200);
    expect((await submit(s, masterOff, { a: 2 })).status).toBe(200);
    expect((await submit(s, on, { a: 3 })).status).toBe(200);
    await smtp.waitFor(1);
    await Bun.sleep(200);
    expect(smtp.messages.length).toBe(1);
    expect(await s.query("SELECT form_id FROM outbox")).toEqual([{ form_id: on.formId }]);
  });

  test("deliver once after the SMTP server was down when the submission arrived", async () => {
    const port = await freePort();
    const s = await server({ smtpUrl: `smtp://127.0.0.1:${port}`, mailRetryBaseSeconds: 0.05 });
    const o = await notifyingForm(s);
    expect((await submit(s, o, { message: "while down" })).status).toBe(200);
    const failed = await outboxUntil(s, (rows) => rows[0]?.attempts >= 1 && rows[0]?.status === "pending");
    expect(failed[0].last_error).toContain("connect");
    const smtp = await sink(port);
    await smtp.waitFor(1);
    await outboxUntil(s, (rows) => rows[0]?.status === "sent");
    await Bun.sleep(300);
    expect(smtp.messages.length).toBe(1);
  });

  test("send notifications left pending by a stopped server after the next start, once", async () => {
    const { dir, cleanup } = tempDir();
    defer(cleanup);
    const port = await freePort();
    const first = await startTestServer({
      dir,
      config: { smtpUrl: `smtp://127.0.0.1:${port}`, mailRetryBaseSeconds: 30 },
    });
    const o = await notifyingForm(first);
    expect((await submit(first, o, { message: "queued" })).status).toBe(200);
    await outboxUntil(first, (rows) => rows[0]?.attempts >= 1);
    await first.close();

    const smtp = await sink();
    // Its next retry is 30 s away; a start-up tries the queue at once.
    expect(runCli(["outbox", "list", "--status", "pending", "--json"], { db: first.db }).stdout).toContain(
      '"status": "pending"',
    );
    const second = await server({ smtpUrl: smtp.url }, { dir, db: first.db });
    await smtp.waitFor(1);
    await Bun.sleep(200);
    expect(smtp.messages.length).toBe(1);
    expect(await second.query("SELECT status FROM outbox")).toEqual([{ status: "sent" }]);
  });

  test("mark a notification failed after its retry horizon, and send it after outbox retry", async () => {
    const smtp = await sink();
    smtp.refuse = true;
    const s = await server({ smtpUrl: smtp.url, mailRetryBaseSeconds: 0.05, mailRetryHours: 0.0001 });
    const o = await notifyingForm(s);
    expect((await submit(s, o, { message: "bounce" })).status).toBe(200);
    const rows = await outboxUntil(s, (r) => r[0]?.status === "failed");
    expect(rows[0].last_error).toContain("550");
    expect(smtp.messages.length).toBe(0);

    smtp.refuse = false;
    const retry = runCli(["outbox", "retry", "--all-failed", "--json"], { db: s.db });
    expect(retry.code).toBe(0);
    expect(JSON.parse(retry.stdout)).toEqual({ requeued: 1 });
    await smtp.waitFor(1);
    expect((await outboxUntil(s, (r) => r[0]?.status === "sent"))[0].attempts).toBeGreaterThanOrEqual(1);
  });

  test("report the queue on /healthz and /metrics", async () => {
    const port = await freePort();
    const s = await server({ smtpUrl: `smtp://127.0.0.1:${port}`, mailRetryBaseSeconds: 30 });
    const o = await notifyingForm(s);
    expect((await submit(s, o, { message: "waiting" })).status).toBe(200);
    await outboxUntil(s, (rows) => rows[0]?.attempts >= 1);
    expect((await s.json("/healthz")).body.outbox).toEqual({ pending: 1, failed: 0 });
    expect(await (await s.request("/metrics")).text()).toContain("formsvc_outbox_pending 1");
  });
});

describe("formsvc mail test", () => {
  test("sends one message and prints the server's answer", async () => {
    const smtp = await sink();
    const { dir, cleanup } = tempDir();
    defer(cleanup);
    const res = await runCliAsync(["mail", "test", "--to", "me@example.com"], {
      db: `${dir}/f.db`,
      env: { FORMSVC_SMTP_URL: smtp.url },
    });
    expect(res.code).toBe(0);
    expect(res.stdout).toContain("answered");
    expect((await smtp.waitFor(1))[0]!.subject).toBe("formsvc test message");
  });

  test("fails with a clear error when nothing listens", async () => {
    const port = await freePort();
    const { dir, cleanup } = tempDir();
    defer(cleanup);
    const res = runCli(["mail", "test", "--to", "me@example.com"], {
      db: `${dir}/f.db`,
      env: { FORMSVC_SMTP_URL: `smtp://127.0.0.1:${port}` },
    });
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain("could not connect to the SMTP server");
  });

  test("says so when SMTP is not configured", () => {
    const { dir, cleanup } = tempDir();
    defer(cleanup);
    const res = runCli(["mail", "test", "--to", "me@example.com"], {
      db: `${dir}/f.db`,
      env: { FORMSVC_SMTP_URL: "" },
    });
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain("FORMSVC_SMTP_URL is not set");
  });
});
