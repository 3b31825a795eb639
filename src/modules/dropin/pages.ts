import { createHash } from "node:crypto";
import { PAGE_CSP } from "../../http/assets";
import { escapeHtml } from "../../lib/template";

/** One stylesheet for the pages made for visitors: light and dark, readable on a phone. */
const STYLE = `:root{color-scheme:light dark;--bg:#f6f7f9;--card:#fff;--text:#1d2430;--muted:#5b6474;--accent:#2457c5;--bad:#b42318}
@media (prefers-color-scheme:dark){:root{--bg:#12151b;--card:#1c2029;--text:#e7eaf0;--muted:#a3abb9;--accent:#8ab0ff;--bad:#ff8a80}}
body{font-family:system-ui,sans-serif;margin:0;min-height:100vh;display:grid;place-items:center;background:var(--bg);color:var(--text)}
main{box-sizing:border-box;width:min(32rem,calc(100% - 2rem));margin:1rem;padding:2rem;background:var(--card);border-radius:12px;box-shadow:0 1px 4px #0003}
h1{font-size:1.4rem;margin:0 0 .75rem}p,li{line-height:1.5}ul{padding-left:1.2rem}a{color:var(--accent)}
.field{font-weight:600}.problems li{color:var(--bad)}`;

/** The pages' CSP: the dashboard's, with this one inline stylesheet admitted by its hash (no script at all). */
export const VISITOR_PAGE_CSP = PAGE_CSP.replace(
  "style-src 'self'",
  `style-src 'self' 'sha256-${createHash("sha256").update(STYLE).digest("base64")}'`,
);

/** A small page for a visitor: a title, what happened in a sentence, an optional list of field problems, and a link. */
function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body><main><h1>${escapeHtml(title)}</h1>${body}</main></body></html>
`;
}

const backLink = (back: string | null, text: string) =>
  back ? `<p><a href="${escapeHtml(back)}">${escapeHtml(text)}</a></p>` : "";

/** GET /f/{formId}/thanks: thanks the visitor, and links back to the page they came from when it is known and trusted. */
export function thanksPage(formName: string, back: string | null): string {
  return page(
    "Thank you!",
    `<p>Your answer to ${escapeHtml(formName)} has been sent.</p>${backLink(back, "Go back to the site")}`,
  );
}

/** A problem with one field, by its label (or name) when it has one. */
export interface PageProblem {
  label?: string;
  message: string;
}

/** A refused post, for a person: what went wrong in one sentence, each field's problem beside its label, and a way back. */
export function errorPage(sentence: string, problems: PageProblem[], back: string | null): string {
  const items = problems
    .map(
      (p) => `<li>${p.label ? `<span class="field">${escapeHtml(p.label)}</span>: ` : ""}${escapeHtml(p.message)}</li>`,
    )
    .join("");
  return page(
    "Your form was not sent",
    `<p role="alert">${escapeHtml(sentence)}</p>${items ? `<ul class="problems">${items}</ul>` : ""}${backLink(back, "Go back to the form")}`,
  );
}
