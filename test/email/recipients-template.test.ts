import { describe, expect, test } from "bun:test";
import { cleanupAfterEach } from "../helpers/fixture";
import { seedOwner, startTestServer, type TestServer } from "../helpers/harness";
import { startReceiver } from "../helpers/receiver";
import { startSmtpSink, type SmtpSink } from "../helpers/smtp-sink";

const defer = cleanupAfterEach();
const PUBLIC = "https://forms.example.com";

async function setup(): Promise<{ smtp: SmtpSink; s: TestServer; o: { key: string; formId: string } }> {
  const smtp = await startSmtpSink();
  defer(() => smtp.close());
  const s = await startTestServer({
    config: { rateLimit: 10_000, smtpUrl: smtp.url, publicUrl: PUBLIC, mailFrom: "formsvc <forms@example.net>" },
  });
  defer(() => s.close());
  const o = await seedOwner(s, "owner@example.com", {
    name: "Contact",
    emailEnabled: true,
    developerNotifications: true,
  });
  return { smtp, s, o };
}

const to = (m: { to?: unknown }) => (m.to as { text: string }).text;
const patch = (s: TestServer, o: { key: string; formId: string }, body: unknown) =>
  s.send("PATCH", `/forms/${o.formId}`, o.key, body);
const linkOf = (text: string) => new RegExp(`${PUBLIC}/confirm/([A-Za-z0-9_-]{43})`).exec(text)![1]!;

describe("notification recipients", () => {
  test("an added address gets only its confirmation until it opens the link, then each notification; the owner hears meanwhile", async () => {
    const { smtp, s, o } = await setup();
    const changed = await patch(s, o, {
      recipients: ["Team@Example.com", { email: "owner@example.com", confirmed: false }],
    });
    expect(changed.status).toBe(200);
    expect(changed.body.recipients).toEqual([
      { email: "team@example.com", confirmed: false },
      { email: "owner@example.com", confirmed: true },
    ]);
    const [confirmation] = await smtp.waitFor(1);
    expect(to(confirmation!)).toBe("team@example.com");
    await s.submit(o.key, o.formId, { email: "ada@example.com", message: "first" });
    const [, first] = await smtp.waitFor(2);
    // The owner is listed and confirmed: it alone hears of the first submission.
    expect(to(first!)).toBe("owner@example.com");

    const opened = await fetch(`${s.url}/confirm/${linkOf(confirmation!.text!)}`, { method: "POST" });
    expect(opened.status).toBe(200);
    expect((await s.send("GET", `/forms/${o.formId}`, o.key)).body.recipients).toEqual([
      { email: "team@example.com", confirmed: true },
      { email: "owner@example.com", confirmed: true },
    ]);
    await s.submit(o.key, o.formId, { email: "ada@example.com", message: "second" });
    const later = (await smtp.waitFor(4)).slice(2);
    expect(later.map(to).sort()).toEqual(["owner@example.com", "team@example.com"]);
    expect(later.every((m) => m.text!.includes("second"))).toBe(true);
  });

  test("while no listed address is confirmed the owner gets the notifications; one removed and added again confirms again, with its link", async () => {
    const { smtp, s, o } = await setup();
    await patch(s, o, { recipients: ["team@example.com"] });
    const [confirmation] = await smtp.waitFor(1);
    await s.submit(o.key, o.formId, { message: "hello" });
    const [, fallback] = await smtp.waitFor(2);
    expect(to(fallback!)).toBe("owner@example.com");
    const link = `${s.url}/confirm/${linkOf(confirmation!.text!)}`;
    await fetch(link, { method: "POST" });
    await patch(s, o, { recipients: [] });
    const again = await patch(s, o, { recipients: ["team@example.com"] });
    expect(again.body.recipients).toEqual([{ email: "team@example.com", confirmed: false }]);
    // No second email within the day: the link it has confirms it again.
    await Bun.sleep(300);
    expect(smtp.messages).toHaveLength(2);
    expect((await fetch(link, { method: "POST" })).status).toBe(200);
    expect((await patch(s, o, {})).body.recipients).toEqual([{ email: "team@example.com", confirmed: true }]);
  });

  test.each([
    ["a list of 11 addresses", { recipients: Array.from({ length: 11 }, (_, i) => `r${i}@example.com`) }, "recipients"],
    [
      "something that is not an address",
      { recipients: ["team@example.com", "not an address"] },
      "not an email address",
    ],
    [
      "a template of 100 KB",
      { notificationTemplate: { subject: "s", text: "x".repeat(100_000) } },
      "notificationTemplate",
    ],
    [
      "an unclosed section",
      { notificationTemplate: { subject: "s", text: "a\n{{#fields}}{{name}}" } },
      'notificationTemplate.text is not a valid template: Unclosed section "fields" at 21',
    ],
    [
      "an unclosed tag",
      { notificationTemplate: { subject: "Hi {{name", text: "t" } },
      "notificationTemplate.subject is not a valid template: Unclosed tag at 9",
    ],
    ["a sender name on two lines", { fromName: "Acme\r\nBcc: x@example.com" }, "fromName"],
  ])("refuses %s with a 400 that names it, and changes nothing", async (_, body, message) => {
    const { smtp, s, o } = await setup();
    const before = (await s.send("GET", `/forms/${o.formId}`, o.key)).body;
    const res = await patch(s, o, body);
    expect(res.status).toBe(400);
    expect(res.body.error).toContain(message);
    expect((await s.send("GET", `/forms/${o.formId}`, o.key)).body).toEqual(before);
    await Bun.sleep(200);
    expect(smtp.messages.length).toBe(0);
  });
});

describe("the notification's wording", () => {
  test("a template fills subject and text, and the HTML part is the same text escaped", async () => {
    const { smtp, s, o } = await setup();
    const set = await patch(s, o, {
      notificationTemplate: {
        subject: "{{form.name}}: {{name}}",
        text: "Submission {{submission.id}}\n{{#fields}}{{name}}={{value}};{{/fields}} {{{name}}}",
      },
      fromName: 'Acme "Forms"',
    });
    expect(set.status).toBe(200);
    await s.submit(o.key, o.formId, { name: "<b>Ada</b>", email: "ada@example.com" });
    const [mail] = await smtp.waitFor(1);
    expect(mail!.subject).toBe("Contact: <b>Ada</b>");
    expect(mail!.text).toMatch(/^Submission sub_[0-9a-f]+\nname=<b>Ada<\/b>;email=ada@example.com; <b>Ada<\/b>$/);
    expect(mail!.html).toContain("name=&lt;b&gt;Ada&lt;/b&gt;;email=ada@example.com; &lt;b&gt;Ada&lt;/b&gt;");
    expect(mail!.html).not.toContain("<b>Ada");
    expect(mail!.from?.value[0]).toEqual({ name: 'Acme "Forms"', address: "forms@example.net" });
    expect(mail!.replyTo?.value[0]?.address).toBe("ada@example.com");
  });

  test("a drop-in page's _subject with CR and LF becomes the subject on one line, and starts no header", async () => {
    const { smtp, s, o } = await setup();
    await patch(s, o, { notificationTemplate: { subject: "from the template", text: "{{message}}" } });
    const body = new URLSearchParams({
      message: "hi",
      email: "ada@example.com",
      _subject: "Order\r\nBcc: victim@example.com\r\nX-Injected: yes",
    });
    const res = await fetch(`${s.url}/f/${o.formId}`, { method: "POST", body, redirect: "manual" });
    expect(res.status).toBeLessThan(400);
    const [mail] = await smtp.waitFor(1);
    expect(mail!.subject).toBe("Order Bcc: victim@example.com X-Injected: yes");
    expect(mail!.headers.has("x-injected")).toBe(false);
    expect(mail!.bcc).toBeUndefined();
    expect(to(mail!)).toBe("owner@example.com");
  });
});

describe("alerts to the owner", () => {
  test.each([
    ["a receiver answering 410 disables the webhook", () => new Response("gone", { status: 410 }), "410 Gone"],
    ["a delivery failing after its last retry", () => new Response("down", { status: 503 }), "after its last retry"],
  ])("%s: one email to the owner, with the form's email off", async (_, answer, says) => {
    const smtp = await startSmtpSink();
    defer(() => smtp.close());
    const receiver = startReceiver(answer);
    defer(() => receiver.close());
    const s = await startTestServer({
      config: { rateLimit: 10_000, smtpUrl: smtp.url, webhookAllowPrivate: true, webhookRetryScale: 0.00001 },
    });
    defer(() => s.close());
    const o = await seedOwner(s, "owner@example.com", { name: "Contact" });
    const hook = await s.send("POST", `/forms/${o.formId}/webhooks`, o.key, { url: receiver.url, format: "standard" });
    expect(hook.status).toBe(200);
    await s.submit(o.key, o.formId, { message: "hi" });
    const [alert] = await smtp.waitFor(1, 20_000);
    expect(to(alert!)).toBe("owner@example.com");
    expect(alert!.subject).toBe("Webhook problem on Contact");
    expect(alert!.text).toContain(says);
    expect(alert!.text).toContain(hook.body.id);
    expect(await s.query("SELECT kind FROM outbox WHERE webhook_id IS NULL")).toEqual([{ kind: "webhook_alert" }]);
    await Bun.sleep(500);
    expect(smtp.messages.length).toBe(1);
  });

  test("alerts the previous version queued as notifications (during a rolling upgrade) still go out as alerts", async () => {
    const smtp = await startSmtpSink();
    defer(() => smtp.close());
    const s = await startTestServer({ config: { rateLimit: 10_000, smtpUrl: smtp.url } });
    defer(() => s.close());
    const o = await seedOwner(s, "owner@example.com", { name: "Contact" });
    const at = new Date().toISOString();
    const queue = (formId: string | null, payload: string) =>
      s.exec(
        `INSERT INTO outbox (kind, form_id, recipient, form_name, data, payload, submitted_at, created_at, queued_at, next_attempt_at)
         VALUES ('notification', ?1, 'owner@example.com', ?2, '{}', ?3, ?4, ?4, ?4, ?4)`,
        formId,
        formId ? "Contact" : "",
        payload,
        at,
      );
    await queue(o.formId, JSON.stringify({ alert: "the webhook wh_1 answered 410 Gone" }));
    await queue(null, JSON.stringify({ alert: "disk full", subject: "formsvc: a scheduled backup failed" }));
    await s.services.outbox.drain();
    const mails = await smtp.waitFor(2);
    expect(mails.map((m) => [m.subject, m.text?.trim()]).sort()).toEqual([
      ["Webhook problem on Contact", "On the form Contact, the webhook wh_1 answered 410 Gone"],
      ["formsvc: a scheduled backup failed", "disk full"],
    ]);
  });
});
