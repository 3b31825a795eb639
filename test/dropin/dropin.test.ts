import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createClient } from "@formspree/core";
import { seedOwner, startTestServer, type TestServer } from "../helpers/harness";

let server: TestServer;
let key: string;

const api = (method: string, path: string, body?: unknown) =>
  server.json(`/api/v1${path}`, {
    method,
    key,
    ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
  });
const newForm = async (settings: Record<string, unknown> = {}) =>
  (await api("POST", "/forms", { name: "Contact", ...settings })).body as { id: string };
const stored = async (formId: string, status = "inbox") =>
  (await api("GET", `/forms/${formId}/submissions?status=${status}`)).body.submissions.map(
    ({ data: { _meta, ...data } }: { data: Record<string, unknown> }) => ({ data }),
  );
const emails = async (formId: string) =>
  (await server.query<{ email: string | null }>("SELECT email FROM submissions WHERE form_id = ?", formId)).map(
    (r) => r.email,
  );
// Raw fetch: pages for people are outside the OpenAPI document.
const post = (formId: string, body: BodyInit, headers: Record<string, string> = {}, to: TestServer = server) =>
  fetch(`${to.url}/f/${formId}`, { method: "POST", body, headers, redirect: "manual" });
const form = (fields: Record<string, string | string[]>) => {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) for (const one of [v].flat()) p.append(k, one);
  return p;
};
const JSON_ACCEPT = { accept: "application/json" };

beforeAll(async () => {
  server = await startTestServer({ config: { rateLimit: 100_000, publicRateLimit: 1000 } });
  key = (await seedOwner(server, "dropin@example.com")).key;
});
afterAll(() => server.close());

describe("bodies", () => {
  const cases: [name: string, body: () => BodyInit, headers: Record<string, string>][] = [
    ["urlencoded", () => form({ name: "Ada", "topics[]": ["a", "b"] }), {}],
    [
      "multipart",
      () => {
        const f = new FormData();
        f.append("name", "Ada");
        f.append("topics[]", "a");
        f.append("topics[]", "b");
        return f;
      },
      {},
    ],
    ["flat JSON", () => JSON.stringify({ name: "Ada", topics: ["a", "b"] }), { "content-type": "application/json" }],
  ];
  for (const [name, body, headers] of cases) {
    test(`a ${name} post is stored with topics[] as topics`, async () => {
      const { id } = await newForm();
      const res = await post(id, body(), { ...headers, ...JSON_ACCEPT });
      expect(res.status).toBe(200);
      const answer = await res.json();
      expect(answer).toMatchObject({ ok: true, success: true });
      expect(answer.next).toContain(`/f/${id}/thanks`);
      expect((await stored(id)).map((s: { data: unknown }) => s.data)).toEqual([{ name: "Ada", topics: ["a", "b"] }]);
    });
  }

  test("a JSON body that is no object is a 400 and stores nothing", async () => {
    const { id } = await newForm();
    for (const body of ["[]", "null", "1", '"x"', "{"]) {
      const res = await post(id, body, { "content-type": "application/json" });
      expect(res.status).toBe(400);
    }
    expect(await stored(id)).toEqual([]);
  });
});

describe("control fields", () => {
  test("control fields are never stored; _subject and _replyto are stored as typed, and _replyto becomes the email", async () => {
    const { id } = await newForm();
    const res = await post(
      id,
      form({
        message: "hi",
        email: "other@example.com",
        _replyto: "Reply@Example.com",
        _subject: "About my order",
        _cc: "x@example.com",
        _gotcha: "",
      }),
      JSON_ACCEPT,
    );
    expect(res.status).toBe(200);
    expect(await stored(id)).toEqual([
      {
        data: { message: "hi", email: "other@example.com", _replyto: "Reply@Example.com", _subject: "About my order" },
      },
    ]);
    expect(await emails(id)).toEqual(["reply@example.com"]);
  });

  test("a form with fields and no extra fields takes _subject and _replyto, as a page sends them", async () => {
    const { id } = await newForm({ fields: [{ name: "message", type: "textarea" }], allowExtraFields: false });
    const sent = { message: "hi", _subject: "Question", _replyto: "ada@example.com" };
    const res = await post(id, form(sent), JSON_ACCEPT);
    expect(res.status).toBe(200);
    expect(await stored(id)).toEqual([{ data: sent }]);
    expect(await emails(id)).toEqual(["ada@example.com"]);
    // Another stray field is still refused.
    const stray = await post(id, form({ ...sent, extra: "x" }), JSON_ACCEPT);
    expect(stray.status).toBe(400);
    expect(await stray.json()).toMatchObject({ errors: [{ field: "extra", code: "UNKNOWN_FIELD" }] });
    expect(await stored(id)).toHaveLength(1);
  });

  for (const alias of ["_gotcha", "_honey", "bot-field", "botcheck"]) {
    test(`a filled ${alias} files the post as spam without storing the field`, async () => {
      const { id } = await newForm();
      const res = await post(id, form({ message: "buy", [alias]: "x" }), JSON_ACCEPT);
      expect(res.status).toBe(200);
      expect(await stored(id)).toEqual([]);
      expect((await stored(id, "spam")).map((s: { data: unknown }) => s.data)).toEqual([{ message: "buy" }]);
    });
  }

  test("a post of control fields only is 400 EMPTY", async () => {
    const { id } = await newForm();
    const res = await post(id, form({ _cc: "x@example.com", _next: "https://example.com/", _gotcha: "" }), JSON_ACCEPT);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: "EMPTY", errors: [{ code: "EMPTY" }] });
  });
});

describe("JSON or a page", () => {
  const cases: [label: string, headers: Record<string, string>, json: boolean, body?: string][] = [
    ["X-Requested-With: XMLHttpRequest", { "x-requested-with": "XMLHttpRequest" }, true],
    ["Accept ranking JSON above HTML", { accept: "text/html;q=0.5, application/json" }, true],
    ["a JSON body with Accept */*", { accept: "*/*", "content-type": "application/json" }, true, '{"a":"1"}'],
    [
      "a JSON body with Accept ranking HTML first",
      { accept: "text/html, application/json;q=0.9", "content-type": "application/json" },
      false,
      '{"a":"1"}',
    ],
    ["a browser's form post", { accept: "text/html,application/xhtml+xml,*/*;q=0.8" }, false],
    ["no Accept at all", {}, false],
  ];
  for (const [label, headers, json, body] of cases) {
    test(`${label} is answered ${json ? "with JSON" : "with a 303 for a browser"}`, async () => {
      const { id } = await newForm();
      const res = await post(id, body ?? form({ a: "1" }), headers);
      expect(res.status).toBe(json ? 200 : 303);
      if (!json) expect(res.headers.get("location")).toContain(`/f/${id}/thanks`);
    });
  }
});

describe("redirects", () => {
  const page = "https://site.example/contact/";
  const cases: [label: string, fields: Record<string, string>, headers: Record<string, string>, expected: string][] = [
    [
      "an absolute _next on the page's origin",
      { _next: "https://site.example/ok" },
      { origin: "https://site.example" },
      "https://site.example/ok",
    ],
    [
      "a relative _next, resolved against the Referer",
      { _next: "thanks.html" },
      { referer: page },
      "https://site.example/contact/thanks.html",
    ],
    ["redirectUrl as _next", { redirectUrl: "https://site.example/r" }, { referer: page }, "https://site.example/r"],
    // Not allowed: stored all the same, and the visitor lands on formsvc's own thank-you page.
    ["a _next on another origin", { _next: "https://evil.example/" }, { origin: "https://site.example" }, "thanks"],
    ["a _next with Origin: null", { _next: "https://site.example/ok" }, { origin: "null" }, "thanks"],
    ["a javascript: _next", { _next: "javascript:alert(1)" }, { origin: "https://site.example" }, "thanks"],
    ["a relative _next without a Referer", { _next: "thanks.html" }, { origin: "https://site.example" }, "thanks"],
    ["a _next from no page at all", { _next: "https://anywhere.example/" }, {}, "https://anywhere.example/"],
  ];
  for (const [label, fields, headers, expected] of cases) {
    test(`${label}: stored, 303 ${expected === "thanks" ? "to the thank-you page" : "there"}`, async () => {
      const { id } = await newForm({ successUrl: "https://owner.example/done" });
      const res = await post(id, form({ a: "1", ...fields }), headers);
      expect(res.status).toBe(303);
      const location = res.headers.get("location")!;
      if (expected === "thanks") expect(new URL(location).pathname).toBe(`/f/${id}/thanks`);
      else expect(location).toBe(expected);
      expect(await stored(id)).toHaveLength(1);
    });
  }

  test("with allowed origins, a _next elsewhere is dropped: stored, JSON next is the thank-you page", async () => {
    const { id } = await newForm({ allowedOrigins: ["https://site.example"] });
    const res = await post(id, form({ a: "1", _next: "https://evil.example/" }), {
      origin: "https://site.example",
      ...JSON_ACCEPT,
    });
    expect(res.status).toBe(200);
    expect(new URL((await res.json()).next).pathname).toBe(`/f/${id}/thanks`);
    expect(await stored(id)).toHaveLength(1);
  });

  test("the form's successUrl is used when the page sends no _next", async () => {
    const { id } = await newForm({ successUrl: "https://owner.example/done" });
    const res = await post(id, form({ a: "1" }), { origin: "https://site.example" });
    expect(res.headers.get("location")).toBe("https://owner.example/done");
  });

  test("a refused post goes to the form's errorUrl with the error code", async () => {
    const { id } = await newForm({ errorUrl: "https://owner.example/oops" });
    const res = await post(id, form({ _cc: "only@example.com" }), {});
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("https://owner.example/oops?error=EMPTY");
  });

  test("the redirect rule holds on /api/v1/forms/submit too: the target dropped, the answer one without it", async () => {
    const { id } = await newForm();
    const res = await server.request("/api/v1/forms/submit", {
      method: "POST",
      key,
      body: form({ formId: id, a: "1", redirectUrl: "https://evil.example/" }),
      headers: { origin: "https://site.example" },
      redirect: "manual",
    });
    expect([res.status, res.headers.get("location")]).toEqual([200, null]);
    expect((await res.json()).redirect).toBeUndefined();
    expect(await stored(id)).toHaveLength(1);
  });
});

describe("back links on the thank-you and error pages", () => {
  const page = "https://site.example/contact/";
  const allowed = { allowedOrigins: ["https://site.example"] };
  const BACK = /<a href="([^"]*)">Go back to the (?:site|form)<\/a>/;
  /** The back link of a page for a person, or null when it has none. */
  const backOf = async (res: Response) => BACK.exec(await res.text())?.[1] ?? null;
  /** The thank-you page a browser's post lands on. */
  async function thanksAfter(formId: string, headers: Record<string, string>) {
    const res = await post(formId, form({ a: "1" }), headers);
    expect(res.status).toBe(303);
    return new URL(res.headers.get("location")!);
  }

  test("a post from an allowed page lands on a thank-you page linking back to its full Referer", async () => {
    const { id } = await newForm(allowed);
    const thanks = await thanksAfter(id, { origin: "https://site.example", referer: `${page}?a=1&b=<x>` });
    const res = await fetch(thanks);
    expect(res.status).toBe(200);
    expect(await backOf(res)).toBe("https://site.example/contact/?a=1&amp;b=%3Cx%3E");
  });

  test("with only an Origin (no Referer), the link goes to that origin", async () => {
    const { id } = await newForm(allowed);
    expect(await backOf(await fetch(await thanksAfter(id, { origin: "https://site.example" })))).toBe(
      "https://site.example/",
    );
  });

  test("a Referer on another origin than the post's Origin is not linked: the Origin is", async () => {
    const { id } = await newForm();
    const thanks = await thanksAfter(id, { origin: "https://site.example", referer: "https://evil.example/x" });
    expect(await backOf(await fetch(thanks))).toBe("https://site.example/");
  });

  test("a ?back= the post did not sign shows no link, whatever the Referer of the page request", async () => {
    const { id } = await newForm();
    for (const referer of [undefined, "https://evil.example/", "https://evil.example/page"]) {
      const res = await fetch(`${server.url}/f/${id}/thanks?back=${encodeURIComponent("https://evil.example/")}`, {
        headers: referer ? { referer } : {},
      });
      expect(res.status).toBe(200);
      expect(await backOf(res)).toBeNull();
    }
    const bare = await fetch(`${server.url}/f/${id}/thanks`, { headers: { referer: "https://site.example/" } });
    expect(await backOf(bare)).toBeNull();
  });

  test("a changed signature, another page under the signature, or another form's signature shows no link", async () => {
    const { id } = await newForm(allowed);
    const { id: other } = await newForm(allowed);
    const thanks = await thanksAfter(id, { origin: "https://site.example", referer: page });
    expect(await backOf(await fetch(thanks))).toBe(page);
    const sig = thanks.searchParams.get("sig") ?? "";
    const changed = new URL(thanks);
    changed.searchParams.set("sig", `${sig.slice(0, -1)}${sig.endsWith("A") ? "B" : "A"}`);
    const elsewhere = new URL(thanks);
    elsewhere.searchParams.set("back", "https://site.example/elsewhere");
    const otherForm = new URL(thanks.href.replace(`/f/${id}/`, `/f/${other}/`));
    for (const url of [changed, elsewhere, otherForm]) {
      const res = await fetch(url, { headers: { referer: page } });
      expect(res.status).toBe(200);
      expect(await backOf(res)).toBeNull();
    }
  });

  test("a signed link whose origin the form no longer allows shows no link", async () => {
    const { id } = await newForm(allowed);
    const thanks = await thanksAfter(id, { origin: "https://site.example", referer: page });
    expect((await api("PATCH", `/forms/${id}`, { allowedOrigins: ["https://other.example"] })).status).toBe(200);
    expect(await backOf(await fetch(thanks))).toBeNull();
  });

  test("a post refused for its origin gets an error page without a link", async () => {
    const { id } = await newForm(allowed);
    const res = await post(id, form({ a: "1" }), { origin: "https://evil.example", referer: "https://evil.example/x" });
    expect(res.status).toBe(403);
    expect(await backOf(res)).toBeNull();
    expect(await stored(id)).toEqual([]);
  });

  test("an error page links back only to the allowed page the post came from", async () => {
    const { id } = await newForm(allowed);
    const empty = form({ _cc: "only@example.com" });
    expect(await backOf(await post(id, empty, { origin: "https://site.example", referer: page }))).toBe(page);
    const mismatched = await post(id, empty, { origin: "https://site.example", referer: "https://evil.example/x" });
    expect(await backOf(mismatched)).toBe("https://site.example/");
    // Without an Origin, the Referer is the post's origin, and it must be allowed.
    expect(await backOf(await post(id, empty, { referer: "https://evil.example/x" }))).toBeNull();
  });
});

describe("errors", () => {
  test("an unknown form, or one without publicEndpoint, is a 404 page for a browser and JSON for a script", async () => {
    const { id } = await newForm({ publicEndpoint: false });
    for (const formId of [id, "frm_nope"]) {
      const page = await post(formId, form({ a: "1" }), {});
      expect(page.status).toBe(404);
      expect(page.headers.get("content-type")).toContain("text/html");
      expect(page.headers.get("content-security-policy")).toContain("script-src 'self'");
      const json = await post(formId, form({ a: "1" }), JSON_ACCEPT);
      expect(json.status).toBe(404);
      expect(await json.json()).toMatchObject({ code: "FORM_NOT_FOUND", errors: [{ code: "FORM_NOT_FOUND" }] });
    }
  });

  test("field errors arrive beside their labels on the page and with their fields in JSON", async () => {
    const { id } = await newForm({ fields: [{ name: "email", type: "email", label: "Your email", required: true }] });
    const json = await post(id, form({ email: "nope" }), JSON_ACCEPT);
    expect(json.status).toBe(400);
    expect((await json.json()).errors).toEqual([expect.objectContaining({ field: "email", code: "TYPE_EMAIL" })]);
    const page = await post(id, form({ email: "nope" }), {});
    expect(page.status).toBe(400);
    expect(page.headers.get("content-type")).toContain("text/html");
  });

  test("a closed form is a 403 page", async () => {
    const { id } = await newForm({ paused: true });
    const res = await post(id, form({ a: "1" }), {});
    expect(res.status).toBe(403);
    expect(await res.text()).toContain("closed");
  });
});

describe("rate limit and CORS", () => {
  test("one visitor's 429 leaves another visitor's quota alone", async () => {
    const small = await startTestServer({
      config: { publicRateLimit: 2, trustedProxies: "127.0.0.1/32,::1/128" },
    });
    try {
      const k = (await seedOwner(small, "rl@example.com")).key;
      const { id } = (
        await small.json("/api/v1/forms", {
          method: "POST",
          key: k,
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ name: "R" }),
        })
      ).body;
      const from = (ip: string) =>
        fetch(`${small.url}/f/${id}`, {
          method: "POST",
          body: form({ a: "1" }),
          headers: { "x-forwarded-for": ip, ...JSON_ACCEPT },
        });
      expect((await from("203.0.113.1")).status).toBe(200);
      expect((await from("203.0.113.1")).status).toBe(200);
      const third = await from("203.0.113.1");
      expect(third.status).toBe(429);
      expect(third.headers.get("x-ratelimit-limit")).toBe("2");
      expect((await third.json()).errors).toEqual([expect.objectContaining({ code: "RATE_LIMITED" })]);
      expect((await from("203.0.113.2")).status).toBe(200);
    } finally {
      await small.close();
    }
  });

  test("posts to forms that do not exist take from the address's keyless bucket, not one bucket per made-up id", async () => {
    const small = await startTestServer({ config: { rateLimit: 3, publicRateLimit: 2 } });
    try {
      const k = (await seedOwner(small, "made-up@example.com")).key;
      const answers: number[] = [];
      for (let i = 0; i < 5; i++) answers.push((await post(`frm_madeup${i}`, form({ a: "1" }), {}, small)).status);
      expect(answers).toEqual([404, 404, 404, 429, 429]);
      // A real form's visitors keep their own bucket.
      const { id } = (
        await small.json("/api/v1/forms", {
          method: "POST",
          key: k,
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ name: "Real" }),
        })
      ).body;
      expect((await post(id, form({ a: "1" }), JSON_ACCEPT, small)).status).toBe(200);
    } finally {
      await small.close();
    }
  });

  test("a preflight from Formspree's client is allowed its headers", async () => {
    const { id } = await newForm();
    const res = await fetch(`${server.url}/f/${id}`, {
      method: "OPTIONS",
      headers: { origin: "https://site.example", "access-control-request-method": "POST" },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("https://site.example");
    expect(res.headers.get("access-control-allow-headers")).toContain("Formspree-Session-Data");
  });

  test("@formspree/core submits, and reads a validation failure as field errors", async () => {
    const { id } = await newForm({ fields: [{ name: "email", type: "email", required: true }] });
    const client = createClient();
    const ok = await client.submitForm(id, { email: "a@example.com" }, { endpoint: server.url });
    expect(ok.kind).toBe("success");
    const bad = await client.submitForm(id, { email: "nope" }, { endpoint: server.url });
    expect(bad.kind).toBe("error");
    if (bad.kind !== "error") throw new Error("unreachable");
    expect(bad.getFieldErrors("email")).toEqual([expect.objectContaining({ code: "TYPE_EMAIL" })]);
  });
});

describe("hostile input", () => {
  test("10,000 fields, a 100 KB name and deep JSON are answered without a 500", async () => {
    const { id } = await newForm();
    const many = new URLSearchParams();
    for (let i = 0; i < 10_000; i++) many.append(`f${i}`, "x");
    const deep = `${"[".repeat(5000)}${"]".repeat(5000)}`;
    for (const [body, headers] of [
      [many, {}],
      [form({ ["n".repeat(100_000)]: "x" }), {}],
      [`{"a":${deep}}`, { "content-type": "application/json" }],
    ] as [BodyInit, Record<string, string>][]) {
      const res = await post(id, body, { ...headers, ...JSON_ACCEPT });
      expect(res.status).toBeLessThan(500);
    }
  });
});
