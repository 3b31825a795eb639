import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cliJsonAsync, seedOwner, startTestServer, type TestServer } from "../helpers/harness";

let server: TestServer;
let key: string;

const api = (method: string, path: string, body?: unknown) =>
  server.json(`/api/v1${path}`, {
    method,
    key,
    ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
  });
const newForm = async (settings: Record<string, unknown> = {}) => {
  const res = await api("POST", "/forms", { name: "Once", oneResponsePerEmail: true, ...settings });
  expect(res.status).toBe(200);
  return res.body as { id: string; oneResponsePerEmail: boolean };
};
const submit = (formId: string, data: Record<string, unknown>) => api("POST", "/forms/submit", { formId, data });
// What each stored submission carried, newest first.
const emails = async (formId: string, status = "inbox") =>
  (await api("GET", `/forms/${formId}/submissions?status=${status}`)).body.submissions.map(
    ({ data }: { data: Record<string, unknown> }) => data.email ?? data.your_email ?? null,
  );

beforeAll(async () => {
  server = await startTestServer({ config: { rateLimit: 100_000 } });
  key = (await seedOwner(server, "once@example.com")).key;
});
afterAll(() => server.close());

describe("oneResponsePerEmail", () => {
  test("is off by default: one address answers as often as it likes", async () => {
    const form = await newForm({ oneResponsePerEmail: undefined });
    expect(form.oneResponsePerEmail).toBe(false);
    for (let i = 0; i < 2; i++) expect((await submit(form.id, { email: "a@example.com" })).status).toBe(200);
    expect(await emails(form.id)).toEqual(["a@example.com", "a@example.com"]);
  });

  test("on: a second submission with the same extracted email (any case, spaces around) is 409 ALREADY_SUBMITTED, nothing stored", async () => {
    const form = await newForm();
    expect(form.oneResponsePerEmail).toBe(true);
    expect((await submit(form.id, { email: "Ann@Example.com", n: "1" })).status).toBe(200);
    const again = await submit(form.id, { your_email: "  ann@example.COM ", n: "2" });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe("ALREADY_SUBMITTED");
    // Another address, and no address at all, are taken.
    expect((await submit(form.id, { email: "bob@example.com" })).status).toBe(200);
    expect((await submit(form.id, { message: "no address" })).status).toBe(200);
    expect((await submit(form.id, { message: "no address" })).status).toBe(200);
    expect(await emails(form.id)).toEqual([null, null, "bob@example.com", "Ann@Example.com"]);
    expect((await api("GET", `/forms/${form.id}`)).body.submissionCount).toBe(4);
  });

  test("two submissions racing with one address: one is stored, the other is 409", async () => {
    const form = await newForm();
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => submit(form.id, { email: "race@example.com", n: String(i) })),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, ...Array(11).fill(409)]);
    for (const a of answers) if (a.status === 409) expect(a.body.code).toBe("ALREADY_SUBMITTED");
    expect(await emails(form.id)).toEqual(["race@example.com"]);
  });

  test("a spam-filed submission does not count, and deleting the one that did frees the address", async () => {
    const form = await newForm({ spamSettings: { honeypotField: "website" } });
    expect((await submit(form.id, { email: "c@example.com", website: "bot" })).status).toBe(200);
    expect(await emails(form.id, "spam")).toEqual(["c@example.com"]);
    const first = await submit(form.id, { email: "c@example.com" });
    expect(first.status).toBe(200);
    expect((await submit(form.id, { email: "c@example.com" })).status).toBe(409);
    expect((await api("DELETE", `/forms/${form.id}/submissions/${first.body.submissionId}`)).status).toBe(200);
    expect((await submit(form.id, { email: "c@example.com" })).status).toBe(200);
  });

  test("erasing an address's submissions frees it", async () => {
    const form = await newForm();
    expect((await submit(form.id, { email: "gone@example.com" })).status).toBe(200);
    expect((await submit(form.id, { email: "gone@example.com" })).status).toBe(409);
    const erased = await cliJsonAsync(["submissions", "erase", "--email", "gone@example.com", "--json"], {
      db: server.db,
    });
    expect(erased.erased).toBe(1);
    expect((await submit(form.id, { email: "gone@example.com" })).status).toBe(200);
  });

  test("turned on later, the answers already in the inbox count; spam-filed ones do not", async () => {
    const form = await newForm({ oneResponsePerEmail: false, spamSettings: { honeypotField: "website" } });
    for (const data of [
      { email: "early@example.com", n: "1" },
      { email: "early@example.com", n: "2" },
      { email: "other@example.com" },
      { email: "caught@example.com", website: "bot" },
    ])
      expect((await submit(form.id, data)).status).toBe(200);
    expect((await api("PATCH", `/forms/${form.id}`, { oneResponsePerEmail: true })).status).toBe(200);
    for (const email of ["early@example.com", "other@example.com"])
      expect([email, (await submit(form.id, { email })).body.code]).toEqual([email, "ALREADY_SUBMITTED"]);
    expect((await submit(form.id, { email: "caught@example.com" })).status).toBe(200);
    expect((await submit(form.id, { email: "caught@example.com" })).status).toBe(409);
    // Off and on again: nothing collides, and the same answers still count.
    expect((await api("PATCH", `/forms/${form.id}`, { oneResponsePerEmail: false })).status).toBe(200);
    expect((await submit(form.id, { email: "late@example.com" })).status).toBe(200);
    expect((await api("PATCH", `/forms/${form.id}`, { oneResponsePerEmail: true })).status).toBe(200);
    for (const email of ["early@example.com", "caught@example.com", "late@example.com"])
      expect([email, (await submit(form.id, { email })).status]).toEqual([email, 409]);
  });

  test("the hosted page's post is answered with a page that says so, kindly", async () => {
    const form = await newForm({ fields: [{ name: "email", type: "email", required: true }] });
    const post = () =>
      // Plain fetch: the page for a person is HTML, which the document-checking fetch reads as an API answer.
      fetch(`${server.url}/f/${form.id}`, {
        method: "POST",
        redirect: "manual",
        headers: { accept: "text/html", "content-type": "application/x-www-form-urlencoded" },
        body: "email=d%40example.com",
      });
    expect((await post()).status).toBe(303);
    const again = await post();
    expect(again.status).toBe(409);
    expect(await again.text()).toContain("this address has already sent one");
  });

  test("its help says that it tells a visitor whether an address has answered", async () => {
    const doc = JSON.stringify((await server.json("/api/v1/openapi.json")).body);
    expect(doc).toContain("which tells whoever tries whether that address has answered");
  });
});
