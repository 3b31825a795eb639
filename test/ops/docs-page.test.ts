import { beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { useServer } from "../helpers/fixture";

const ROOT = join(import.meta.dir, "../..");

const server = useServer();
let page: Response;
let html: string;
/** Every src= and href= in the page, in order. */
let urls: string[];

beforeAll(async () => {
  page = await server.request("/docs");
  html = await page.text();
  urls = [...html.matchAll(/\b(?:src|href)="([^"]*)"/g)].map((m) => m[1]!);
});

const cspOf = (res: Response) =>
  new Map(
    (res.headers.get("content-security-policy") ?? "")
      .split(";")
      .map((d) => d.trim().split(/\s+/))
      .filter((d) => d[0])
      .map(([name, ...sources]) => [name!, sources]),
  );

const typeFor: Record<string, string> = { js: "text/javascript", css: "text/css", png: "image/png" };

describe("the /docs page", () => {
  test("is HTML, served without an API key", () => {
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
  });

  test("names only paths on this server, and links the OpenAPI document in plain text", () => {
    expect(urls.length).toBeGreaterThanOrEqual(5);
    for (const url of urls) expect(url, url).toMatch(/^\/(?!\/)/);
    expect(html).toContain('<a href="/api/v1/openapi.json">/api/v1/openapi.json</a>');
  });

  test("carries a Content-Security-Policy that allows this server alone, with no inline script or style", () => {
    const csp = cspOf(page);
    expect(csp.get("default-src")).toEqual(["'none'"]);
    for (const directive of ["script-src", "style-src", "connect-src"])
      expect(csp.get(directive), directive).toEqual(["'self'"]);
    expect(csp.get("img-src")).toEqual(["'self'", "data:"]);
    expect(csp.get("frame-ancestors")).toEqual(["'none'"]);
  });

  test("serves every asset it names with its content type, a year of caching and the rate-limit headers", async () => {
    const assets = urls.filter((u) => u.startsWith("/docs/assets/"));
    expect(assets.length).toBe(5);
    for (const asset of assets) {
      const res = await server.request(asset);
      const body = await res.arrayBuffer();
      expect(res.status, asset).toBe(200);
      expect(res.headers.get("content-type"), asset).toStartWith(typeFor[asset.split(".").pop()!]!);
      expect(res.headers.get("cache-control"), asset).toBe("public, max-age=31536000, immutable");
      expect(res.headers.get("x-ratelimit-remaining"), asset).toMatch(/^\d+$/);
      expect(body.byteLength, asset).toBeGreaterThan(100);
    }
  });

  test("serves the Swagger UI bundle of the exact version package.json pins, byte for byte", async () => {
    const pinned = pkg.dependencies["swagger-ui-dist"];
    expect(pinned).toMatch(/^\d+\.\d+\.\d+$/);
    const bundle = urls.find((u) => u.endsWith("/swagger-ui-bundle.js"));
    expect(bundle).toBe(`/docs/assets/swagger-ui-${pinned}/swagger-ui-bundle.js`);
    const served = new Uint8Array(await (await server.request(bundle!)).arrayBuffer());
    const installed = await Bun.file(join(ROOT, "node_modules/swagger-ui-dist/swagger-ui-bundle.js")).bytes();
    expect(served.byteLength).toBeGreaterThan(1_000_000);
    expect(Bun.hash(served)).toBe(Bun.hash(installed));
  });

  test("is not part of the OpenAPI document", async () => {
    const doc = await server.json("/api/v1/openapi.json");
    expect(Object.keys(doc.body.paths).filter((p) => p.startsWith("/docs"))).toEqual([]);
  });

  test("answers an asset name it does not serve with the JSON 404", async () => {
    const res = await server.json("/docs/assets/swagger-ui-0.0.0/swagger-ui-bundle.js");
    expect(res.status).toBe(404);
    expect(res.body.code).toBe("ROUTE_NOT_FOUND");
  });
});
