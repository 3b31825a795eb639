import { describe, expect, test } from "bun:test";
import { useServer } from "../helpers/fixture";
import { startTestServer } from "../helpers/harness";

const server = useServer({ config: { rateLimit: 100_000 } });
const owner = server.seed("owner@example.com", { formType: "waitlist" });

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"];

/** Every path the API serves, with the methods it serves there (what Allow must list, exactly). */
const routes = () => [
  { path: "/api/v1/forms/list", allow: "GET" },
  { path: "/api/v1/forms", allow: "POST" },
  { path: `/api/v1/forms/${owner.formId}`, allow: "GET, PATCH, DELETE" },
  { path: "/api/v1/keys", allow: "GET, POST" },
  { path: `/api/v1/keys/${owner.keyId}`, allow: "DELETE" },
  { path: `/api/v1/forms/${owner.formId}/submissions/export`, allow: "GET" },
  { path: `/api/v1/forms/${owner.formId}/submissions/sub_1`, allow: "GET, DELETE, PATCH" },
  { path: `/api/v1/forms/${owner.formId}/submissions/sub_1/spam`, allow: "POST" },
  { path: `/api/v1/forms/${owner.formId}/submissions/sub_1/not-spam`, allow: "POST" },
  { path: `/api/v1/forms/${owner.formId}/submissions/bulk`, allow: "POST" },
  { path: `/api/v1/forms/${owner.formId}/submissions/sub_1/notes`, allow: "POST, GET" },
  { path: `/api/v1/forms/${owner.formId}/users-joined`, allow: "GET" },
  { path: "/api/v1/forms/submit", allow: "POST" },
  { path: `/api/v1/forms/${owner.formId}/submissions`, allow: "GET" },
  { path: `/api/v1/forms/${owner.formId}/analytics`, allow: "GET" },
  { path: "/api/v1/openapi.json", allow: "GET" },
  { path: "/healthz", allow: "GET" },
  { path: "/metrics", allow: "GET" },
  { path: "/mcp", allow: "POST" },
];

describe("OPTIONS", () => {
  test("answers 204 with exactly the route's methods in Allow, with or without a key", async () => {
    for (const { path, allow } of routes()) {
      for (const key of [owner.key, undefined]) {
        const res = await server.request(path, { method: "OPTIONS", key });
        expect([path, res.status, res.headers.get("allow"), await res.text()]).toEqual([path, 204, allow, ""]);
        expect(res.headers.get("x-ratelimit-limit")).not.toBeNull();
      }
    }
  });

  test("takes no token from the caller's bucket", async () => {
    const remaining = async (method: string) =>
      Number(
        (await server.request(`/api/v1/forms/${owner.formId}`, { method, key: owner.key })).headers.get(
          "x-ratelimit-remaining",
        ),
      );
    const before = await remaining("OPTIONS");
    await remaining("OPTIONS");
    expect(await remaining("OPTIONS")).toBe(before);
    expect(await remaining("GET")).toBe(before - 1);
  });

  test("on an unknown path is a 404", async () => {
    const res = await server.json("/api/v1/nowhere", { method: "OPTIONS" });
    expect([res.status, res.body.code]).toEqual([404, "ROUTE_NOT_FOUND"]);
  });
});

describe("a method the route does not serve", () => {
  test("is a 405 with the route's Allow, before the key is checked (with a key, a wrong key, or none)", async () => {
    for (const { path, allow } of routes()) {
      for (const method of METHODS.filter((m) => !allow.split(", ").includes(m))) {
        for (const key of [owner.key, "fsk_wrong", undefined]) {
          const res = await server.json(path, { method, key });
          expect([method, path, res.status, res.headers.get("allow"), res.body.code]).toEqual([
            method,
            path,
            405,
            allow,
            "METHOD_NOT_ALLOWED",
          ]);
          expect(res.headers.get("x-ratelimit-remaining")).not.toBeNull();
        }
      }
    }
  });

  test("never reads /forms/submit as a form id, whatever the method, now that forms can be changed and deleted", async () => {
    for (const method of ["GET", "HEAD", "PUT", "PATCH", "DELETE"]) {
      const res = await server.request("/api/v1/forms/submit", { method, key: owner.key });
      expect([method, res.status, res.headers.get("allow")]).toEqual([method, 405, "POST"]);
    }
    // Nor /forms/list, nor `export` as a submission id.
    for (const method of ["PATCH", "DELETE"])
      expect((await server.request("/api/v1/forms/list", { method, key: owner.key })).headers.get("allow")).toBe("GET");
    expect(
      (await server.request(`/api/v1/forms/${owner.formId}/submissions/export`, { method: "DELETE", key: owner.key }))
        .status,
    ).toBe(405);
    // The form itself is untouched.
    expect((await server.json(`/api/v1/forms/${owner.formId}`, { key: owner.key })).status).toBe(200);
  });
});

describe("with an empty bucket", () => {
  test("a wrong method is still a 429 first", async () => {
    const tight = await startTestServer({ config: { rateLimit: 1 } });
    try {
      expect((await tight.request("/api/v1/forms/list", { method: "DELETE" })).status).toBe(405);
      const res = await tight.json("/api/v1/forms/list", { method: "DELETE" });
      expect([res.status, res.body.code]).toEqual([429, "RATE_LIMITED"]);
    } finally {
      await tight.close();
    }
  });
});
