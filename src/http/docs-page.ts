import { Elysia } from "elysia";
import { asset, CSS, JS, PAGE_CSP } from "./assets";
// A file import yields a path: into node_modules from a checkout, under /$bunfs/ inside the compiled
// binary, which embeds the file (as src/lib/geo.ts does with the geo data). Swagger UI is pinned in
// package.json, so /docs draws the same way on a machine without internet as on the day it was built.
import bundlePath from "swagger-ui-dist/swagger-ui-bundle.js" with { type: "file" };
import cssPath from "swagger-ui-dist/swagger-ui.css" with { type: "file" };
import faviconPath from "swagger-ui-dist/favicon-32x32.png" with { type: "file" };
import swaggerUi from "swagger-ui-dist/package.json" with { type: "json" };

// The document @elysiajs/openapi serves (its specPath in docs.ts).
const SPEC_PATH = "/api/v1/openapi.json";

// Swagger UI's settings. Nothing here may name another host: the page's CSP would refuse it anyway.
const INIT_JS = `"use strict";
// formsvc /docs: Swagger UI over the server's own OpenAPI document, from this server only.
window.ui = SwaggerUIBundle({
  url: ${JSON.stringify(SPEC_PATH)},
  dom_id: "#reference",
  // BaseLayout, not the standalone preset's: no top bar with a box for loading another host's document.
  layout: "BaseLayout",
  presets: [SwaggerUIBundle.presets.apis],
  // null: no validity badge, which would send the document to validator.swagger.io.
  validatorUrl: null,
  // Ignore ?url= and ?configUrl= in the page address: they would fetch a document from anywhere.
  queryConfigEnabled: false,
  deepLinking: true,
  docExpansion: "list",
  defaultModelsExpandDepth: 0,
  displayRequestDuration: true,
});
`;

const PAGE_CSS = `body { margin: 0; background: #fff; color: #3b4151; font-family: sans-serif; }
.formsvc-docs-header { max-width: 1460px; margin: 0 auto; padding: 16px 20px 0; box-sizing: border-box; }
.formsvc-docs-header h1 { margin: 0 0 4px; font-size: 20px; }
.formsvc-docs-header p { margin: 0; font-size: 14px; }
.formsvc-docs-header a { color: #4990e2; }
`;

const hashed = (name: string, text: string, ext: string) =>
  `${name}-${new Bun.CryptoHasher("sha256").update(text).digest("hex").slice(0, 12)}.${ext}`;

// Every asset URL changes when its content does (Swagger UI's version, or a hash of our own text),
// so browsers may keep each one for a year without ever showing a stale page.
const ASSETS = "/docs/assets";
const VENDOR = `${ASSETS}/swagger-ui-${swaggerUi.version}`;
export const DOCS_ASSETS = {
  bundle: `${VENDOR}/swagger-ui-bundle.js`,
  css: `${VENDOR}/swagger-ui.css`,
  favicon: `${VENDOR}/favicon-32x32.png`,
  init: `${ASSETS}/${hashed("init", INIT_JS, "js")}`,
  pageCss: `${ASSETS}/${hashed("page", PAGE_CSS, "css")}`,
} as const;

const PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>formsvc API reference</title>
<link rel="icon" type="image/png" href="${DOCS_ASSETS.favicon}">
<link rel="stylesheet" href="${DOCS_ASSETS.css}">
<link rel="stylesheet" href="${DOCS_ASSETS.pageCss}">
</head>
<body>
<header class="formsvc-docs-header">
<h1>formsvc API reference</h1>
<p>The OpenAPI 3.1 document behind this page is at <a href="${SPEC_PATH}">${SPEC_PATH}</a>.</p>
<noscript><p>This page draws the reference with JavaScript; without it, read the document at ${SPEC_PATH}.</p></noscript>
</header>
<main id="reference"></main>
<script src="${DOCS_ASSETS.bundle}"></script>
<script src="${DOCS_ASSETS.init}"></script>
</body>
</html>
`;

/**
 * GET /docs and its assets: an API reference that works offline and from the binary, loading
 * nothing from any other host. Outside the versioned API, not in the OpenAPI document, no API key.
 */
export function docsPage() {
  const hide = { detail: { hide: true } };
  return new Elysia({ name: "docs-page" })
    .get(
      "/docs",
      ({ set }) => {
        set.headers["content-type"] = "text/html; charset=utf-8";
        set.headers["content-security-policy"] = PAGE_CSP;
        set.headers["referrer-policy"] = "no-referrer";
        return PAGE_HTML;
      },
      hide,
    )
    .get(
      DOCS_ASSETS.bundle,
      asset(() => Bun.file(bundlePath), JS),
      hide,
    )
    .get(
      DOCS_ASSETS.css,
      asset(() => Bun.file(cssPath), CSS),
      hide,
    )
    .get(
      DOCS_ASSETS.favicon,
      asset(() => Bun.file(faviconPath), "image/png"),
      hide,
    )
    .get(
      DOCS_ASSETS.init,
      asset(() => INIT_JS, JS),
      hide,
    )
    .get(
      DOCS_ASSETS.pageCss,
      asset(() => PAGE_CSS, CSS),
      hide,
    );
}
