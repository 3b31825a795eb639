import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FormsvcClient, FormsvcError } from "../../src/client";
import { useServer } from "../helpers/fixture";
import { seedForm, seedOwner, startTestServer, type TestServer } from "../helpers/harness";

const server = useServer({ config: { rateLimit: 100_000 } });
const owner = server.seed("client@example.com", { name: "Waitlist", formType: "waitlist", usersJoinedEnabled: true });
let client: FormsvcClient;

beforeAll(async () => {
  client = new FormsvcClient({ baseUrl: `${server.url}/api/v1`, apiKey: owner.key, fetch: server.fetch });
});

describe("FormsvcClient against a running server", () => {
  test("submits, reads the form, counts joiners and lists submissions", async () => {
    const result = await client.submit({
      formId: owner.formId,
      data: { email: "Ada@Example.com", name: "Ada" },
      redirectUrl: "https://example.com/thanks",
    });
    expect(result).toEqual({
      success: true,
      submissionId: expect.stringMatching(/^sub_/),
      redirect: "https://example.com/thanks",
    });
    const form = await client.getForm(owner.formId);
    expect(form.id).toBe(owner.formId);
    expect(form.submissionCount).toBe(1);
    expect(await client.getUsersJoined(owner.formId)).toBe(1);
    const page = await client.listSubmissions(owner.formId, { limit: 10 });
    expect(page.submissions[0]!.id).toBe(result.submissionId);
    expect(page.submissions[0]!.data._meta.device).toBeDefined();
    const forms = await client.listForms();
    expect(forms.forms.map((f) => f.id)).toContain(owner.formId);
    expect(client.rateLimit).toEqual({ limit: 100_000, remaining: expect.any(Number), reset: expect.any(Number) });
  });

  test("walks every page of forms and submissions, in order, while new submissions arrive", async () => {
    for (let i = 0; i < 3; i++) await seedForm(server, "client@example.com", { name: `Extra ${i}` });
    const allForms: string[] = [];
    for await (const f of client.allForms({ limit: 2 })) allForms.push(f.id);
    expect(allForms.length).toBe(4);
    expect(new Set(allForms).size).toBe(4);

    for (let i = 0; i < 7; i++) await client.submit({ formId: owner.formId, data: { i } });
    const before = (await client.listSubmissions(owner.formId, { limit: 100 })).submissions.map((s) => s.id);
    const walked: string[] = [];
    for await (const s of client.allSubmissions(owner.formId, { limit: 3 })) {
      walked.push(s.id);
      if (walked.length === 3) await client.submit({ formId: owner.formId, data: { late: true } });
    }
    expect(walked).toEqual(before);
  });

  test("reads analytics", async () => {
    const analytics = await client.getAnalytics(owner.formId, { period: "week" });
    expect(analytics.period).toBe("week");
    expect(analytics.submissionsOverTime.length).toBe(7);
    expect(analytics.totalSubmissions).toBeGreaterThan(0);
  });

  test("turns error answers into FormsvcError with status, message, code and requestId", async () => {
    const error = await client.getForm("frm_missing").catch((e) => e);
    expect(error).toBeInstanceOf(FormsvcError);
    expect(error.status).toBe(404);
    expect(error.code).toBe("FORM_NOT_FOUND");
    expect(error.message).toContain("does not exist");
    expect(error.requestId).toMatch(/^req_/);
    const unauthorized = await new FormsvcClient({
      baseUrl: `${server.url}/api/v1`,
      apiKey: "fsk_wrong",
      fetch: server.fetch,
    })
      .listForms()
      .catch((e) => e);
    expect(unauthorized.status).toBe(401);
    const bad = await client.listForms({ limit: 0 }).catch((e) => e);
    expect([bad.status, bad.code]).toEqual([400, "INVALID_PARAMETER"]);
  });

  test("reports a network failure as status 0", async () => {
    const offline = new FormsvcClient({ baseUrl: "http://127.0.0.1:1/api/v1", apiKey: owner.key, maxRetries: 0 });
    const error = await offline.listForms().catch((e) => e);
    expect(error).toBeInstanceOf(FormsvcError);
    expect([error.status, error.code]).toEqual([0, "NETWORK_ERROR"]);
  });

  test("retries a keyed submit whose answer was lost and stores it once", async () => {
    let calls = 0;
    const flaky = new FormsvcClient({
      baseUrl: `${server.url}/api/v1`,
      apiKey: owner.key,
      // The first request reaches the server and is stored, then the connection "drops".
      fetch: async (url, init) => {
        calls += 1;
        const res = await server.fetch(url, init);
        if (calls === 1) {
          await res.text();
          throw new TypeError("socket hang up");
        }
        return res;
      },
    });
    const result = await flaky.submit({ formId: owner.formId, data: { retried: "yes" } }, { idempotencyKey: true });
    expect(calls).toBe(2);
    const rows = await server.query<{ id: string }>('SELECT id FROM submissions WHERE data LIKE \'%"retried":"yes"%\'');
    expect(rows).toEqual([{ id: result.submissionId }]);
  });

  test("does not retry an unkeyed submit after a network error", async () => {
    let calls = 0;
    const flaky = new FormsvcClient({
      baseUrl: `${server.url}/api/v1`,
      apiKey: owner.key,
      fetch: async () => {
        calls += 1;
        throw new TypeError("socket hang up");
      },
    });
    expect((await flaky.submit({ formId: owner.formId, data: {} }).catch((e) => e)).status).toBe(0);
    expect(calls).toBe(1);
  });

  test("gives up after its timeout", async () => {
    const slow = new FormsvcClient({
      baseUrl: `${server.url}/api/v1`,
      apiKey: owner.key,
      maxRetries: 0,
      fetch: (_u, init) =>
        new Promise((_r, reject) => init.signal!.addEventListener("abort", () => reject(new Error("aborted")))),
    });
    const error = await slow.getForm(owner.formId, { timeoutMs: 50 }).catch((e) => e);
    expect([error.status, error.code]).toEqual([0, "TIMEOUT"]);
  });
});

describe("FormsvcClient and rate limits", () => {
  let limited: TestServer;
  let o: Awaited<ReturnType<typeof seedOwner>>;
  beforeAll(async () => {
    limited = await startTestServer({ config: { rateLimit: 2, rateWindow: 2 } });
    o = await seedOwner(limited);
  });
  afterAll(() => limited.close());

  test("surfaces a 429 with retryAfter when told not to retry", async () => {
    const c = new FormsvcClient({
      baseUrl: `${limited.url}/api/v1`,
      apiKey: o.key,
      maxRetries: 0,
      fetch: limited.fetch,
    });
    await c.getForm(o.formId);
    await c.getForm(o.formId);
    const error = await c.getForm(o.formId).catch((e) => e);
    expect(error.status).toBe(429);
    expect(error.retryAfter).toBeGreaterThanOrEqual(1);
    expect(c.rateLimit!.remaining).toBe(0);
  });

  test("waits out a 429 until the reset time and then succeeds", async () => {
    const c = new FormsvcClient({
      baseUrl: `${limited.url}/api/v1`,
      apiKey: o.key,
      maxRetries: 2,
      fetch: limited.fetch,
    });
    // The bucket is empty after the previous test: the first call meets a 429 and waits it out.
    for (let i = 0; i < 2; i++) expect((await c.getForm(o.formId)).id).toBe(o.formId);
  });
});

describe("the built ESM bundle", () => {
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "formsvc-client-"));
    const built = await Bun.build({
      entrypoints: [join(import.meta.dir, "../../src/client/index.ts")],
      outdir: dir,
      target: "browser",
      format: "esm",
    });
    expect(built.success).toBe(true);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  for (const runtime of ["node", process.execPath]) {
    test(`imports and calls the API under ${runtime === "node" ? "Node" : "Bun"}`, async () => {
      const script = `import { FormsvcClient } from ${JSON.stringify(join(dir, "index.js"))};
        const c = new FormsvcClient({ baseUrl: ${JSON.stringify(`${server.url}/api/v1`)}, apiKey: ${JSON.stringify(owner.key)} });
        const f = await c.getForm(${JSON.stringify(owner.formId)});
        console.log(f.id);`;
      const file = join(dir, `check-${runtime === "node" ? "node" : "bun"}.mjs`);
      await Bun.write(file, script);
      const proc = Bun.spawn([runtime, file], { stdout: "pipe", stderr: "pipe" });
      const [out, err, code] = await Promise.all([
        new Response(proc.stdout).text(),
        new Response(proc.stderr).text(),
        proc.exited,
      ]);
      expect(err).toBe("");
      expect(code).toBe(0);
      expect(out.trim()).toBe(owner.formId);
    });
  }
});

// Last in the file: its form would be counted by the tests of the forms list above.
test("searches submissions, and a bad query is a FormsvcError with its code", async () => {
  const contact = (await seedForm(server, "client@example.com", { name: "Contact" })).id;
  const { submissionId } = await client.submit({ formId: contact, data: { name: "Grete Müller" } });
  const found = await client.searchSubmissions({ q: "muller", formId: contact, spam: false, limit: 5 });
  expect(found.submissions.map((s) => s.id)).toEqual([submissionId]);
  expect(found.submissions[0]!.highlights).toEqual([{ field: "name", text: "Grete Müller", matches: [[6, 12]] }]);
  expect((await client.searchSubmissions({ q: "muller", spam: true })).submissions).toEqual([]);
  const refused = await client.searchSubmissions({ q: '"unclosed' }).catch((e: unknown) => e);
  expect(refused).toBeInstanceOf(FormsvcError);
  expect((refused as FormsvcError).code).toBe("INVALID_QUERY");
});
