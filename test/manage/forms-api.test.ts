import { beforeAll, describe, expect, test } from "bun:test";
import { OPERATOR } from "../../src/lib/principal";
import { useServer } from "../helpers/fixture";
import { seedKey, seedOwner, startTestServer } from "../helpers/harness";
import { submitRequest } from "../../src/modules/submissions/request";

const server = useServer({ config: { rateLimit: 100_000 } });
const { send } = server;
const owner = server.seed("owner@example.com");
const other = server.seed("other@example.com");
let publishable: string;
let bound: string;

beforeAll(async () => {
  publishable = (await seedKey(server, "owner@example.com", { publishable: true })).key;
  bound = (await seedKey(server, "owner@example.com", { forms: [owner.formId] })).key;
});

describe("POST /forms", () => {
  test("creates a form of the key's owner with the settings given, shaped as Get Form shows it, and answers 200 as submit does", async () => {
    const res = await send("POST", "/forms", owner.key, {
      name: "  Launch  ",
      formType: "waitlist",
      description: "Beta",
      emailSettings: { enabled: true },
      usersJoinedSettings: { enabled: true },
      allowedOrigins: ["https://www.example.com/"],
      spamSettings: { honeypotField: null, challenge: "pow" },
      retentionDays: 30,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      name: "Launch",
      formType: "waitlist",
      description: "Beta",
      submissionCount: 0,
      emailSettings: { enabled: true, developerNotificationsEnabled: false },
      usersJoinedSettings: { enabled: true, count: 0 },
      allowedOrigins: ["https://www.example.com"],
      spamSettings: { honeypotField: null, challenge: "pow" },
      retentionDays: 30,
    });
    const fetched = await send("GET", `/forms/${res.body.id}`, owner.key);
    expect(fetched.body).toEqual(res.body);
    expect((await send("GET", "/forms/list", owner.key)).body.forms.map((f: { id: string }) => f.id)).toContain(
      res.body.id,
    );
  });

  test("takes only a name, with the defaults of formsvc forms create", async () => {
    const res = await send("POST", "/forms", owner.key, { name: "Bare" });
    expect(res.body).toMatchObject({
      formType: "custom",
      description: "",
      allowedOrigins: [],
      spamSettings: { honeypotField: "_gotcha", challenge: "none" },
      retentionDays: null,
      usersJoinedSettings: null,
    });
  });

  test("refuses a missing name, an unknown or read-only field, a bad type, retention or origin with a 400 that says which, creating nothing", async () => {
    const before = (await server.query("SELECT count(*) AS n FROM forms"))[0].n;
    const cases: [unknown, string][] = [
      [{}, "name"],
      [{ name: "" }, "name must be 1 to 200 characters"],
      [{ name: "x", submissionCount: 5 }, "submissionCount"],
      [{ name: "x", formType: "poll" }, "formType must be one of"],
      [{ name: "x", retentionDays: 0 }, "retentionDays must be a whole number of days"],
      [{ name: "x", retentionDays: "30" }, "retentionDays must be a whole number of days"],
      [{ name: "x", allowedOrigins: ["not an origin"] }, "is not an origin"],
      [{ name: "x", spamSettings: { honeypotField: "formId" } }, "honeypot field"],
      [{ name: "x", usersJoinedSettings: { enabled: true, count: 9 } }, "usersJoinedSettings"],
    ];
    for (const [body, message] of cases) {
      const res = await send("POST", "/forms", owner.key, body);
      expect([JSON.stringify(body), res.status, res.body.error]).toEqual([
        JSON.stringify(body),
        400,
        expect.stringContaining(message),
      ]);
    }
    const notJson = await server.json("/api/v1/forms", {
      method: "POST",
      key: owner.key,
      headers: { "content-type": "application/json" },
      body: "{",
    });
    expect(notJson.status).toBe(400);
    expect((await server.query("SELECT count(*) AS n FROM forms"))[0].n).toBe(before);
  });

  test("refuses a publishable key and a key bound to some forms with 403 KEY_SCOPE, after the body check", async () => {
    for (const key of [publishable, bound]) {
      const res = await send("POST", "/forms", key, { name: "Nope" });
      expect([res.status, res.body.code]).toEqual([403, "KEY_SCOPE"]);
      expect((await send("POST", "/forms", key, { name: "" })).status).toBe(400);
    }
    expect((await send("POST", "/forms", "fsk_wrong", { name: "" })).status).toBe(401);
    expect((await send("POST", "/forms", undefined, { name: "x" })).status).toBe(401);
  });
});

describe("PATCH /forms/{formId}", () => {
  test("changes only the fields given, as forms update does, and clears retention with null", async () => {
    const form = (
      await send("POST", "/forms", owner.key, {
        name: "Patchable",
        description: "keep me",
        retentionDays: 7,
        spamSettings: { challenge: "pow" },
      })
    ).body;
    const res = await send("PATCH", `/forms/${form.id}`, owner.key, {
      name: "Renamed",
      emailSettings: { developerNotificationsEnabled: true },
      spamSettings: { honeypotField: "website" },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      name: "Renamed",
      description: "keep me",
      retentionDays: 7,
      emailSettings: { enabled: false, developerNotificationsEnabled: true },
      spamSettings: { honeypotField: "website", challenge: "pow" },
    });
    expect(res.body.updatedAt >= form.updatedAt).toBe(true);
    expect(
      (await send("PATCH", `/forms/${form.id}`, owner.key, { retentionDays: null })).body.retentionDays,
    ).toBeNull();
    expect((await send("GET", `/forms/${form.id}`, owner.key)).body).toMatchObject({
      name: "Renamed",
      retentionDays: null,
    });
  });

  test("changes nothing, not even updatedAt, for an empty body or the values a form already has", async () => {
    const form = (await send("POST", "/forms", owner.key, { name: "Still" })).body;
    await Bun.sleep(5);
    expect((await send("PATCH", `/forms/${form.id}`, owner.key, {})).body).toEqual(form);
    expect((await send("PATCH", `/forms/${form.id}`, owner.key, { name: "Still", retentionDays: null })).body).toEqual(
      form,
    );
  });

  test("recounts distinct joiners when a form becomes a waitlist", async () => {
    const form = (await send("POST", "/forms", owner.key, { name: "Soon a waitlist" })).body;
    for (const email of ["a@example.com", "A@example.com", "b@example.com"]) {
      await send("POST", "/forms/submit", owner.key, { formId: form.id, data: { email } });
    }
    const res = await send("PATCH", `/forms/${form.id}`, owner.key, {
      formType: "waitlist",
      usersJoinedSettings: { enabled: true },
    });
    expect(res.body.usersJoinedSettings).toEqual({ enabled: true, count: 2 });
  });

  test("answers in the API's order: 401, 400, 404, then 403 for another owner's form, a publishable or a bound key", async () => {
    expect((await send("PATCH", "/forms/frm_missing", "fsk_wrong", { name: 5 })).status).toBe(401);
    expect((await send("PATCH", "/forms/frm_missing", owner.key, { name: 5 })).status).toBe(400);
    expect((await send("PATCH", `/forms/${other.formId}`, owner.key, { retentionDays: -1 })).status).toBe(400);
    const missing = await send("PATCH", "/forms/frm_missing", owner.key, { name: "x" });
    expect([missing.status, missing.body.code]).toEqual([404, "FORM_NOT_FOUND"]);
    const foreign = await send("PATCH", `/forms/${other.formId}`, owner.key, { name: "Mine now" });
    expect([foreign.status, foreign.body.code]).toEqual([403, "FORBIDDEN"]);
    expect((await send("PATCH", `/forms/${owner.formId}`, publishable, { name: "x" })).body.code).toBe("KEY_SCOPE");
    const otherForm = (await send("POST", "/forms", owner.key, { name: "Outside the binding" })).body;
    expect((await send("PATCH", `/forms/${otherForm.id}`, bound, { name: "x" })).body.code).toBe("KEY_SCOPE");
    // A bound key may change its own form.
    expect((await send("PATCH", `/forms/${owner.formId}`, bound, { description: "bound" })).status).toBe(200);
    expect((await send("GET", `/forms/${other.formId}`, other.key)).body.name).toBe("Contact");
  });
});

describe("DELETE /forms/{formId}", () => {
  test("removes the form with its submissions, its rollups and its queued notifications", async () => {
    const form = (
      await send("POST", "/forms", owner.key, {
        name: "Doomed",
        emailSettings: { enabled: true, developerNotificationsEnabled: true },
      })
    ).body;
    for (let i = 0; i < 3; i++)
      expect(
        (await send("POST", "/forms/submit", owner.key, { formId: form.id, data: { email: `d${i}@example.com` } }))
          .status,
      ).toBe(200);
    const res = await send("DELETE", `/forms/${form.id}`, owner.key);
    expect([res.status, res.body]).toEqual([200, { id: form.id, deleted: true }]);
    expect((await send("GET", `/forms/${form.id}`, owner.key)).status).toBe(404);
    for (const table of ["submissions", "form_daily_counts", "form_monthly_counts", "outbox"]) {
      expect([
        table,
        (await server.query(`SELECT count(*) AS n FROM ${table} WHERE form_id = ?`, form.id))[0].n,
      ]).toEqual([table, 0]);
    }
    expect((await send("DELETE", `/forms/${form.id}`, owner.key)).status).toBe(404);
  });

  test("empties a form larger than one transaction's share a chunk at a time, then removes it, with one audit line", async () => {
    const form = (await send("POST", "/forms", owner.key, { name: "Large", formType: "waitlist" })).body;
    const caller = OPERATOR;
    const submitter = {
      userAgent: null,
      acceptLanguage: null,
      referer: null,
      origin: null,
      ip: "127.0.0.1",
      proxyCountry: null,
    };
    await Promise.all(
      Array.from({ length: 1_234 }, (_, i) =>
        server.services.submissions.submit(
          submitRequest({
            actor: caller,
            body: { formId: form.id, data: { email: `l${i % 300}@example.com` } },
            submitter: submitter,
          }),
        ),
      ),
    );
    expect((await send("DELETE", `/forms/${form.id}`, owner.key)).body).toEqual({ id: form.id, deleted: true });
    for (const table of ["submissions", "waitlist_joiners", "form_daily_counts"])
      expect((await server.query(`SELECT count(*) AS n FROM ${table} WHERE form_id = ?`, form.id))[0].n).toBe(0);
    const lines = await server.query(
      "SELECT action, detail FROM audit_events WHERE object_id = ? ORDER BY id",
      form.id,
    );
    expect(lines).toEqual([
      { action: "form.created", detail: '{"formType":"waitlist"}' },
      { action: "form.deleted", detail: '{"submissions":1234}' },
    ]);
  });

  test("refuses another owner's form (403), a publishable key (403 KEY_SCOPE) and an unknown form (404), deleting nothing", async () => {
    expect((await send("DELETE", `/forms/${other.formId}`, owner.key)).body.code).toBe("FORBIDDEN");
    expect((await send("DELETE", `/forms/${owner.formId}`, publishable)).body.code).toBe("KEY_SCOPE");
    expect((await send("DELETE", "/forms/frm_missing", owner.key)).status).toBe(404);
    expect((await send("GET", `/forms/${other.formId}`, other.key)).status).toBe(200);
    expect((await send("GET", `/forms/${owner.formId}`, owner.key)).status).toBe(200);
  });
});

describe("with an empty bucket", () => {
  test("every management endpoint answers 429 first, with the rate-limit headers and Retry-After", async () => {
    const tight = await startTestServer({ config: { rateLimit: 1 } });
    try {
      const { key, formId, keyId } = await seedOwner(tight);
      expect((await tight.request(`/api/v1/forms/${formId}`, { key })).status).toBe(200);
      for (const [method, path] of [
        ["POST", "/forms"],
        ["PATCH", `/forms/${formId}`],
        ["DELETE", `/forms/${formId}`],
        ["GET", "/keys"],
        ["POST", "/keys"],
        ["DELETE", `/keys/${keyId}`],
        ["DELETE", `/forms/${formId}/submissions/sub_1`],
        ["POST", `/forms/${formId}/submissions/sub_1/spam`],
        ["GET", `/forms/${formId}/submissions/export`],
      ]) {
        const res = await tight.json(`/api/v1${path}`, {
          method,
          key,
          headers: { "content-type": "application/json" },
          body: method === "GET" || method === "DELETE" ? undefined : "{",
        });
        expect([
          method,
          path,
          res.status,
          res.body.code,
          res.headers.get("retry-after") !== null,
          res.headers.get("x-ratelimit-remaining"),
        ]).toEqual([method, path, 429, "RATE_LIMITED", true, "0"]);
      }
      expect((await tight.json(`/api/v1/forms/${formId}`, { key })).status).toBe(429);
    } finally {
      await tight.close();
    }
  });
});
