import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../helpers/harness";

let server: TestServer;
let doc: any;

beforeAll(async () => {
  server = await startTestServer();
  const res = await server.request("/api/v1/openapi.json");
  expect(res.status).toBe(200);
  doc = await res.json();
});
afterAll(() => server.close());

const toOpenApiPath = (path: string) => path.replace(/:([^/]+)/g, "{$1}");

describe("the OpenAPI document", () => {
  test("lists exactly the API routes the app serves, with the same methods", () => {
    const served = server.app.routes
      .filter((r) => r.path.startsWith("/api/v1/") && r.path !== "/api/v1/openapi.json" && !(r.hooks as any)?.detail?.hide)
      .map((r) => `${r.method.toLowerCase()} ${toOpenApiPath(r.path)}`)
      .sort();
    const documented = Object.entries<Record<string, unknown>>(doc.paths)
      .flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m} ${path}`))
      .sort();
    expect(documented).toEqual(served);
  });

  test("declares the header and query key locations as security schemes", () => {
    const schemes = Object.values<any>(doc.components.securitySchemes);
    expect(schemes).toContainEqual({ type: "apiKey", in: "header", name: "X-API-Key" });
    expect(schemes).toContainEqual({ type: "apiKey", in: "query", name: "apiKey" });
    expect(doc.security.length).toBeGreaterThanOrEqual(2);
  });

  test("documents parameters, a success body and the shared error body for every operation", () => {
    for (const [path, ops] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(ops)) {
        const where = `${method} ${path}`;
        const ok = op.responses?.["200"];
        expect(ok?.content?.["application/json"]?.schema, where).toBeDefined();
        for (const status of ["400", "401", "429"]) {
          expect(op.responses?.[status]?.content?.["application/json"]?.schema?.properties?.error, `${where} ${status}`).toBeDefined();
        }
        for (const name of path.match(/\{([^}]+)\}/g)?.map((p) => p.slice(1, -1)) ?? []) {
          expect(op.parameters?.some((p: any) => p.name === name && p.in === "path"), `${where} path parameter ${name}`).toBe(true);
          expect(op.responses?.["403"], `${where} 403`).toBeDefined();
          expect(op.responses?.["404"], `${where} 404`).toBeDefined();
        }
      }
    }
  });

  test("documents the list query parameters and the submit body", () => {
    const list = doc.paths["/api/v1/forms/list"].get;
    expect(list.parameters.map((p: any) => p.name).sort()).toEqual(["cursor", "limit"]);
    const submit = doc.paths["/api/v1/forms/submit"].post;
    expect(Object.keys(submit.requestBody.content).sort()).toEqual(["application/json", "application/x-www-form-urlencoded", "multipart/form-data"]);
    expect(submit.requestBody.content["application/json"].schema.required.sort()).toEqual(["data", "formId"]);
  });

  test("serves a docs page without an API key", async () => {
    const res = await server.request("/docs");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    expect(await res.text()).toContain("api/v1/openapi.json");
  });
});
