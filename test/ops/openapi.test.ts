import { beforeAll, describe, expect, test } from "bun:test";
import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { useServer } from "../helpers/fixture";
import { seedOwner } from "../helpers/harness";
import { SETTING_HELP } from "../../src/modules/forms/setting-help";

const server = useServer();
let doc: any;

beforeAll(async () => {
  const res = await server.request("/api/v1/openapi.json");
  expect(res.status).toBe(200);
  doc = await res.json();
});

const toOpenApiPath = (path: string) => path.replace(/:([^/]+)/g, "{$1}");

describe("the OpenAPI document", () => {
  test("lists exactly the API routes the app serves, with the same methods", () => {
    const served = server.app.routes
      .filter(
        (r) => r.path.startsWith("/api/v1/") && r.path !== "/api/v1/openapi.json" && !(r.hooks as any)?.detail?.hide,
      )
      .map((r) => `${r.method.toLowerCase()} ${toOpenApiPath(r.path)}`)
      .sort();
    const documented = Object.entries<Record<string, unknown>>(doc.paths)
      .flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m} ${path}`))
      .sort();
    expect(documented).toEqual(served);
  });

  test("names the MCP endpoint in its prose, though /mcp is no operation of it (it answers as its transport does)", () => {
    expect(doc.info.description).toContain("POST /mcp");
    expect(doc.info.description).toContain("Model Context Protocol");
    expect(doc.paths["/mcp"]).toBeUndefined();
    expect(server.app.routes.some((r) => r.method === "POST" && r.path === "/mcp")).toBe(true);
  });

  test("declares the header and query key locations as security schemes", () => {
    const schemes = Object.values<any>(doc.components.securitySchemes);
    expect(schemes).toContainEqual({ type: "apiKey", in: "header", name: "X-API-Key" });
    expect(schemes).toContainEqual({ type: "apiKey", in: "query", name: "apiKey" });
    expect(doc.security.length).toBeGreaterThanOrEqual(2);
  });

  test("documents parameters, a success body (or a bodiless 204) and the shared error body for every operation", () => {
    const error = doc.components.schemas.Error;
    expect(error.properties.error.type).toBe("string");
    for (const [path, ops] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(ops)) {
        const where = `${method} ${path}`;
        const ok = op.responses?.["200"] ?? op.responses?.["202"];
        // A stored file is answered as the bytes it is, under the type it was stored with; a submission's PDF as a PDF.
        const body = ok?.content?.["application/json"] ?? ok?.content?.["*/*"] ?? ok?.content?.["application/pdf"];
        // A browser's redirect (single sign-on) answers only where to go next.
        if (!ok && op.responses?.["302"]) expect(op.responses["302"].headers?.Location, `${where} 302`).toBeDefined();
        else if (ok || !op.responses?.["204"]) expect(body?.schema, where).toBeDefined();
        else expect(op.responses["204"].content, `${where} 204`).toBeUndefined();
        // A 400 is what a parameter or body can earn; an operation that takes neither cannot answer one.
        const takesInput = (op.parameters?.length ?? 0) > 0 || op.requestBody !== undefined;
        // A 401 is for a missing or wrong credential; setup and reset take none (`security: []`), so they cannot answer one.
        const takesCredential = !Array.isArray(op.security) || op.security.length > 0 || path.endsWith("/auth/login");
        for (const status of [
          ...(takesInput ? ["400"] : []),
          ...(takesCredential ? ["401"] : []),
          "429",
          "500",
          "503",
        ]) {
          expect(op.responses?.[status]?.content?.["application/json"]?.schema, `${where} ${status}`).toEqual({
            $ref: "#/components/schemas/Error",
          });
        }
        for (const name of path.match(/\{([^}]+)\}/g)?.map((p) => p.slice(1, -1)) ?? []) {
          expect(
            op.parameters?.some((p: any) => p.name === name && p.in === "path"),
            `${where} path parameter ${name}`,
          ).toBe(true);
          expect(op.responses?.["403"], `${where} 403`).toBeDefined();
          expect(op.responses?.["404"], `${where} 404`).toBeDefined();
        }
      }
    }
  });

  test("documents the list query parameters and the submit body", () => {
    const list = doc.paths["/api/v1/forms/list"].get;
    expect(list.parameters.map((p: any) => p.name).sort()).toEqual(["cursor", "limit", "teamId"]);
    const submit = doc.paths["/api/v1/forms/submit"].post;
    expect(Object.keys(submit.requestBody.content).sort()).toEqual([
      "application/json",
      "application/x-www-form-urlencoded",
      "multipart/form-data",
    ]);
    expect(submit.requestBody.content["application/json"].schema.required.sort()).toEqual(["data", "formId"]);
  });

  test("is valid OpenAPI 3.1: redocly lint with its recommended rules reports no error", () => {
    const file = join(server.dir, "openapi.json");
    writeFileSync(file, JSON.stringify(doc));
    const redocly = join(import.meta.dir, "../../node_modules/.bin/redocly");
    const run = Bun.spawnSync([redocly, "lint", "--extends=recommended", "--format=json", file], {
      env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
      stdout: "pipe",
      stderr: "pipe",
    });
    const report = JSON.parse(run.stdout.toString());
    const errors = report.problems
      .filter((p: any) => p.severity === "error")
      .map((p: any) => `${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`);
    expect(errors).toEqual([]);
    expect(report.totals.errors).toBe(0);
  });

  test("publishes none of Elysia's own schema keywords, while Elysia still answers with their messages", async () => {
    const text = JSON.stringify(doc);
    // `error` stays only as the name of the Error body's property, never as a keyword with a message.
    expect(text).not.toMatch(/"error":"/);
    expect(text).not.toContain('"nullable"');
    const owner = await seedOwner(server, "keywords@example.com");
    expect((await server.json("/api/v1/forms/list?limit=0", { key: owner.key })).body.error).toBe(
      "limit must be a whole number from 1 to 100",
    );
  });

  test("shows the limits the server enforces", () => {
    const analytics = doc.paths["/api/v1/forms/{formId}/analytics"].get.parameters;
    for (const name of ["startDate", "endDate"])
      expect(analytics.find((p: any) => p.name === name).schema).toMatchObject({
        type: "string",
        format: "date",
        pattern: "^\\d{4}-\\d{2}-\\d{2}$",
      });
    const submit = doc.paths["/api/v1/forms/submit"].post;
    expect(submit.parameters.find((p: any) => p.name === "Idempotency-Key").schema).toMatchObject({
      type: "string",
      minLength: 1,
      maxLength: 255,
      pattern: "^[\\x20-\\x7e]+$",
    });
    const json = submit.requestBody.content["application/json"].schema;
    expect(json.properties.formId).toMatchObject({ minLength: 1, maxLength: 200 });
    // Any text up to the limit: a target that is no URL, or not allowed, is dropped and the post stored.
    expect(json.properties.redirectUrl).toMatchObject({ type: "string", maxLength: 2048 });
    for (const type of ["application/x-www-form-urlencoded", "multipart/form-data"]) {
      const form = submit.requestBody.content[type].schema;
      expect(form.properties.formId).toMatchObject({ minLength: 1, maxLength: 200 });
      expect(form.properties.redirectUrl.anyOf).toContainEqual(json.properties.redirectUrl);
      // Every other field is text (or repeated text): no binary, so no file parts.
      expect(form.additionalProperties).toEqual({
        anyOf: [{ type: "string" }, { type: "array", items: { type: "string" } }],
      });
    }
    const redirect = submit.responses["303"];
    expect(redirect.headers.Location).toMatchObject({ required: true, schema: { type: "string", format: "uri" } });
    expect(redirect.content["application/json"].schema).toEqual(
      submit.responses["200"].content["application/json"].schema,
    );
  });

  test("agrees with the server on which JSON submit bodies are valid", async () => {
    const owner = await seedOwner(server, "agree@example.com");
    const ajv = new Ajv2020({ strict: true });
    addFormats(ajv);
    const valid = ajv.compile(doc.paths["/api/v1/forms/submit"].post.requestBody.content["application/json"].schema);
    const id = owner.formId;
    const bodies: unknown[] = [
      { formId: id, data: {} },
      { formId: id, data: { a: [1, { b: null }], c: "x" } },
      { formId: id, data: {}, redirectUrl: "https://example.com/thanks?x=1" },
      { formId: id, data: {}, redirectUrl: "HTTP://EXAMPLE.COM/" },
      { formId: id, data: {}, redirectUrl: "https://例え.jp/パス?q=é" },
      { data: {} },
      { formId: "", data: {} },
      { formId: "f".repeat(201), data: {} },
      { formId: 42, data: {} },
      { formId: id },
      { formId: id, data: [] },
      { formId: id, data: null },
      { formId: id, data: {}, redirectUrl: "/thanks" },
      { formId: id, data: {}, redirectUrl: "ftp://example.com/" },
      { formId: id, data: {}, redirectUrl: "http:example.com" },
      { formId: id, data: {}, redirectUrl: "https://" },
      { formId: id, data: {}, redirectUrl: "https://example.com/a b" },
      { formId: id, data: {}, redirectUrl: "https://example.com/\u0007" },
      { formId: id, data: {}, redirectUrl: `https://example.com/${"x".repeat(2040)}` },
      { formId: id, data: {}, extra: 1 },
      ["not", "an", "object"],
    ];
    for (const body of bodies) {
      const res = await server.request("/api/v1/forms/submit", {
        method: "POST",
        key: owner.key,
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      const label = JSON.stringify(body).slice(0, 60);
      expect([label, res.status]).toEqual([label, valid(body) ? 200 : 400]);
    }
  });

  test("agrees with the server on form posts: a field with an empty name is a 400, as in the JSON body", async () => {
    const owner = await seedOwner(server, "form-names@example.com");
    const submit = doc.paths["/api/v1/forms/submit"].post.requestBody.content;
    const ajv = new Ajv2020({ strict: false });
    for (const type of ["application/x-www-form-urlencoded", "multipart/form-data"]) {
      expect(submit[type].schema.propertyNames).toEqual({ minLength: 1 });
      const valid = ajv.compile(submit[type].schema);
      for (const fields of [{ message: "hi" }, { "": "no name", message: "hi" }] as Record<string, string>[]) {
        const sent = { formId: owner.formId, ...fields };
        const body =
          type === "multipart/form-data"
            ? Object.entries(sent).reduce((f, [k, v]) => (f.append(k, v), f), new FormData())
            : new URLSearchParams(sent).toString();
        const res = await server.request("/api/v1/forms/submit", {
          method: "POST",
          key: owner.key,
          ...(typeof body === "string" ? { headers: { "content-type": type } } : {}),
          body,
        });
        const label = `${type} ${JSON.stringify(fields)}`;
        expect([label, res.status]).toEqual([label, valid(sent) ? 200 : 400]);
      }
    }
  });

  test("agrees with the server on login emails, and documents the password rule each auth route checks", async () => {
    const auth = (path: string) =>
      doc.paths[`/api/v1/auth/${path}`].post.requestBody.content["application/json"].schema;
    // Login takes any password, so that one outside the rule is just wrong; setup and reset set one by the rule.
    expect(auth("login").properties.password).toMatchObject({ minLength: 1 });
    for (const path of ["setup", "reset/confirm"])
      expect(auth(path).properties.password).toMatchObject({ minLength: 12, maxLength: 1024 });
    for (const path of ["login", "setup", "reset"]) expect(auth(path).properties.email.pattern).toBeString();
    const valid = new Ajv2020({ strict: false }).compile(auth("login"));
    const emails = [
      "nobody@example.com",
      "  Some.One+tag@Example.COM ",
      "a@b",
      "no-at-sign.example.com",
      ".dot@example.com",
      "two..dots@example.com",
      "dot.@example.com",
      "a b@example.com",
      "x@-bad.example.com",
    ];
    for (const email of emails) {
      const body = { email, password: "not the password" };
      const res = await server.json("/api/v1/auth/login", {
        method: "POST",
        headers: { "content-type": "application/json", origin: server.url },
        body: JSON.stringify(body),
      });
      // A well-formed email nobody owns is a wrong login (401); anything else is refused as no email (400).
      expect([email, res.status]).toEqual([email, valid(body) ? 401 : 400]);
      if (res.status === 400) expect(res.body.error).toBe("email must be an email address");
    }
  });

  test("agrees with the server on webhook URLs: what the document takes is refused only for its address", async () => {
    const owner = await seedOwner(server, "hook-urls@example.com");
    const path = "/api/v1/forms/{formId}/webhooks";
    const schema = doc.paths[path].post.requestBody.content["application/json"].schema;
    expect(schema.properties.url.pattern).toBeString();
    const valid = new Ajv2020({ strict: false }).compile(schema);
    for (const url of [
      "http://127.0.0.1:9/hook",
      " HTTPS://127.0.0.1:9/hook ",
      "ftp://127.0.0.1/hook",
      "mailto:owner@example.com",
      "/relative/hook",
      "http://",
      "https:// space",
    ]) {
      const res = await server.json(`/api/v1/forms/${owner.formId}/webhooks`, {
        method: "POST",
        key: owner.key,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ url }),
      });
      // A URL the document takes passes the URL checks and meets the address rule (loopback: refused here).
      expect([url, res.status, res.body.error]).toEqual([
        url,
        400,
        valid({ url })
          ? expect.stringMatching(/^url refused: .*loopback/)
          : "url must be an absolute http(s) URL of at most 2,048 characters",
      ]);
    }
  });

  test("says what the server checks of a form's settings: formats, patterns and lengths", () => {
    // A copy: the matchers below must leave the document as it came for the next test.
    const body = structuredClone(
      doc.paths["/api/v1/forms/{formId}"].patch.requestBody.content["application/json"].schema,
    );
    const nonNull = (s: any) => s.anyOf?.find((v: any) => v.type !== "null") ?? s;
    for (const key of ["successUrl", "errorUrl", "confirmRedirectUrl"])
      expect([key, nonNull(body.properties[key])]).toEqual([
        key,
        expect.objectContaining({ maxLength: 2048, pattern: expect.any(String) }),
      ]);
    expect(nonNull(body.properties.closesAt)).toMatchObject({ format: "date-time", pattern: expect.any(String) });
    expect(body.properties.allowedOrigins.items).toMatchObject({ pattern: expect.any(String), maxLength: 2048 });
    expect(nonNull(body.properties.fromName)).toMatchObject({
      minLength: 1,
      maxLength: 100,
      pattern: expect.any(String),
    });
    const field = nonNull(body.properties.fields).items;
    expect(field.properties.name).toMatchObject({ minLength: 1, maxLength: 100, pattern: "^[^_]" });
    expect(field.properties.minLength.description).toContain("text, textarea, email, url, tel and hidden fields only");
    const template = nonNull(body.properties.notificationTemplate);
    for (const part of ["subject", "text"]) expect(template.properties[part]).toMatchObject({ minLength: 1 });
    // Every length says its unit, which is JavaScript's, not JSON Schema's.
    const lengths: any[] = [];
    const walk = (node: unknown): void => {
      if (!node || typeof node !== "object") return;
      const n = node as Record<string, unknown>;
      if (typeof n.minLength === "number" || typeof n.maxLength === "number") lengths.push(n);
      Object.values(n).forEach(walk);
    };
    walk(body);
    expect(lengths.length).toBeGreaterThan(10);
    for (const n of lengths) expect(n.description).toContain("UTF-16 code units");
  });

  test("agrees with the server on which form settings are valid: at a limit a 200, just past it a 400 that names the setting", async () => {
    const owner = await seedOwner(server, "settings-agree@example.com");
    const ajv = new Ajv2020({ strict: false });
    addFormats(ajv);
    const valid = ajv.compile(doc.paths["/api/v1/forms/{formId}"].patch.requestBody.content["application/json"].schema);
    const form = (
      await server.json("/api/v1/forms", {
        method: "POST",
        key: owner.key,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: "Agree", formType: "waitlist" }),
      })
    ).body;
    const bodies: Record<string, unknown>[] = [
      { fromName: "x".repeat(100) },
      { fromName: "x".repeat(101) },
      { fromName: "two\nlines" },
      { fromName: "   " },
      { successUrl: "https://www.example.com/thanks?x=1#top" },
      { successUrl: "http://[2001:db8::1]:8080/" },
      { successUrl: "https://xn--bcher-kva.example/" },
      { successUrl: "http://192.0.2.1:65535/" },
      { successUrl: `https://example.com/${"x".repeat(2028)}` },
      { successUrl: `https://example.com/${"x".repeat(2029)}` },
      { successUrl: "https://example.com:65536/" },
      { successUrl: "https://user:pass@example.com/" },
      { errorUrl: 'https://a"b.example/' },
      { errorUrl: "javascript:alert(1)" },
      { confirmRedirectUrl: "/relative" },
      { confirmRedirectUrl: "http://999.1.1.1/" },
      { closesAt: "2030-01-31T18:00:00Z" },
      { closesAt: "2030-01-31T18:00:00.123+05:30" },
      { closesAt: "2032-02-29T00:00:00Z" },
      { closesAt: "2030-02-29T00:00:00Z" },
      { closesAt: "2030-01-31T24:00:00Z" },
      { closesAt: "2030-01-31" },
      { allowedOrigins: ["https://www.example.com", "http://localhost:3000/"] },
      { allowedOrigins: Array.from({ length: 100 }, (_, i) => `https://s${i}.example.com`) },
      { allowedOrigins: Array.from({ length: 101 }, (_, i) => `https://s${i}.example.com`) },
      { allowedOrigins: ["https://www.example.com/path"] },
      { allowedOrigins: ['https://a"b.example'] },
      { fields: [{ name: "n".repeat(100), type: "text", minLength: 2 }] },
      { fields: [{ name: "n".repeat(101), type: "text" }] },
      { fields: [{ name: "_next", type: "text" }] },
      { fields: [{ name: "topic", type: "select", options: ["a", "a"] }] },
      { notificationTemplate: { subject: "{{form.name}}", text: "t" } },
      { notificationTemplate: { subject: " ", text: "t" } },
      { files: { types: ["Application/PDF", "image/*"] } },
      { files: { types: ["pdf"] } },
      { spamSettings: { blockedWords: ["casino"] } },
      { spamSettings: { blockedWords: ["  "] } },
      { spamSettings: { honeypotField: "h".repeat(100) } },
      { spamSettings: { honeypotField: "h".repeat(101) } },
      { spamSettings: { honeypotField: "formId" } },
    ];
    for (const body of bodies) {
      const res = await server.json(`/api/v1/forms/${form.id}`, {
        method: "PATCH",
        key: owner.key,
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      const label = JSON.stringify(body).slice(0, 70);
      const key = Object.keys(body)[0]!;
      expect([label, res.status]).toEqual([label, valid(body) ? 200 : 400]);
      if (res.status === 400)
        expect([label, res.body.code, res.body.error]).toEqual([
          label,
          "INVALID_PARAMETER",
          expect.stringContaining(key),
        ]);
    }
  });

  test("describes each setting in Get Form and in the bodies with its help, written once for the CLI and the dashboard too", () => {
    const get = doc.paths["/api/v1/forms/{formId}"].get.responses["200"].content["application/json"].schema;
    const patch = doc.paths["/api/v1/forms/{formId}"].patch.requestBody.content["application/json"].schema;
    const at = (schema: any, key: string) =>
      key.split(".").reduce((s, part) => (s.anyOf?.find((v: any) => v.properties) ?? s).properties[part], schema);
    for (const [key, help] of Object.entries(SETTING_HELP)) {
      expect([key, at(get, key).description]).toEqual([key, help]);
      // Elysia's OpenAPI plugin rewrites a body's union of literals (formType) as a bare enum, without
      // its description, once a route has validated it; Get Form's says it above.
      const body = at(patch, key);
      if (!body.enum) expect([key, body.description?.slice(0, help.length)]).toEqual([key, help]);
    }
  });

  test("serves a docs page without an API key", async () => {
    const res = await server.request("/docs");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    expect(await res.text()).toContain("api/v1/openapi.json");
  });
});
