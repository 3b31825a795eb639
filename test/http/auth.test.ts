import { describe, expect, test } from "bun:test";
import { createLogger } from "../../src/lib/log";
import { useServer } from "../helpers/fixture";
import { runCliAsync, seedKey } from "../helpers/harness";

const logLines: string[] = [];
const server = useServer({ log: createLogger("info", (l) => void logLines.push(l)) });
const owner = server.seed("owner@example.com");
const other = server.seed("other@example.com");

const get = (path: string, headers: Record<string, string> = {}) => server.json(path, { headers });

describe("API keys", () => {
  test("are accepted from X-API-Key, the apiKey query parameter and Authorization: Bearer", async () => {
    expect((await get("/api/v1/forms/list", { "x-api-key": owner.key })).status).toBe(200);
    expect((await get(`/api/v1/forms/list?apiKey=${owner.key}`)).status).toBe(200);
    expect((await get("/api/v1/forms/list", { authorization: `Bearer ${owner.key}` })).status).toBe(200);
  });

  test("come from the header first, then the query, then Bearer", async () => {
    expect((await get(`/api/v1/forms/list?apiKey=fsk_wrong`, { "x-api-key": owner.key })).status).toBe(200);
    expect((await get(`/api/v1/forms/list?apiKey=${owner.key}`, { "x-api-key": "fsk_wrong" })).status).toBe(401);
    expect((await get(`/api/v1/forms/list?apiKey=${owner.key}`, { authorization: "Bearer fsk_wrong" })).status).toBe(
      200,
    );
    expect((await get(`/api/v1/forms/list?apiKey=fsk_wrong`, { authorization: `Bearer ${owner.key}` })).status).toBe(
      401,
    );
  });

  test("missing or wrong keys get a 401 JSON error", async () => {
    for (const headers of [{}, { "x-api-key": "fsk_wrong" }, { authorization: "Basic abc" }] as Record<
      string,
      string
    >[]) {
      const { status, body } = await get("/api/v1/forms/list", headers);
      expect(status).toBe(401);
      expect(body).toMatchObject({
        error: expect.any(String),
        code: "UNAUTHORIZED",
        requestId: expect.stringMatching(/^req_/),
      });
    }
  });

  test("a key sees only its owner's forms: another owner's form is a 403", async () => {
    const { status, body } = await get(`/api/v1/forms/${other.formId}`, { "x-api-key": owner.key });
    expect(status).toBe(403);
    expect(body.code).toBe("FORBIDDEN");
    const list = await get("/api/v1/forms/list", { "x-api-key": owner.key });
    expect(list.body.forms.map((f: any) => f.id)).toEqual([owner.formId]);
  });

  test("checks run in the order 401, 400, 404, 403", async () => {
    expect((await get("/api/v1/forms/list?limit=0")).status).toBe(401);
    expect((await get("/api/v1/forms/list?limit=0", { "x-api-key": owner.key })).status).toBe(400);
    expect((await get("/api/v1/forms/frm_missing", { "x-api-key": owner.key })).status).toBe(404);
    expect((await get(`/api/v1/forms/${other.formId}/submissions?limit=0`, { "x-api-key": owner.key })).status).toBe(
      400,
    );
    expect((await get(`/api/v1/forms/${other.formId}/submissions`, { "x-api-key": owner.key })).status).toBe(403);
  });

  test("a key revoked by the CLI is refused by the running server from the next request on", async () => {
    const key = await seedKey(server, "owner@example.com", { name: "to revoke" });
    expect((await get("/api/v1/forms/list", { "x-api-key": key.key })).status).toBe(200);
    const res = await runCliAsync(["keys", "revoke", key.id], { db: server.db });
    expect(res.code).toBe(0);
    expect((await get("/api/v1/forms/list", { "x-api-key": key.key })).status).toBe(401);
  });

  test("never appear in the request log, from any source", async () => {
    await get(`/api/v1/forms/list?apiKey=${owner.key}`);
    await get("/api/v1/forms/list", { "x-api-key": owner.key });
    await get("/api/v1/forms/list", { authorization: `Bearer ${owner.key}` });
    await Bun.sleep(10);
    expect(logLines.length).toBeGreaterThan(0);
    const all = logLines.join("");
    expect(all).toContain('"msg":"request"');
    expect(all).not.toContain(owner.key);
    expect(all).not.toContain("apiKey=");
  });

  test("leave one request line each, as the logger writes any line: time, level, msg, request id, method, route pattern, status, ms", async () => {
    const cases: { path: string; headers: Record<string, string>; status: number }[] = [
      { path: `/api/v1/forms/${owner.formId}`, headers: { "x-api-key": owner.key }, status: 200 },
      { path: "/api/v1/forms/frm_missing", headers: { "x-api-key": owner.key }, status: 404 },
      { path: "/api/v1/forms/list", headers: {}, status: 401 },
    ];
    for (const c of cases) {
      const res = await get(c.path, c.headers);
      expect(res.status).toBe(c.status);
      const id = res.headers.get("x-request-id")!;
      await Bun.sleep(10);
      const line = logLines.find((l) => l.includes(`"requestId":"${id}"`))!;
      const entry = JSON.parse(line) as Record<string, unknown>;
      const expected = createLogger("info", (l) => void (expectedLine = l));
      let expectedLine = "";
      const { time, ms } = entry as { time: string; ms: number };
      expected.info("request", {
        requestId: id,
        method: "GET",
        route: c.path.startsWith("/api/v1/forms/frm_") ? "/api/v1/forms/:formId" : "/api/v1/forms/list",
        status: c.status,
        ms,
      });
      expect(typeof ms).toBe("number");
      expect(line).toBe(expectedLine.replace(/"time":"[^"]*"/, `"time":"${time}"`));
    }
  });
});

describe("every response", () => {
  test("carries the rate-limit and security headers, errors included", async () => {
    const cases: [string, Record<string, string>, string?][] = [
      ["/api/v1/forms/list", { "x-api-key": owner.key }],
      ["/api/v1/forms/list?limit=abc", { "x-api-key": owner.key }],
      ["/api/v1/forms/list", {}],
      ["/api/v1/forms/frm_missing", { "x-api-key": owner.key }],
      ["/api/v1/forms/list", { "x-api-key": owner.key }, "DELETE"],
      ["/api/v1/nowhere", {}],
    ];
    for (const [path, headers, method] of cases) {
      const res = await server.request(path, { headers, method });
      for (const h of ["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"])
        expect(res.headers.get(h), `${path} ${h}`).toMatch(/^\d+$/);
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      expect(res.headers.get("content-type")).toContain("application/json");
      await res.text();
    }
  });

  test("unknown routes are a 404 and wrong methods a 405, both JSON", async () => {
    const missing = await get("/api/v1/nowhere", { "x-api-key": owner.key });
    expect([missing.status, missing.body.code]).toEqual([404, "ROUTE_NOT_FOUND"]);
    for (const [method, path] of [
      ["DELETE", "/api/v1/forms/list"],
      ["GET", "/api/v1/forms/submit"],
      ["PUT", `/api/v1/forms/${owner.formId}`],
    ]) {
      const res = await server.request(path!, { method, key: owner.key });
      expect([method, res.status]).toEqual([method, 405]);
      expect(res.headers.get("allow")).toBeTruthy();
      expect((await res.json()).code).toBe("METHOD_NOT_ALLOWED");
    }
    for (const method of ["GET", "PUT", "DELETE"]) {
      const res = await server.request("/api/v1/forms/submit", { method, key: owner.key });
      expect([method, res.status, res.headers.get("allow")]).toEqual([method, 405, "POST"]);
    }
  });

  test("malformed paths get a 4xx JSON error, never a 500", async () => {
    for (const path of [
      "/api/v1/forms/%E0%A4%A",
      "/api/v1/forms/%00",
      `/api/v1/forms/${"x".repeat(300)}`,
      "/api/v1/forms/'%20OR%201=1--",
      "/api/v1/forms/%2e%2e%2fetc",
    ]) {
      const res = await server.request(path, { key: owner.key });
      expect([path, res.status >= 400 && res.status < 500]).toEqual([path, true]);
      expect(typeof (await res.json()).error).toBe("string");
    }
  });
});
