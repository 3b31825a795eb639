import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { seedOwner, startTestServer, type TestServer } from "../helpers/harness";

let server: TestServer;
let key: string;

const api = (method: string, path: string, body?: unknown) =>
  server.json(`/api/v1${path}`, {
    method,
    key,
    ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
  });
const newForm = async (settings: Record<string, unknown>) => {
  const res = await api("POST", "/forms", { name: "Logic", ...settings });
  expect(res.status).toBe(200);
  return res.body as { id: string };
};
const submitJson = (formId: string, data: Record<string, unknown>) => api("POST", "/forms/submit", { formId, data });
const dropIn = (formId: string, body: URLSearchParams) =>
  server.json(`/f/${formId}`, { method: "POST", headers: { accept: "application/json" }, body });
const stored = async (formId: string) =>
  (await api("GET", `/forms/${formId}/submissions`)).body.submissions.map(
    ({ data: { _meta, ...data } }: { data: Record<string, unknown> }) => data,
  );

beforeAll(async () => {
  server = await startTestServer({ config: { rateLimit: 100_000 } });
  key = (await seedOwner(server, "logic@example.com")).key;
});
afterAll(() => server.close());

// contact → (email) → newsletter → topics: a chain three deep, with a step break between.
const fields = [
  { name: "contact", type: "radio", options: ["email", "phone", "none"], required: true },
  { name: "email", type: "email", required: true, showIf: { field: "contact", equals: "email" } },
  { name: "phone", type: "tel", required: true, showIf: { field: "contact", in: ["phone"] } },
  { name: "more", type: "page", label: "A little more" },
  { name: "newsletter", type: "checkbox", showIf: { field: "email", notEmpty: true } },
  { name: "topics", type: "text", required: true, showIf: { field: "newsletter", equals: "true" } },
];

describe("showIf on every submit path", () => {
  test("a field whose condition does not hold is not required, and a value sent for it is dropped (API)", async () => {
    const form = await newForm({ fields });
    const res = await submitJson(form.id, { contact: "phone", phone: "+44 1", email: "x@example.com", more: "x" });
    expect(res.status).toBe(200);
    expect(await stored(form.id)).toEqual([{ contact: "phone", phone: "+44 1" }]);
  });

  test("a field whose condition holds is required and checked as usual", async () => {
    const form = await newForm({ fields });
    const res = await submitJson(form.id, { contact: "email", phone: "+44 1" });
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { field: string; code: string }) => [e.field, e.code])).toEqual([
      ["email", "REQUIRED_FIELD_MISSING"],
    ]);
    const bad = await submitJson(form.id, { contact: "email", email: "nope" });
    expect(bad.body.errors[0].code).toBe("TYPE_EMAIL");
    expect(await stored(form.id)).toEqual([]);
  });

  test("conditions chain: a field whose controlling field is not shown is not shown, whatever was sent for either", async () => {
    const form = await newForm({ fields });
    // email hidden (contact is phone), so newsletter is hidden, so topics is hidden: none required, all dropped.
    const res = await submitJson(form.id, { contact: "phone", phone: "1", newsletter: true, topics: "" });
    expect(res.status).toBe(200);
    // All shown: topics is required once the box is ticked.
    const needs = await submitJson(form.id, { contact: "email", email: "a@example.com", newsletter: true });
    expect(needs.status).toBe(400);
    expect(needs.body.errors.map((e: { field: string }) => e.field)).toEqual(["topics"]);
    const ok = await submitJson(form.id, {
      contact: "email",
      email: "a@example.com",
      newsletter: true,
      topics: "news",
    });
    expect(ok.status).toBe(200);
    expect(await stored(form.id)).toEqual([
      { contact: "email", email: "a@example.com", newsletter: true, topics: "news" },
      { contact: "phone", phone: "1" },
    ]);
  });

  test("a form post (POST /f/{formId}) follows the same rule, a ticked box reading as true", async () => {
    const form = await newForm({ fields });
    const post = new URLSearchParams({ contact: "email", email: "b@example.com", newsletter: "on", phone: "9" });
    const needs = await dropIn(form.id, post);
    expect(needs.status).toBe(400);
    expect(needs.body.errors.map((e: { field: string }) => e.field)).toEqual(["topics"]);
    post.set("topics", "all");
    expect((await dropIn(form.id, post)).status).toBe(200);
    // Unticked: topics is not shown, and what was typed into it is dropped.
    post.delete("newsletter");
    expect((await dropIn(form.id, post)).status).toBe(200);
    expect(await stored(form.id)).toEqual([
      { contact: "email", email: "b@example.com", newsletter: false },
      { contact: "email", email: "b@example.com", newsletter: true, topics: "all" },
    ]);
  });
});

describe("showIf and files", () => {
  test("a file sent for a field not shown is not kept: neither in the data nor in the store", async () => {
    const form = await newForm({
      files: {},
      fields: [
        { name: "cv", type: "checkbox" },
        { name: "resume", type: "file", showIf: { field: "cv", equals: "true" } },
        { name: "photo", type: "file" },
      ],
    });
    const body = new FormData();
    body.append("photo", new File(["%PDF-1.4 photo"], "photo.pdf", { type: "application/pdf" }));
    body.append("resume", new File(["%PDF-1.4 resume"], "resume.pdf", { type: "application/pdf" }));
    const res = await server.json(`/f/${form.id}`, { method: "POST", headers: { accept: "application/json" }, body });
    expect(res.status).toBe(200);
    const [data] = await stored(form.id);
    expect(Object.keys(data).sort()).toEqual(["cv", "photo"]);
    const files = await server.query<{ name: string; state: string }>("SELECT name, state FROM files ORDER BY name");
    expect(files).toEqual([{ name: "photo.pdf", state: "stored" }]);
  });
});

describe("showIf and page definitions", () => {
  const bad: [string, unknown[], string][] = [
    [
      "names a later field",
      [
        { name: "a", type: "text", showIf: { field: "b", notEmpty: true } },
        { name: "b", type: "text" },
      ],
      "showIf must name a field listed before it",
    ],
    [
      "names itself",
      [{ name: "a", type: "text", showIf: { field: "a", notEmpty: true } }],
      "cannot name the field itself",
    ],
    [
      "names no field",
      [{ name: "a", type: "text", showIf: { field: "zz", equals: "1" } }],
      'names "zz", which is not a field',
    ],
    [
      "gives two tests",
      [
        { name: "b", type: "text" },
        { name: "a", type: "text", showIf: { field: "b", equals: "1", notEmpty: true } },
      ],
      "exactly one of equals, in, notEmpty",
    ],
    [
      "gives none",
      [
        { name: "b", type: "text" },
        { name: "a", type: "text", showIf: { field: "b" } },
      ],
      "exactly one of equals, in, notEmpty",
    ],
    [
      "an empty in",
      [
        { name: "b", type: "text" },
        { name: "a", type: "text", showIf: { field: "b", in: [] } },
      ],
      "showIf.in must list at least one value",
    ],
    [
      "notEmpty false",
      [
        { name: "b", type: "text" },
        { name: "a", type: "text", showIf: { field: "b", notEmpty: false } },
      ],
      "showIf.notEmpty can only be true",
    ],
    [
      "an unknown key",
      [
        { name: "b", type: "text" },
        { name: "a", type: "text", showIf: { field: "b", equal: "1" } },
      ],
      "showIf?",
    ],
    [
      "names a page",
      [
        { name: "p", type: "page" },
        { name: "a", type: "text", showIf: { field: "p", notEmpty: true } },
      ],
      "cannot name a page field",
    ],
    ["a required page", [{ name: "p", type: "page", required: true }], "takes only name and label, not required"],
    [
      "a page with showIf",
      [
        { name: "b", type: "text" },
        { name: "p", type: "page", showIf: { field: "b", notEmpty: true } },
      ],
      "takes only name and label, not showIf",
    ],
  ];
  for (const [what, list, says] of bad)
    test(`a showIf or page that ${what} is a 400 saying so, and nothing changes`, async () => {
      const form = await newForm({ fields: [{ name: "x", type: "text" }] });
      const res = await api("PATCH", `/forms/${form.id}`, { fields: list });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe("INVALID_PARAMETER");
      expect(res.body.error).toContain(says);
      expect((await api("GET", `/forms/${form.id}`)).body.fields).toEqual([{ name: "x", type: "text" }]);
    });

  test("a good definition is kept as given and Get Form shows it", async () => {
    const form = await newForm({ fields });
    expect((await api("GET", `/forms/${form.id}`)).body.fields).toEqual(fields);
  });
});
