import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { migrate } from "../../src/db/migrate";
import { migrations } from "../../src/db/migrations";
import { openDatabase } from "../../src/db/open";
import { onSqlite } from "../helpers/engine";
import { seedOwner, startTestServer, tempDir, type TestServer } from "../helpers/harness";

let server: TestServer;
let key: string;

const api = (method: string, path: string, body?: unknown) =>
  server.json(`/api/v1${path}`, {
    method,
    key,
    ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
  });
const newForm = async (settings: Record<string, unknown>) =>
  (await api("POST", "/forms", { name: "F", ...settings })).body;
const submitJson = (formId: string, data: Record<string, unknown>) => api("POST", "/forms/submit", { formId, data });
const submitForm = (formId: string, body: URLSearchParams | FormData) => {
  body.append("formId", formId);
  return server.json("/api/v1/forms/submit", { method: "POST", key, body });
};
const stored = async (formId: string, status = "inbox") =>
  (await api("GET", `/forms/${formId}/submissions?status=${status}`)).body.submissions.map(
    ({ data: { _meta, ...data } }: { data: Record<string, unknown> }) => data,
  );

beforeAll(async () => {
  server = await startTestServer({ config: { rateLimit: 100_000 } });
  key = (await seedOwner(server, "fields@example.com")).key;
});
afterAll(() => server.close());

describe("field validation", () => {
  const fields = [
    { name: "gone", type: "text", required: true },
    { name: "blank", type: "text", required: true },
    { name: "email", type: "email", label: "Your email" },
    { name: "age", type: "number", min: 18, max: 120 },
    { name: "count", type: "number" },
    { name: "site", type: "url" },
    { name: "day", type: "date" },
    { name: "note", type: "text" },
    { name: "short", type: "text", minLength: 5 },
    { name: "long", type: "textarea", maxLength: 3 },
    { name: "topic", type: "select", options: ["sales", "support"] },
  ];
  const cases: [field: string, value: unknown, code: string][] = [
    ["gone", undefined, "REQUIRED_FIELD_MISSING"],
    ["blank", "  ", "REQUIRED_FIELD_EMPTY"],
    ["email", "not-an-address", "TYPE_EMAIL"],
    ["count", "12", "TYPE_NUMERIC"], // a JSON string is no number, even when it reads as one
    ["site", "javascript:alert(1)", "TYPE_URL"],
    ["day", "2026-02-30", "TYPE_DATE"],
    ["note", 42, "TYPE_TEXT"],
    ["short", "abc", "TOO_SHORT"],
    ["long", "abcdef", "TOO_LONG"],
    ["age", 12, "OUT_OF_RANGE"],
    ["topic", "billing", "NOT_AN_OPTION"],
    ["stray", "x", "UNKNOWN_FIELD"],
  ];

  test("a submission with every kind of problem gets them all in one 400 VALIDATION_FAILED, each naming its field, and nothing is stored", async () => {
    const form = await newForm({ fields });
    const data = Object.fromEntries(cases.filter(([, v]) => v !== undefined).map(([f, v]) => [f, v]));
    const res = await submitJson(form.id, data);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("VALIDATION_FAILED");
    expect(res.body.errors.map((e: { field: string; code: string }) => [e.field, e.code]).sort()).toEqual(
      cases.map(([f, , c]) => [f, c]).sort(),
    );
    for (const e of res.body.errors) expect(e.message).toContain(e.field === "email" ? "Your email" : e.field);
    expect(await stored(form.id)).toEqual([]);
    expect((await api("GET", `/forms/${form.id}`)).body.submissionCount).toBe(0);
  });

  test("the same data, each value corrected, is stored as sent", async () => {
    const form = await newForm({ fields });
    const data = {
      gone: "a",
      blank: "b",
      email: "a@example.com",
      age: 30,
      count: 12,
      site: "https://x.example/",
      day: "2026-02-28",
      note: "n",
      short: "abcdef",
      long: "abc",
      topic: "sales",
    };
    expect((await submitJson(form.id, data)).status).toBe(200);
    expect(await stored(form.id)).toEqual([data]);
  });

  test("with allowExtraFields, a field the list does not name is stored", async () => {
    const form = await newForm({ fields: [{ name: "email", type: "email" }], allowExtraFields: true });
    expect((await submitJson(form.id, { email: "a@example.com", extra: "kept" })).status).toBe(200);
    expect(await stored(form.id)).toEqual([{ email: "a@example.com", extra: "kept" }]);
  });

  const typed = [
    { name: "qty", type: "number" },
    { name: "agree", type: "checkbox" },
    { name: "news", type: "checkbox" },
    { name: "off", type: "checkbox" },
    { name: "topics", type: "checkbox", options: ["a", "b", "c"] },
    { name: "colors", type: "select", options: ["red", "blue"], multiple: true },
    { name: "one", type: "select", options: ["x", "y"], multiple: true },
    { name: "name", type: "text" },
  ];
  const bodies: [kind: string, make: () => URLSearchParams | FormData][] = [
    ["urlencoded", () => new URLSearchParams()],
    ["multipart", () => new FormData()],
  ];
  for (const [kind, make] of bodies) {
    test(`a ${kind} form post is stored typed: a number as a number, a checkbox as true or false (absent is false), a multiple choice as a list`, async () => {
      const form = await newForm({ fields: typed });
      const body = make();
      for (const [k, v] of [
        ["qty", " 42.5"],
        ["agree", "on"],
        ["off", "0"],
        ["topics", "a"],
        ["topics", "c"],
        ["colors", "red"],
        ["colors", "blue"],
        ["one", "y"],
        ["name", "12"],
      ])
        body.append(k!, v!);
      expect((await submitForm(form.id, body)).status).toBe(200);
      expect(await stored(form.id)).toEqual([
        {
          qty: 42.5,
          agree: true,
          news: false,
          off: false,
          topics: ["a", "c"],
          colors: ["red", "blue"],
          one: ["y"],
          name: "12",
        },
      ]);
    });
  }

  test("a form post's number that is not one is TYPE_NUMERIC, and a required checkbox left unticked is REQUIRED_FIELD_MISSING", async () => {
    const form = await newForm({
      fields: [
        { name: "qty", type: "number" },
        { name: "terms", type: "checkbox", required: true },
      ],
    });
    const res = await submitForm(form.id, new URLSearchParams({ qty: "12abc" }));
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { code: string }) => e.code).sort()).toEqual([
      "REQUIRED_FIELD_MISSING",
      "TYPE_NUMERIC",
    ]);
  });

  test("the honeypot is taken out before the rules: a bot filling it is answered as a person sending the same fields (400 when they are wrong, 200 and spam when right)", async () => {
    const form = await newForm({ fields: [{ name: "email", type: "email", required: true }] });
    const missing = await submitJson(form.id, { _gotcha: "bot" });
    expect([missing.status, missing.body.errors?.map((e: { code: string }) => e.code)]).toEqual([
      400,
      ["REQUIRED_FIELD_MISSING"],
    ]);
    const caught = await submitJson(form.id, { email: "bot@example.com", _gotcha: "bot" });
    expect(caught.status).toBe(200);
    expect(await stored(form.id, "spam")).toEqual([{ email: "bot@example.com" }]);
    expect(await stored(form.id)).toEqual([]);
  });

  test("a form without fields takes any fields, as before", async () => {
    const form = await newForm({});
    expect((await submitJson(form.id, { anything: 1, _x: [true] })).status).toBe(200);
  });
});

describe("closing a form", () => {
  const cases: [how: string, settings: Record<string, unknown>, before: number, says: string][] = [
    ["paused", { paused: true }, 0, "not taking submissions"],
    ["past closesAt", { closesAt: "2020-01-01T00:00:00Z" }, 0, "2020-01-01T00:00:00.000Z"],
    ["at maxSubmissions", { maxSubmissions: 2 }, 2, "all the submissions"],
  ];
  for (const [how, settings, before, says] of cases) {
    test(`a form ${how} refuses a JSON and a form post with 403 FORM_CLOSED, and stores nothing`, async () => {
      const form = await newForm({});
      for (let i = 0; i < before; i++) expect((await submitJson(form.id, { i })).status).toBe(200);
      expect((await api("PATCH", `/forms/${form.id}`, settings)).status).toBe(200);
      for (const res of [
        await submitJson(form.id, { late: 1 }),
        await submitForm(form.id, new URLSearchParams({ late: "1" })),
      ]) {
        expect([res.status, res.body.code]).toEqual([403, "FORM_CLOSED"]);
        expect(res.body.error).toContain(says);
      }
      expect((await stored(form.id)).length).toBe(before);
    });
  }

  test("a closesAt still to come takes submissions", async () => {
    const form = await newForm({ closesAt: "2999-01-01T00:00:00+02:00" });
    expect(form.closesAt).toBe("2998-12-31T22:00:00.000Z");
    expect((await submitJson(form.id, { a: 1 })).status).toBe(200);
  });

  test("maxSubmissions is exact under a burst of concurrent submits: never more stored than the cap", async () => {
    const form = await newForm({ maxSubmissions: 5 });
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => submitJson(form.id, { i })));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 200).length).toBe(5);
    expect(statuses.filter((s) => s === 403).length).toBe(35);
    expect((await stored(form.id)).length).toBe(5);
    expect((await api("GET", `/forms/${form.id}`)).body.submissionCount).toBe(5);
  });
});

test("new forms take submissions at /f/ (publicEndpoint true)", async () => {
  expect((await newForm({})).publicEndpoint).toBe(true);
});

test.if(onSqlite)(
  "a form made before migration 012 keeps publicEndpoint false, and its other new settings are their defaults",
  async () => {
    const { dir, cleanup } = tempDir();
    try {
      const old = openDatabase(join(dir, "formsvc.db"));
      migrate(
        old,
        migrations.filter((m) => m.version <= 11),
      );
      old.run(
        "INSERT INTO owners (id, email, created_at) VALUES ('own_1', 'o@example.com', '2026-01-01T00:00:00.000Z')",
      );
      old.run(
        `INSERT INTO forms (id, owner_id, name, form_type, created_at, updated_at)
       VALUES ('frm_old', 'own_1', 'Old', 'contact', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`,
      );
      old.close();
      const upgraded = await startTestServer({ dir });
      try {
        const form = await upgraded.services.forms.requireForm("frm_old");
        expect({ ...form }).toMatchObject({
          publicEndpoint: false,
          fields: null,
          allowExtraFields: false,
          paused: false,
          closesAt: null,
          maxSubmissions: null,
          successUrl: null,
          errorUrl: null,
        });
      } finally {
        await upgraded.close();
      }
    } finally {
      cleanup();
    }
  },
);
