import { beforeAll, describe, expect, test } from "bun:test";
import { useServer } from "../helpers/fixture";
import { seedForm, seedKey, startTestServer } from "../helpers/harness";

const SITE = "https://www.site.example";
const server = useServer({ config: { rateLimit: 10_000, publicRateLimit: 10_000 } });
let secret: string;
let publishable: string;
let openForm: string;
let guarded: string;

const count = async (formId: string) =>
  (await server.query("SELECT count(*) AS n FROM submissions WHERE form_id = ?", formId))[0].n as number;

const post = (key: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  server.request("/api/v1/forms/submit", {
    method: "POST",
    key,
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });

beforeAll(async () => {
  secret = (await seedKey(server, "owner@example.com")).key;
  publishable = (await seedKey(server, "owner@example.com", { publishable: true })).key;
  openForm = (await seedForm(server, "owner@example.com", { name: "Open" })).id;
  guarded = (
    await seedForm(server, "owner@example.com", { name: "Guarded", allowedOrigins: [SITE, "http://localhost:8080/"] })
  ).id;
});

describe("CORS preflight", () => {
  test("on the submit endpoint is answered without a key: the request's origin, methods, headers, a day's max age", async () => {
    const res = await server.request("/api/v1/forms/submit", {
      method: "OPTIONS",
      headers: {
        origin: SITE,
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type, x-api-key",
      },
    });
    expect(res.status).toBe(204);
    expect(
      Object.fromEntries(
        [
          "access-control-allow-origin",
          "access-control-allow-methods",
          "access-control-allow-headers",
          "access-control-max-age",
          "vary",
          "allow",
        ].map((h) => [h, res.headers.get(h)]),
      ),
    ).toEqual({
      "access-control-allow-origin": SITE,
      "access-control-allow-methods": "POST",
      "access-control-allow-headers": "Content-Type, X-API-Key, Idempotency-Key",
      "access-control-max-age": "86400",
      vary: "Origin",
      allow: "POST",
    });
  });

  test("on every other endpoint carries no CORS header", async () => {
    for (const path of [
      "/api/v1/forms/list",
      `/api/v1/forms/${openForm}`,
      `/api/v1/forms/${openForm}/submissions`,
      "/healthz",
    ]) {
      const res = await server.request(path, {
        method: "OPTIONS",
        headers: { origin: SITE, "access-control-request-method": "GET" },
      });
      expect([path, res.status, res.headers.get("access-control-allow-origin")]).toEqual([path, 204, null]);
    }
  });
});

describe("CORS on actual answers", () => {
  test("a submit from another origin may be read by the page, with the rate-limit headers exposed", async () => {
    const res = await post(publishable, { formId: openForm, data: { a: 1 } }, { origin: SITE });
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBe(SITE);
    expect(res.headers.get("access-control-expose-headers")).toBe(
      "X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, X-Request-Id",
    );
  });

  test("errors of the submit endpoint are readable too (401, 400), so a page can say what went wrong", async () => {
    const unauthorized = await post("fpk_wrong", { formId: openForm, data: {} }, { origin: SITE });
    expect([unauthorized.status, unauthorized.headers.get("access-control-allow-origin")]).toEqual([401, SITE]);
    const invalid = await post(publishable, { formId: openForm }, { origin: SITE });
    expect([invalid.status, invalid.headers.get("access-control-allow-origin")]).toEqual([400, SITE]);
  });

  test("the private endpoints send none, even to a request with an Origin", async () => {
    const res = await server.request(`/api/v1/forms/${openForm}`, { key: secret, headers: { origin: SITE } });
    expect([res.status, res.headers.get("access-control-allow-origin")]).toEqual([200, null]);
  });

  test("a 429 of the submit endpoint carries them, so the page can back off", async () => {
    const tight = await startTestServer({ config: { publicRateLimit: 1 } });
    try {
      const key = (await seedKey(tight, "o@example.com", { publishable: true })).key;
      const form = (await seedForm(tight, "o@example.com", { name: "F" })).id;
      const send = () =>
        tight.request("/api/v1/forms/submit", {
          method: "POST",
          key,
          headers: { "content-type": "application/json", origin: SITE },
          body: JSON.stringify({ formId: form, data: {} }),
        });
      expect((await send()).status).toBe(200);
      const limited = await send();
      expect([
        limited.status,
        limited.headers.get("access-control-allow-origin"),
        limited.headers.get("retry-after"),
      ]).toEqual([429, SITE, "60"]);
    } finally {
      await tight.close();
    }
  });
});

describe("allowed origins", () => {
  test("accept a publishable-key submit from a listed origin, by Origin or, lacking it, by Referer", async () => {
    const before = await count(guarded);
    expect((await post(publishable, { formId: guarded, data: {} }, { origin: SITE })).status).toBe(200);
    expect((await post(publishable, { formId: guarded, data: {} }, { origin: "http://localhost:8080" })).status).toBe(
      200,
    );
    expect((await post(publishable, { formId: guarded, data: {} }, { referer: `${SITE}/contact?x=1` })).status).toBe(
      200,
    );
    expect(await count(guarded)).toBe(before + 3);
  });

  test("refuse it from any other origin, without an Origin or Referer, or from an opaque origin: 403, nothing stored, no CORS header", async () => {
    const before = await count(guarded);
    for (const headers of [
      { origin: "https://evil.example" },
      {},
      { origin: "null" },
      { origin: "null", referer: `${SITE}/` },
      { referer: "https://evil.example/" },
      { origin: `${SITE}.evil.example` },
    ] as Record<string, string>[]) {
      const res = await post(publishable, { formId: guarded, data: {} }, headers);
      expect([
        JSON.stringify(headers),
        res.status,
        (await res.json()).code,
        res.headers.get("access-control-allow-origin"),
      ]).toEqual([JSON.stringify(headers), 403, "ORIGIN_NOT_ALLOWED", null]);
    }
    expect(await count(guarded)).toBe(before);
  });

  test("do not bind a secret key on the server, which sends no Origin", async () => {
    expect((await post(secret, { formId: guarded, data: {} })).status).toBe(200);
  });

  test("restrict redirects to the listed origins, whatever the key: no open redirect (the target dropped, the post stored)", async () => {
    const before = await count(guarded);
    for (const key of [publishable, secret]) {
      const res = await post(
        key,
        { formId: guarded, data: {}, redirectUrl: "https://evil.example/thanks" },
        { origin: SITE },
      );
      const body = await res.json();
      expect([res.status, body.success, body.redirect]).toEqual([200, true, undefined]);
    }
    expect(await count(guarded)).toBe(before + 2);
    const form = new URLSearchParams({ formId: guarded, redirectUrl: `${SITE}/thanks`, message: "hi" });
    const ok = await server.request(`/api/v1/forms/submit?apiKey=${publishable}`, {
      method: "POST",
      body: form,
      headers: { origin: SITE },
      redirect: "manual",
    });
    expect([ok.status, ok.headers.get("location")]).toEqual([303, `${SITE}/thanks`]);
  });

  test("an empty list accepts any origin", async () => {
    expect((await post(publishable, { formId: openForm, data: {} }, { origin: "https://anyone.example" })).status).toBe(
      200,
    );
  });
});
