import { describe, expect, test } from "bun:test";
import { formSnippet } from "../../src/dashboard/app/snippet";

const base = {
  server: "https://forms.example.com",
  formId: "frm_1",
  formType: "contact",
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
