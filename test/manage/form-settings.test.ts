import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { setAt, valueAt } from "../../src/lib/dotted-path";
import { WRITABLE_SETTINGS } from "../../src/modules/forms/settings";
import { seedOwner, startTestServer, type TestServer } from "../helpers/harness";

let server: TestServer;
let key: string;

const send = (method: string, path: string, body?: unknown) =>
  server.json(`/api/v1${path}`, {
    method,
    key,
    ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
  });

/** A body that sets one setting, shaped as Get Form shows it: `{spamSettings: {challenge: "pow"}}`. */
const bodyOf = (key: string, value: unknown) => {
  const body: Record<string, unknown> = {};
  setAt(body, key, value);
  return body;
};

beforeAll(async () => {
  server = await startTestServer({ config: { rateLimit: 100_000 } });
  key = (await seedOwner(server, "settings@example.com")).key;
});
afterAll(() => server.close());

describe("every setting of the table", () => {
  // A waitlist with autoresponse templates, so that each setting can change alone (double opt-in
  // needs a waitlist, an autoresponse turned on needs a subject and a text).
  const base = (formType: string) => ({
    name: "Base",
    formType,
    autoresponse: { enabled: false, subject: "Hello", text: "Thanks" },
  });

  for (const { key: setting, row } of WRITABLE_SETTINGS) {
    test(`PATCH /forms/{formId} changes ${setting} to ${JSON.stringify(row.example)}, and Get Form shows it`, async () => {
      expect(row.example).toBeDefined();
      expect(row.example).not.toEqual(row.default);
      const form = (await send("POST", "/forms", base(setting === "formType" ? "custom" : "waitlist"))).body;
      expect(valueAt(form, setting)).not.toEqual(row.example);
      const res = await send("PATCH", `/forms/${form.id}`, bodyOf(setting, row.example));
      expect([res.status, valueAt(res.body, setting)]).toEqual([200, row.example]);
      expect(valueAt((await send("GET", `/forms/${form.id}`)).body, setting)).toEqual(row.example);
    });

    test(`POST /forms takes ${setting}`, async () => {
      const body: Record<string, unknown> = base(setting === "formType" ? "custom" : "waitlist");
      setAt(body, setting, row.example);
      const res = await send("POST", "/forms", body);
      expect([res.status, valueAt(res.body, setting)]).toEqual([200, row.example]);
    });
  }

  test("a body that gives a setting a value of the wrong kind is a 400 that names the setting, and changes nothing", async () => {
    const form = (await send("POST", "/forms", base("waitlist"))).body;
    for (const { key: setting } of WRITABLE_SETTINGS) {
      const res = await send("PATCH", `/forms/${form.id}`, bodyOf(setting, { wrong: true }));
      expect([setting, res.status, res.body.error]).toEqual([
        setting,
        400,
        expect.stringContaining(setting.split(".")[0]!),
      ]);
    }
    expect((await send("GET", `/forms/${form.id}`)).body).toEqual(form);
  });

  test("null for a group of settings (emailSettings, spamSettings, autoresponse, usersJoinedSettings) is a 400 that names it, on POST and PATCH", async () => {
    const form = (await send("POST", "/forms", base("waitlist"))).body;
    for (const group of ["emailSettings", "spamSettings", "autoresponse", "usersJoinedSettings"]) {
      const patched = await send("PATCH", `/forms/${form.id}`, { [group]: null });
      expect([group, patched.status, patched.body.error]).toEqual([group, 400, expect.stringContaining(group)]);
      const created = await send("POST", "/forms", { name: "Null", [group]: null });
      expect([group, created.status, created.body.error]).toEqual([group, 400, expect.stringContaining(group)]);
    }
    expect((await send("GET", `/forms/${form.id}`)).body).toEqual(form);
  });
});

describe("rules between settings", () => {
  test("name the API's fields to an API caller, never a command-line flag, and change nothing", async () => {
    const form = (await send("POST", "/forms", { name: "Rules", formType: "waitlist", doubleOptIn: true })).body;
    const retyped = await send("PATCH", `/forms/${form.id}`, { formType: "contact" });
    expect([retyped.status, retyped.body.code]).toEqual([400, "INVALID_PARAMETER"]);
    expect(retyped.body.error).toContain("doubleOptIn");
    expect(retyped.body.error).toContain("formType");
    const half = await send("PATCH", `/forms/${form.id}`, { autoresponse: { enabled: true } });
    expect([half.status, half.body.error]).toEqual([400, expect.stringContaining("autoresponse.subject")]);
    for (const res of [retyped, half]) expect(res.body.error).not.toContain("--");
    expect((await send("GET", `/forms/${form.id}`)).body).toEqual(form);
  });
});

describe("confirmRedirectUrl, which becomes a Location header", () => {
  const cases: [url: string, status: number][] = [
    ["https://www.example.com/welcome?from=list#top", 200],
    ["http://[2001:db8::1]:8080/", 200],
    ["https://xn--bcher-kva.example/welcome", 200],
    // The document's pattern lets it through; its words say a punycode label must decode.
    ["https://xn--zz.example/", 400],
    ['https://a"b.example/', 400],
    ["https://a b.example/", 400],
    ["https://user:pass@example.com/", 400],
    ["javascript:alert(1)", 400],
    ["/relative", 400],
  ];
  for (const [url, status] of cases) {
    test(`${JSON.stringify(url)} is ${status === 200 ? "taken" : "a 400 that names the setting"}`, async () => {
      const form = (await send("POST", "/forms", { name: "Waitlist", formType: "waitlist" })).body;
      const res = await send("PATCH", `/forms/${form.id}`, { doubleOptIn: true, confirmRedirectUrl: url });
      expect(res.status).toBe(status);
      if (status === 400) expect(res.body.error).toContain("confirmRedirectUrl");
      expect((await send("GET", `/forms/${form.id}`)).body.confirmRedirectUrl).toBe(status === 200 ? url : null);
    });
  }
});
