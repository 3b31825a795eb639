import { beforeAll, describe, expect, test } from "bun:test";
import { gunzipSync } from "node:zlib";
import { createHash } from "node:crypto";
import { MAIL_STYLES } from "../../src/modules/notifications/message";
import { useServer } from "../helpers/fixture";

const server = useServer();
let page: Response;
let html: string;
let assets: string[];

beforeAll(async () => {
  page = await server.request("/dashboard");
  html = await page.text();
  assets = [...html.matchAll(/\b(?:src|href)="(\/dashboard\/assets\/[^"]+)"/g)].map((m) => m[1]!);
});

const cspOf = (res: Response) =>
  new Map(
    (res.headers.get("content-security-policy") ?? "")
      .split(";")
      .map((d) => d.trim().split(/\s+/))
      .filter((d) => d[0])
      .map(([name, ...sources]) => [name!, sources]),
  );

/** The asset's bytes as the server sends them to a browser that takes gzip, and unpacked. */
async function fetchAsset(path: string) {
  const res = await fetch(server.url + path, {
    headers: { "accept-encoding": "gzip" },
    decompress: false,
  } as RequestInit);
  const sent = new Uint8Array(await res.arrayBuffer());
  const gzipped = res.headers.get("content-encoding") === "gzip";
  return { res, sent, text: new TextDecoder().decode(gzipped ? gunzipSync(sent) : sent) };
}

describe("the /dashboard page", () => {
  test("is an HTML page that is never cached, served without a key", () => {
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(page.headers.get("cache-control")).toBe("no-store");
  });

  test("allows script, style and connections from this server alone, no inline script, and no framing", () => {
    const csp = cspOf(page);
    expect(csp.get("default-src")).toEqual(["'none'"]);
    for (const directive of ["script-src", "connect-src"]) expect(csp.get(directive), directive).toEqual(["'self'"]);
    // Styles: this server's files, and the notification preview's inline declarations by hash, never 'unsafe-inline'.
    const hashOf = (css: string) => `'sha256-${createHash("sha256").update(css).digest("base64")}'`;
    expect(csp.get("style-src")).toEqual(["'self'", "'unsafe-hashes'", ...Object.values(MAIL_STYLES).map(hashOf)]);
    expect(csp.get("frame-ancestors")).toEqual(["'none'"]);
    expect(csp.get("base-uri")).toEqual(["'none'"]);
    expect(page.headers.get("x-frame-options")).toBe("DENY");
    expect(page.headers.get("x-content-type-options")).toBe("nosniff");
    expect(page.headers.get("referrer-policy")).toBe("no-referrer");
    expect(page.headers.get("cross-origin-opener-policy")).toBe("same-origin");
    // No inline script: every <script> has a src on this server, and no element carries an on… handler.
    expect([...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0])).toEqual([
      expect.stringMatching(/^<script type="module" src="\/dashboard\/assets\/main-[a-z0-9]+\.js">$/),
    ]);
    expect(html).not.toMatch(/<script>|\son[a-z]+=/i);
    expect(page.headers.get("access-control-allow-origin")).toBeNull();
  });

  test("names only its own script and stylesheet, each named by its content", () => {
    expect(assets).toHaveLength(2);
    expect(assets.some((a) => /\/main-[a-z0-9]+\.js$/.test(a))).toBe(true);
    expect(assets.some((a) => /\/main-[a-z0-9]+\.css$/.test(a))).toBe(true);
    expect(html).not.toMatch(/(?:src|href)="(?:https?:)?\/\//);
  });

  test("serves its files for a year, gzipped for browsers that take it, plain for others", async () => {
    for (const asset of assets) {
      const { res, text } = await fetchAsset(asset);
      expect(res.status, asset).toBe(200);
      expect(res.headers.get("content-type"), asset).toStartWith(
        asset.endsWith(".js") ? "text/javascript" : "text/css",
      );
      expect(res.headers.get("cache-control"), asset).toBe("public, max-age=31536000, immutable");
      expect(res.headers.get("content-encoding"), asset).toBe("gzip");
      expect(res.headers.get("vary"), asset).toBe("Accept-Encoding");
      const plain = await fetch(server.url + asset, { headers: { "accept-encoding": "identity" } });
      expect(plain.headers.get("content-encoding"), asset).toBeNull();
      expect(await plain.text(), asset).toBe(text);
    }
  });

  test("keeps all its JavaScript under 150 KB gzipped, and names no other host in it", async () => {
    let gzipped = 0;
    for (const asset of assets.filter((a) => a.endsWith(".js"))) {
      const { sent, text } = await fetchAsset(asset);
      gzipped += sent.byteLength;
      // Preact, signals and uPlot are inside: nothing is fetched from a CDN.
      expect(text).not.toMatch(/\bimport\s*\(?\s*["']https?:/);
    }
    console.log(`dashboard JavaScript: ${(gzipped / 1024).toFixed(1)} KB gzipped`);
    expect(gzipped).toBeGreaterThan(10_000);
    expect(gzipped).toBeLessThanOrEqual(150 * 1024);
  });

  test("answers a file it does not have with a JSON 404", async () => {
    const res = await server.request("/dashboard/assets/main-nothere.js");
    expect(res.status).toBe(404);
    expect((await res.json()).error).toContain("reload /dashboard");
  });

  test("is not part of the API's OpenAPI document", async () => {
    const doc = (await server.json("/api/v1/openapi.json")).body;
    expect(Object.keys(doc.paths).filter((p) => p.includes("dashboard"))).toEqual([]);
  });
});
