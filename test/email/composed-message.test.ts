import { describe, expect, test } from "bun:test";
import { createSmtpMailer } from "../../src/modules/outbox/mailer";
import type { MailMessage } from "../../src/modules/outbox/message";
import { cleanupAfterEach } from "../helpers/fixture";
import { startSmtpSink } from "../helpers/smtp-sink";

const defer = cleanupAfterEach();

const base: MailMessage = {
  to: "owner@example.com",
  replyTo: "ada@example.com",
  subject: "New submission: Contact",
  text: "name: Ada\nmessage: Hello",
  html: "<p>Hello</p>",
};

// Each message goes through the mailer to a real SMTP server and is read back by mailparser, as a
// mail client would read it: what the message said must come out unchanged.
const cases: { name: string; from?: string; message: MailMessage; expected: Record<string, unknown> }[] = [
  {
    name: "a plain message keeps its subject, parts, recipient and Reply-To",
    message: base,
    expected: { subject: base.subject, text: base.text, to: "owner@example.com", replyTo: "ada@example.com" },
  },
  {
    name: "a long subject in several scripts comes back whole",
    message: { ...base, subject: `Nouvelle soumission : «Contact» — ${"日本語のフォーム ".repeat(12)}✓` },
    expected: { subject: `Nouvelle soumission : «Contact» — ${"日本語のフォーム ".repeat(12)}✓` },
  },
  {
    name: "a sender name with quotes and backslashes is quoted",
    message: { ...base, fromName: 'Acme "Forms" \\ Co' },
    expected: { fromName: 'Acme "Forms" \\ Co', fromAddress: "forms@example.net" },
  },
  {
    name: "a sender name outside ASCII is encoded",
    message: { ...base, fromName: "Café Zoë" },
    expected: { fromName: "Café Zoë", fromAddress: "forms@example.net" },
  },
  {
    name: "a configured sender with a name is used as written",
    from: "Formulaires <forms@example.net>",
    message: base,
    expected: { fromName: "Formulaires", fromAddress: "forms@example.net" },
  },
  {
    name: "text and HTML outside ASCII, with lines that start with a dot, come back byte for byte",
    message: { ...base, text: "Zoë wrote:\n.\n..leading dots\n" + "é".repeat(200), html: "<p>Zoë ✓</p>" },
    expected: { text: "Zoë wrote:\n.\n..leading dots\n" + "é".repeat(200), html: "<p>Zoë ✓</p>" },
  },
  {
    // 57 and 114 bytes: base64 of exactly one and two full lines of 76.
    name: "parts whose base64 fills its last line exactly come back whole",
    message: { ...base, text: "t".repeat(57), html: `<p>${"h".repeat(107)}</p>` },
    expected: { text: "t".repeat(57), html: `<p>${"h".repeat(107)}</p>` },
  },
  {
    name: "a header the message adds is kept",
    message: { ...base, headers: { "Auto-Submitted": "auto-generated" } },
    expected: { autoSubmitted: "auto-generated" },
  },
  {
    name: "a subject with line breaks stays one header",
    message: { ...base, subject: "Order\r\nBcc: victim@example.com" },
    expected: { subject: "Order Bcc: victim@example.com", bcc: undefined },
  },
  {
    // Written in punycode; mailparser reads it back as the domain's own name.
    name: "a recipient with a domain outside ASCII arrives at that domain",
    message: { ...base, to: "owner@bücher.example" },
    expected: { to: "owner@bücher.example" },
  },
  {
    name: "a Reply-To with a local part outside ASCII arrives (UTF-8 headers)",
    message: { ...base, replyTo: "zoë@example.com" },
    expected: { subject: base.subject, replyTo: "zoë@example.com" },
  },
  {
    name: "a recipient with a local part outside ASCII arrives",
    message: { ...base, to: "zoë@example.com" },
    expected: { subject: base.subject, to: "zoë@example.com" },
  },
  {
    name: "a configured sender with a name outside ASCII is encoded",
    from: "Formulaires Zoë <forms@example.net>",
    message: base,
    expected: { fromName: "Formulaires Zoë", fromAddress: "forms@example.net" },
  },
  {
    name: "a configured sender with a quoted name keeps the name",
    from: '"Zoë, Forms" <forms@example.net>',
    message: base,
    expected: { fromName: "Zoë, Forms", fromAddress: "forms@example.net" },
  },
  {
    name: "a configured sender that is an address alone is used as written",
    from: "forms@example.net",
    message: base,
    expected: { fromName: "", fromAddress: "forms@example.net" },
  },
];

describe("the mailer's messages as a mail client reads them", () => {
  for (const c of cases)
    test(c.name, async () => {
      const sink = await startSmtpSink();
      const mailer = createSmtpMailer(new URL(sink.url), c.from ?? "formsvc <forms@example.net>");
      defer(async () => (mailer.close(), await sink.close()));
      await mailer.send(c.message);
      const [mail] = await sink.waitFor(1);
      const got: Record<string, unknown> = {
        subject: mail!.subject,
        text: mail!.text?.replace(/\n$/, ""),
        html: typeof mail!.html === "string" ? mail!.html.replace(/\n$/, "") : mail!.html,
        to: (mail!.to as { value: { address: string }[] }).value[0]!.address,
        replyTo: mail!.replyTo?.value[0]?.address,
        fromName: mail!.from?.value[0]?.name,
        fromAddress: mail!.from?.value[0]?.address,
        autoSubmitted: mail!.headers.get("auto-submitted"),
        bcc: mail!.bcc,
      };
      for (const [k, v] of Object.entries(c.expected)) expect({ [k]: got[k] }).toEqual({ [k]: v });
    });
});
