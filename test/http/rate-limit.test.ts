import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { seedOwner, startTestServer, type TestServer } from "../helpers/harness";

let server: TestServer;
let a: ReturnType<typeof seedOwner>;
let b: ReturnType<typeof seedOwner>;

beforeAll(async () => {
  server = await startTestServer({ config: { rateLimit: 3, rateWindow: 2 } });
  a = seedOwner(server, "a@example.com");
  b = seedOwner(server, "b@example.com");
});
afterAll(() => server.close());

describe("rate limiting", () => {
  test("refuses with 429, Retry-After and the headers once the bucket is empty, and serves again at X-RateLimit-Reset", async () => {
    const remaining: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await server.request(`/api/v1/forms/${a.formId}`, { key: a.key });
      expect(res.status).toBe(200);
      expect(res.headers.get("x-ratelimit-limit")).toBe("3");
      remaining.push(res.headers.get("x-ratelimit-remaining")!);
      await res.text();
    }
    expect(remaining).toEqual(["2", "1", "0"]);
    const refused = await server.request(`/api/v1/forms/${a.formId}`, { key: a.key });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect((await refused.json()).code).toBe("RATE_LIMITED");
    const reset = Number(refused.headers.get("x-ratelimit-reset"));
    expect(reset).toBeGreaterThan(Date.now() / 1000 - 1);

    // Key b has its own bucket.
    expect((await server.request(`/api/v1/forms/${b.formId}`, { key: b.key })).status).toBe(200);

    await Bun.sleep(Math.max(0, reset * 1000 - Date.now()) + 50);
    const again = await server.request(`/api/v1/forms/${a.formId}`, { key: a.key });
    expect(again.status).toBe(200);
    expect(again.headers.get("x-ratelimit-remaining")).toBe("2");
  });

  test("buckets requests without a valid key by client IP, apart from the keys", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await server.request("/api/v1/forms/list", { key: "fsk_invalid" })).status);
    expect(statuses).toEqual([401, 401, 401, 429]);
    expect((await server.request(`/api/v1/forms/${b.formId}`, { key: b.key })).status).toBe(200);
    // The health probe from the same address still answers: it reads the bucket without taking from it.
    const health = await server.request("/healthz");
    expect([health.status, health.headers.get("x-ratelimit-remaining")]).toEqual([200, "0"]);
    expect((await server.request("/api/v1/forms/list", { key: "fsk_invalid" })).status).toBe(429);
  });
});
