import { describe, expect, test } from "bun:test";
import { cleanupAfterEach } from "../helpers/fixture";
import { seedOwner, startTestServer, type TestServer } from "../helpers/harness";
import { startSmtpSink, type SmtpSink } from "../helpers/smtp-sink";

const defer = cleanupAfterEach();

async function setup(): Promise<{ smtp: SmtpSink; s: TestServer; o: { key: string; formId: string } }> {
  const smtp = await startSmtpSink();
  defer(() => smtp.close());
  const s = await startTestServer({ config: { rateLimit: 10_000, smtpUrl: smtp.url, mailFrom: "forms@example.net" } });
  defer(() => s.close());
  const o = await seedOwner(s, "owner@example.com", {
    name: "Contact",
    emailEnabled: true,
    developerNotifications: true,
  });
  return { smtp, s, o };
}

const preview = (s: TestServer, o: { key: string; formId: string }, body: unknown = {}) =>
  s.send("POST", `/forms/${o.formId}/notification-preview`, o.key, body);
const TEMPLATE = {
  subject: "{{form.name}}: {{name}}",
  text: "Submission {{submission.id}}\n{{#fields}}{{name}}={{value}};{{/fields}} {{{name}}}",
};

describe("the notification preview", () => {
  test("renders the form's latest submission exactly as the email that was sent for it", async () => {
    const { smtp, s, o } = await setup();
    expect((await s.send("PATCH", `/forms/${o.formId}`, o.key, { notificationTemplate: TEMPLATE })).status).toBe(200);
    await s.submit(o.key, o.formId, { name: "first", email: "first@example.com" });
    const second = await s.submit(o.key, o.formId, { name: "<b>Ada</b>", email: "ada@example.com" });
    const mails = await smtp.waitFor(2);
    const sent = mails.find((m) => m.text!.includes(second.body.submissionId))!;

    const res = await preview(s, o);
    expect(res.status).toBe(200);
    expect(res.body.submissionId).toBe(second.body.submissionId);
    expect(res.body.subject).toBe(sent.subject!);
    expect(res.body.subject).toBe("Contact: <b>Ada</b>");
    expect(res.body.text).toBe(sent.text!.trimEnd());
    expect(res.body.html).toBe((sent.html as string).trimEnd());
    expect(res.body.html).toContain("&lt;b&gt;Ada&lt;/b&gt;");
    expect(res.body.html).not.toContain("<b>Ada");
  });

  test("previews a template that is not saved, and formsvc's own email for null, changing and sending nothing", async () => {
    const { smtp, s, o } = await setup();
    await s.submit(o.key, o.formId, { name: "Grace", message: "Hello <there>" });
    await smtp.waitFor(1);
    const before = (await s.send("GET", `/forms/${o.formId}`, o.key)).body;

    const drafted = await preview(s, o, { template: { subject: "Hi {{name}}", text: "{{message}} ({{form.name}})" } });
    expect(drafted.status).toBe(200);
    expect(drafted.body).toMatchObject({ subject: "Hi Grace", text: "Hello <there> (Contact)" });
    expect(drafted.body.html).toContain("Hello &lt;there&gt; (Contact)");

    const own = await preview(s, o, { template: null });
    expect(own.body.subject).toBe("New submission: Contact");
    expect(own.body.text).toContain("Message: Hello <there>");
    expect(own.body.html).toContain('<td style="white-space:pre-wrap">Hello &lt;there&gt;</td>');

    expect((await s.send("GET", `/forms/${o.formId}`, o.key)).body).toEqual(before);
    await Bun.sleep(200);
    expect(smtp.messages.length).toBe(1);
  });

  test("renders a sample built from the form's fields while it has no submission in its inbox", async () => {
    const { s, o } = await setup();
    await s.send("PATCH", `/forms/${o.formId}`, o.key, {
      fields: [
        { name: "email", type: "email", required: true },
        { name: "topic", type: "select", options: ["sales", "support"] },
        { name: "seats", type: "number" },
      ],
    });
    const res = await preview(s, o, {
      template: { subject: "{{topic}}", text: "{{#fields}}{{name}}: {{value}}\n{{/fields}}" },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      submissionId: null,
      subject: "sales",
      text: "email: ada@example.com\ntopic: sales\nseats: 42\n",
    });
  });

  test.each([
    [
      "an unclosed section",
      { template: { subject: "s", text: "a\n{{#fields}}{{name}}" } },
      'notificationTemplate.text is not a valid template: Unclosed section "fields" at 21',
    ],
    ["an unclosed tag", { template: { subject: "Hi {{name", text: "t" } }, "Unclosed tag at 9"],
    ["a template of 100 KB", { template: { subject: "s", text: "x".repeat(100_000) } }, "notificationTemplate"],
    ["an empty subject", { template: { subject: " ", text: "t" } }, "needs a subject and a text"],
    ["a template that is not an object", { template: "{{name}}" }, "notificationTemplate"],
    ["an unknown field", { template: null, recipients: ["x@example.com"] }, "unknown field recipients"],
  ])("refuses %s with a 400 that says what is wrong", async (_, body, message) => {
    const { s, o } = await setup();
    const res = await preview(s, o, body);
    expect(res.status).toBe(400);
    expect(res.body.error).toContain(message);
  });

  test("answers 404 for a form that does not exist and 403 for another owner's", async () => {
    const { s, o } = await setup();
    const other = await seedOwner(s, "other@example.com", { name: "Theirs" });
    expect((await s.send("POST", "/forms/frm_nothing/notification-preview", o.key, {})).status).toBe(404);
    const theirs = await s.send("POST", `/forms/${other.formId}/notification-preview`, o.key, {});
    expect(theirs.status).toBe(403);
    expect(JSON.stringify(theirs.body)).not.toContain("other@example.com");
  });
});
