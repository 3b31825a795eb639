import { describe, expect, test } from "bun:test";
import type { FieldRule } from "../../src/client/index";
import { dropinSnippet, formSnippet } from "../../src/dashboard/app/snippet";
import { seedKey, seedOwner, startTestServer } from "../helpers/harness";

const base = {
  server: "https://forms.example.com",
  formId: "frm_1",
  formType: "contact",
  fields: null,
  apiKey: "fpk_abc",
  honeypotField: "_gotcha",
  redirectUrl: "",
};

describe("the embed snippet", () => {
  test("posts to the server's submit endpoint with the publishable key in the action and the form's id", () => {
    const html = formSnippet(base);
    expect(html).toStartWith(
      '<form method="post" action="https://forms.example.com/api/v1/forms/submit?apiKey=fpk_abc">\n',
    );
    expect(html).toContain('<input type="hidden" name="formId" value="frm_1">');
    expect(html).not.toContain("redirectUrl");
    expect(html).toContain('<button type="submit">Send</button>');
  });

  test("hides the form's own honeypot field from people, and has none when the form has none", () => {
    expect(formSnippet({ ...base, honeypotField: "website_url" })).toContain(
      '<input type="text" name="website_url" tabindex="-1" autocomplete="off">',
    );
    expect(formSnippet({ ...base, honeypotField: "website_url" })).toContain('aria-hidden="true"');
    expect(formSnippet({ ...base, honeypotField: null })).not.toContain("aria-hidden");
  });

  test("a step is a heading, and a conditional field is not required by the browser (the server checks it when it applies)", () => {
    const fields: FieldRule[] = [
      { name: "topic", type: "select", options: ["a", "b"], required: true },
      { name: "more", type: "page", label: "More" },
      { name: "why", type: "text", required: true, showIf: { field: "topic", equals: "b" } },
    ];
    const html = dropinSnippet({ ...base, fields });
    expect(html).toContain("<h2>More</h2>");
    expect(html).toContain('<select name="topic" required>');
    expect(html).toMatch(/<input name="why"[^>]*>/);
    expect(/<input name="why"[^>]*>/.exec(html)![0]).not.toContain("required");
  });

  test("escapes what it writes into attributes", () => {
    const html = formSnippet({
      ...base,
      redirectUrl: 'https://www.example.com/thanks?a=1&b="2"',
      honeypotField: 'x"><script>',
    });
    expect(html).toContain('value="https://www.example.com/thanks?a=1&amp;b=&quot;2&quot;"');
    expect(html).not.toContain("<script>");
  });

  test("asks for the fields a form of its type usually has", () => {
    expect(formSnippet({ ...base, formType: "waitlist" })).not.toContain('name="message"');
    expect(formSnippet({ ...base, formType: "feedback" })).toContain('name="rating"');
    expect(formSnippet({ ...base, formType: "survey" })).toContain('name="message"');
  });
});

describe("the drop-in snippet", () => {
  const dropin = {
    server: "https://forms.example.com",
    formId: "frm_1",
    formType: "contact",
    honeypotField: "_gotcha",
  };

  test("posts to /f/{formId} with no key, no formId field and no script, and carries the honeypot", () => {
    const html = dropinSnippet({ ...dropin, fields: null });
    expect(html).toStartWith('<form method="post" action="https://forms.example.com/f/frm_1">\n');
    for (const absent of ["apiKey", "fpk_", "formId", "<script"]) expect(html).not.toContain(absent);
    expect(html).toContain('<input type="text" name="_gotcha" tabindex="-1" autocomplete="off">');
    // Without a fields list, the fields the form's type usually has.
    expect(html).toContain('<input name="email" type="email" autocomplete="email" required>');
  });

  test("is built from the form's fields, each as plain HTML with its rule's checks", () => {
    const html = dropinSnippet({
      ...dropin,
      honeypotField: null,
      fields: [
        { name: "email", type: "email", label: "Email", required: true, placeholder: "you@example.com" },
        { name: "name", type: "text", minLength: 2, maxLength: 80 },
        { name: "age", type: "number", min: 18, max: 120 },
        { name: "message", type: "textarea", label: "Message" },
        { name: "agree", type: "checkbox", label: "I agree", required: true },
        { name: "contact", type: "radio", label: "Reach me by", options: ["email", "phone"], required: true },
        { name: "size", type: "select", options: ["S", "M"], multiple: true },
        { name: "source", type: "hidden" },
      ],
    });
    expect(html.split("\n").slice(1, -3)).toEqual([
      '  <label>Email <input type="email" name="email" required placeholder="you@example.com"></label>',
      '  <label>name <input name="name" minlength="2" maxlength="80"></label>',
      '  <label>age <input type="number" name="age" min="18" max="120"></label>',
      '  <label>Message <textarea name="message"></textarea></label>',
      '  <label><input type="checkbox" name="agree" value="true" required> I agree</label>',
      "  <fieldset>",
      "    <legend>Reach me by</legend>",
      '    <label><input type="radio" name="contact" value="email" required> email</label>',
      '    <label><input type="radio" name="contact" value="phone" required> phone</label>',
      "  </fieldset>",
      "  <label>size",
      '    <select name="size" multiple>',
      '      <option value="S">S</option>',
      '      <option value="M">M</option>',
      "    </select>",
      "  </label>",
      '  <input type="hidden" name="source" value="">',
    ]);
    expect(html).not.toContain("aria-hidden");
  });

  test("posts multipart when a field takes a file, and escapes hostile labels and options", () => {
    const html = dropinSnippet({
      ...dropin,
      fields: [
        { name: "cv", type: "file", label: "<script>x</script>" },
        { name: "pick", type: "select", options: ['"><script>'] },
      ],
    });
    expect(html).toStartWith(
      '<form method="post" action="https://forms.example.com/f/frm_1" enctype="multipart/form-data">',
    );
    expect(html).not.toContain("<script");
    expect(html).toContain("&lt;script&gt;x&lt;/script&gt;");
  });
});

describe("the publishable-key snippet of a form with fields, posted as it is", () => {
  test("is accepted by the form's own rules (it offered the type's usual fields, a 400 VALIDATION_FAILED)", async () => {
    const server = await startTestServer();
    try {
      const fields: FieldRule[] = [
        { name: "subject", type: "text", label: "Subject", required: true },
        { name: "email", type: "email", label: "Email", required: true },
        { name: "topic", type: "select", label: "Topic", options: ["Sales", "Support"], required: true },
      ];
      const owner = await seedOwner(server, "snippet@example.com", { fields, allowExtraFields: false });
      const apiKey = (await seedKey(server, owner.ownerEmail, { publishable: true, forms: [owner.formId] })).key;
      const html = formSnippet({ ...base, server: server.url, formId: owner.formId, fields, apiKey });
      // What a browser sends for it, filled in: every named control, the honeypot left empty.
      const values: Record<string, string> = { email: "ada@example.com", topic: "Sales", _gotcha: "" };
      const body = new URLSearchParams();
      for (const [, name, value] of html.matchAll(
        /<(?:input|textarea|select)[^>]*?name="([^"]+)"(?:[^>]*?value="([^"]*)")?/g,
      ))
        body.append(name!, value ?? values[name!] ?? "Hello");
      const action = /action="([^"]+)"/.exec(html)![1]!.replaceAll("&amp;", "&");
      const res = await server.json(action.slice(server.url.length), {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body,
      });
      expect([res.status, res.body.errors]).toEqual([200, undefined]);
      const [row] = await server.query("SELECT data FROM submissions WHERE id = ?", res.body.submissionId);
      expect(JSON.parse(row.data)).toMatchObject({ subject: "Hello", email: "ada@example.com", topic: "Sales" });
    } finally {
      await server.close();
    }
  });
});
