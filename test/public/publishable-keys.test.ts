import { beforeAll, describe, expect, test } from "bun:test";
import { useServer } from "../helpers/fixture";
import { cliJson, runCli, seedForm, seedKey, startTestServer } from "../helpers/harness";

const server = useServer({ config: { rateLimit: 10_000, publicRateLimit: 10_000 } });
let secret: string;
let publishable: string;
let bound: { key: string; formId: string; otherFormId: string };
let formId: string;
let foreignFormId: string;

const submit = (key: string, form: string, headers: Record<string, string> = {}) =>
  server.submit(key, form, { message: "hi" }, headers);

beforeAll(async () => {
  secret = (await seedKey(server, "owner@example.com")).key;
  formId = (await seedForm(server, "owner@example.com", { name: "Contact", formType: "waitlist" })).id;
  const otherFormId = (await seedForm(server, "owner@example.com", { name: "Other" })).id;
  foreignFormId = (await seedForm(server, "someone@example.com", { name: "Theirs" })).id;
  publishable = (await seedKey(server, "owner@example.com", { publishable: true })).key;
  bound = {
    key: (await seedKey(server, "owner@example.com", { publishable: true, forms: [formId] })).key,
    formId,
    otherFormId,
  };
});

describe("a publishable key", () => {
  test("is made by keys create --publishable, starts fpk_, and keys list shows its kind and forms, never the secret", () => {
    const created = cliJson(["keys", "create", "--owner", "cli@example.com", "--name", "site", "--publishable"], {
      db: server.db,
    });
    expect(created).toMatchObject({ kind: "publishable", forms: null, owner: "cli@example.com" });
    expect(created.key).toMatch(/^fpk_[A-Za-z0-9_-]{43}$/);
    const listed = cliJson<any[]>(["keys", "list", "--owner", "cli@example.com"], { db: server.db });
    expect(listed).toEqual([expect.objectContaining({ id: created.id, kind: "publishable", forms: null })]);
    expect(JSON.stringify(listed)).not.toContain(created.key);
  });

  test("submits to its owner's forms", async () => {
    const res = await submit(publishable, formId);
    expect([res.status, res.body.success]).toEqual([200, true]);
  });

  test("is refused with 403 KEY_SCOPE everywhere else, after the general checks", async () => {
    for (const path of [
      "/api/v1/forms/list",
      `/api/v1/forms/${formId}`,
      `/api/v1/forms/${formId}/users-joined`,
      `/api/v1/forms/${formId}/submissions`,
      `/api/v1/forms/${formId}/analytics`,
    ]) {
      const res = await server.json(path, { key: publishable });
      expect([path, res.status, res.body.code]).toEqual([path, 403, "KEY_SCOPE"]);
    }
    // 400 and 404 come first, as for every key.
    expect((await server.json("/api/v1/forms/list?limit=0", { key: publishable })).status).toBe(400);
    expect((await server.json("/api/v1/forms/frm_nope", { key: publishable })).body.code).toBe("FORM_NOT_FOUND");
  });

  test("cannot submit to another owner's form (403) and stores nothing there", async () => {
    const res = await submit(publishable, foreignFormId);
    expect([res.status, res.body.code]).toEqual([403, "FORBIDDEN"]);
    expect((await server.query("SELECT count(*) AS n FROM submissions WHERE form_id = ?", foreignFormId))[0].n).toBe(0);
  });

  test("bound to forms submits to them only: another form of the same owner is 403 KEY_SCOPE", async () => {
    expect((await submit(bound.key, bound.formId)).status).toBe(200);
    const res = await submit(bound.key, bound.otherFormId);
    expect([res.status, res.body.code]).toEqual([403, "KEY_SCOPE"]);
  });

  test("cannot be bound to a form its owner does not have, and a refused key leaves no owner behind", async () => {
    const res = runCli(["keys", "create", "--owner", "newcomer@example.com", "--publishable", "--forms", formId], {
      db: server.db,
    });
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain("has no form");
    expect((await server.query("SELECT count(*) AS n FROM owners WHERE email = 'newcomer@example.com'"))[0].n).toBe(0);
  });
});

describe("a bound secret key", () => {
  test("lists and reads only its forms", async () => {
    const key = (await seedKey(server, "owner@example.com", { forms: [bound.otherFormId] })).key;
    const list = await server.json("/api/v1/forms/list", { key });
    expect(list.body.forms.map((f: { id: string }) => f.id)).toEqual([bound.otherFormId]);
    expect((await server.json(`/api/v1/forms/${bound.otherFormId}`, { key })).status).toBe(200);
    expect((await server.json(`/api/v1/forms/${formId}`, { key })).body.code).toBe("KEY_SCOPE");
  });
});

describe("rate limits of a publishable key", () => {
  test("give every visitor address a bucket of its own, apart from the owner's secret-key quota", async () => {
    const tight = await startTestServer({ config: { rateLimit: 50, publicRateLimit: 3, trustProxy: true } });
    try {
      const owner = (await seedKey(tight, "o@example.com")).key;
      const form = (await seedForm(tight, "o@example.com", { name: "F" })).id;
      const key = (await seedKey(tight, "o@example.com", { publishable: true })).key;
      const post = (ip: string) =>
        tight.json("/api/v1/forms/submit", {
          method: "POST",
          key,
          headers: { "content-type": "application/json", "x-forwarded-for": ip },
          body: JSON.stringify({ formId: form, data: {} }),
        });
      const first = [];
      for (let i = 0; i < 4; i++) first.push((await post("203.0.113.7")).status);
      expect(first).toEqual([200, 200, 200, 429]);
      const limited = await post("203.0.113.7");
      expect([limited.headers.get("x-ratelimit-limit"), limited.body.code]).toEqual(["3", "RATE_LIMITED"]);
      expect((await post("198.51.100.9")).status).toBe(200);
      const ownerCall = await tight.request(`/api/v1/forms/${form}`, { key: owner });
      expect([
        ownerCall.status,
        ownerCall.headers.get("x-ratelimit-limit"),
        ownerCall.headers.get("x-ratelimit-remaining"),
      ]).toEqual([200, "50", "49"]);
      expect((await tight.query("SELECT count(*) AS n FROM submissions"))[0].n).toBe(4);
    } finally {
      await tight.close();
    }
  });
});
