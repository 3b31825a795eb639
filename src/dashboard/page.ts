import { Elysia } from "elysia";
import { createHash } from "node:crypto";
import { CACHE_FOREVER, PAGE_CSP } from "../http/assets";
import { AppError } from "../lib/errors";
import { MAIL_STYLES } from "../modules/notifications/message";
import { dashboardBundle, type DashboardBundle } from "./bundle";

const BASE = "/dashboard";
const ASSETS = `${BASE}/assets`;

// The app's headers beside the front's (nosniff, X-Frame-Options, no-store): no referrer leaves it,
// no other window keeps a handle on it, no other site may load its files, and no powerful feature.
const PAGE_HEADERS = {
  "content-type": "text/html; charset=utf-8",
  // The settings' preview frames the form's hosted page (/f/{formId}), from this server only; the
  // notification's preview (a sandboxed srcdoc frame, under this policy) keeps the email's own
  // inline styles, those exact declarations and no other.
  "content-security-policy": `${PAGE_CSP.replace(
    "style-src 'self'",
    `style-src 'self' 'unsafe-hashes' ${Object.values(MAIL_STYLES)
      .map((css) => `'sha256-${createHash("sha256").update(css).digest("base64")}'`)
      .join(" ")}`,
  )}; frame-src 'self'`,
  "referrer-policy": "no-referrer",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin",
  "permissions-policy": "camera=(), microphone=(), geolocation=(), payment=(), usb=()",
};

// A mark drawn from text, so the tab shows something without another file.
const ICON = `data:image/svg+xml,${encodeURIComponent(
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#2856d8"/><path d="M10 9h12v3H13.5v3.5H20v3h-6.5V23H10z" fill="#fff"/></svg>',
)}`;

const page = (bundle: DashboardBundle) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="referrer" content="no-referrer">
<title>formsvc</title>
<link rel="icon" href="${ICON}">
<link rel="stylesheet" href="${ASSETS}/${bundle.style}">
<script type="module" src="${ASSETS}/${bundle.script}"></script>
</head>
<body>
<div id="app"><noscript><p class="noscript">The formsvc dashboard needs JavaScript. The same data is in the JSON API (<a href="/docs">/docs</a>) and on the command line.</p></noscript></div>
</body>
</html>
`;

/** Whether the browser takes gzip: the files are compressed once, when first asked. */
const acceptsGzip = (request: Request) => /\bgzip\b/.test(request.headers.get("accept-encoding") ?? "");

/**
 * GET /dashboard and its files: the owners' single-page app, a client of the JSON API under
 * /api/v1 like any other (it logs in with a session cookie). Outside the versioned API and not in
 * the OpenAPI document; the page is never cached, its files (named by their content) for a year.
 */
export function dashboardPage() {
  const hide = { detail: { hide: true } };
  const gzipped = new Map<string, Uint8Array>();
  const servePage = async ({ set }: { set: { headers: Record<string, unknown> } }) => {
    Object.assign(set.headers, PAGE_HEADERS);
    return page(await dashboardBundle());
  };
  return (
    new Elysia({ name: "dashboard-page" })
      .get(BASE, servePage, hide)
      // The addresses of the links `serve` prints and reset emails carry: real paths, since a link's
      // `#` part could be lost on its way through a mail client; the app reads them.
      .get(`${BASE}/setup`, servePage, hide)
      .get(`${BASE}/reset`, servePage, hide)
      // A digest's links: a form's submissions, and one submission (the app turns them into its routes).
      .get(`${BASE}/forms/:formId/submissions`, servePage, hide)
      .get(`${BASE}/forms/:formId/submissions/:submissionId`, servePage, hide)
      .get(
        `${ASSETS}/:name`,
        async ({ params, request, set }) => {
          const bundle = await dashboardBundle();
          const file = bundle.files.find((f) => f.name === params.name);
          if (!file)
            throw new AppError("NOT_FOUND", `no dashboard file ${params.name}; reload ${BASE} for the current ones`);
          set.headers["content-type"] = file.type;
          set.headers["cache-control"] = CACHE_FOREVER;
          set.headers["cross-origin-resource-policy"] = "same-origin";
          set.headers.vary = "Accept-Encoding";
          if (!acceptsGzip(request)) return file.text;
          let body = gzipped.get(file.name);
          if (!body) gzipped.set(file.name, (body = Bun.gzipSync(file.text)));
          set.headers["content-encoding"] = "gzip";
          return body;
        },
        hide,
      )
  );
}
