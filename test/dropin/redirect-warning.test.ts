import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { seedOwner, startTestServer, type TestServer } from "../helpers/harness";
import { startSmtpSink, type SmtpSink } from "../helpers/smtp-sink";

// The finding: a page tried from a local copy sent `_next` on its production origin; the post got a
// 400 page, nothing was stored, and the owner never learned of it.
let server: TestServer;
let smtp: SmtpSink;
let key: string;

const api = (method: string, path: string, body?: unknown) =>
  server.json(`/api/v1${path}`, {
    method,
    key,
    ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
  });
const newForm = async (settings: Record<string, unknown> = {}) =>
  (
    await api("POST", "/forms", {
      name: "Contact",
      emailSettings: { enabled: true, developerNotificationsEnabled: true },
      ...settings,
    })
  ).body as { id: string };
const stored = async (formId: string) =>
  (await api("GET", `/forms/${formId}/submissions`)).body.submissions.map(
    ({ data: { _meta, ...data } }: { data: Record<string, unknown> }) => data,
  );
const warnings = async (formId: string) => (await api("GET", `/forms/${formId}`)).body.warnings;
const post = (formId: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
  fetch(`${server.url}/f/${formId}`, {
    method: "POST",
    body: new URLSearchParams(fields),
    headers,
    redirect: "manual",
  });

beforeAll(async () => {
  smtp = await startSmtpSink();
  server = await startTestServer({ config: { rateLimit: 100_000, publicRateLimit: 1000, smtpUrl: smtp.url } });
  key = (await seedOwner(server, "redirects@example.com")).key;
});
afterAll(async () => {
  await server.close();
  await smtp.close();
});

describe("a redirect target that is not allowed", () => {
  test("a _next on another origin than the page's: stored, 303 to the thank-you page, a warning on the form and in the next notification", async () => {
    const { id } = await newForm();
    const res = await post(
      id,
      { message: "hello from the local copy", _next: "https://www.site.example/thanks" },
      { origin: "http://localhost:8080", referer: "http://localhost:8080/contact.html" },
    );
    expect(res.status).toBe(303);
    const thanks = new URL(res.headers.get("location")!);
    expect(thanks.pathname).toBe(`/f/${id}/thanks`);
    // The signed back link to the page the post came from still works.
    expect(await (await fetch(thanks)).text()).toContain('<a href="http://localhost:8080/contact.html">');
    expect(await stored(id)).toEqual([{ message: "hello from the local copy" }]);
    expect(await warnings(id)).toEqual([
      { code: "REDIRECT_NOT_ALLOWED", target: "https://www.site.example/thanks", at: expect.any(String) },
    ]);
    const [mail] = await smtp.waitFor(1);
    expect(mail!.text).toContain("https://www.site.example/thanks");
    expect(mail!.html || "").toContain("https://www.site.example/thanks");
  });

  test("a JSON answer's next is the thank-you page; the warnings keep the last 5 distinct targets, newest first", async () => {
    const { id } = await newForm({ allowedOrigins: ["https://site.example"] });
    for (const n of [1, 2, 3, 4, 5, 6, 6]) {
      const res = await post(
        id,
        { a: String(n), _next: `https://elsewhere.example/${n}` },
        { origin: "https://site.example", accept: "application/json" },
      );
      expect(res.status).toBe(200);
      expect(new URL((await res.json()).next).pathname).toBe(`/f/${id}/thanks`);
    }
    expect(await stored(id)).toHaveLength(7);
    expect((await warnings(id)).map((w: { target: string }) => w.target)).toEqual(
      [6, 5, 4, 3, 2].map((n) => `https://elsewhere.example/${n}`),
    );
  });

  test("a post from an origin that is not allowed is still refused", async () => {
    const { id } = await newForm({ allowedOrigins: ["https://site.example"] });
    const res = await post(
      id,
      { a: "1", _next: "https://site.example/ok" },
      { origin: "https://evil.example", accept: "application/json" },
    );
    expect([res.status, (await res.json()).code]).toEqual([403, "ORIGIN_NOT_ALLOWED"]);
    expect(await stored(id)).toEqual([]);
    expect(await warnings(id)).toEqual([]);
  });

  test("on /api/v1/forms/submit the answer is the one for a post without redirectUrl, for a target elsewhere or not a URL", async () => {
    const { id } = await newForm();
    for (const redirectUrl of ["https://evil.example/", "javascript:alert(1)", "https://user:pw@site.example/"]) {
      const res = await server.request("/api/v1/forms/submit", {
        method: "POST",
        key,
        body: new URLSearchParams({ formId: id, a: "1", redirectUrl }),
        headers: { origin: "https://site.example" },
        redirect: "manual",
      });
      expect([redirectUrl, res.status, res.headers.get("location")]).toEqual([redirectUrl, 200, null]);
      expect(Object.keys(await res.json()).sort()).toEqual(["submissionId", "success"]);
    }
    expect(await stored(id)).toHaveLength(3);
    expect((await warnings(id)).map((w: { target: string }) => w.target)).toEqual([
      "https://user:pw@site.example/",
      "javascript:alert(1)",
      "https://evil.example/",
    ]);
  });
});
