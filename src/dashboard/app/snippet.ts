// The HTML a site pastes to put a form on a page: the no-JavaScript form of the README's
// "Put a form on your website" (examples/contact.html), filled in for one form and one publishable
// key, with the fields its type usually has.

export interface SnippetInput {
  /** formsvc's own origin, e.g. https://forms.example.com */
  server: string;
  formId: string;
  formType: string;
  /** The publishable key; a placeholder when there is none yet. */
  apiKey: string;
  /** The form's honeypot field, or null when it has none. */
  honeypotField: string | null;
  /** The page to send people to afterwards, or "" for none. */
  redirectUrl: string;
}

const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

const NAME = `<label>Name <input name="name" autocomplete="name" required></label>`;
const EMAIL = `<label>Email <input name="email" type="email" autocomplete="email" required></label>`;
const MESSAGE = `<label>Message <textarea name="message" required></textarea></label>`;

/** The fields the API's form types usually carry (SPEC: "typical data keys by form type"). */
const FIELDS: Record<string, string[]> = {
  contact: [NAME, EMAIL, MESSAGE],
  feedback: [
    EMAIL,
    `<label>Rating (1–5) <input name="rating" type="number" min="1" max="5" required></label>`,
    MESSAGE,
  ],
  waitlist: [NAME, EMAIL],
};

/** The snippet, ready to paste. */
export function formSnippet(s: SnippetInput): string {
  const action = `${s.server}/api/v1/forms/submit?apiKey=${encodeURIComponent(s.apiKey).replace(/%E2%80%A6/g, "…")}`;
  const lines = [
    `<form method="post" action="${esc(action)}">`,
    `  <input type="hidden" name="formId" value="${esc(s.formId)}">`,
    ...(s.redirectUrl ? [`  <input type="hidden" name="redirectUrl" value="${esc(s.redirectUrl)}">`] : []),
    ...(FIELDS[s.formType] ?? [NAME, EMAIL, MESSAGE]).map((f) => `  ${f}`),
    ...(s.honeypotField
      ? [
          `  <!--`,
          `    The honeypot: people never see it, so a filled one means a bot, and formsvc stores that`,
          `    submission as spam. Off screen rather than display:none (which some bots skip), hidden from`,
          `    screen readers (aria-hidden), out of the Tab order (tabindex="-1"), never autofilled`,
          `    (autocomplete="off", and a name and label no autofill heuristic matches).`,
          `  -->`,
          `  <div style="position: absolute; left: -10000px; width: 1px; height: 1px; overflow: hidden" aria-hidden="true">`,
          `    <label>Leave this empty <input type="text" name="${esc(s.honeypotField)}" tabindex="-1" autocomplete="off"></label>`,
          `  </div>`,
        ]
      : []),
    `  <button type="submit">Send</button>`,
    `</form>`,
  ];
  return `${lines.join("\n")}\n`;
}
