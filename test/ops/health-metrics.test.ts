import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { seedOwner, startTestServer, type TestServer } from "../helpers/harness";

describe("GET /healthz", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  test("answers 200 without an API key while the database answers", async () => {
    const { status, body, headers } = await server.json("/healthz");
    expect(status).toBe(200);
    expect(body.status).toBe("ok");
    expect(body.database).toBe("ok");
    expect(headers.get("x-ratelimit-limit")).toBe("120");
  });
});

describe("GET /metrics", () => {
  let server: TestServer;
  let owner: Awaited<ReturnType<typeof seedOwner>>;
  beforeAll(async () => {
    server = await startTestServer({ config: { metricsToken: "s3cret-token", rateLimit: 5, rateWindow: 600 } });
    owner = await seedOwner(server);
  });
  afterAll(() => server.close());

  test("refuses a scrape without the metrics token", async () => {
    const res = await server.request("/metrics");
    expect(res.status).toBe(401);
    expect((await res.json()).error).toContain("FORMSVC_METRICS_TOKEN");
  });

  test("counts requests by route pattern and status, submissions stored and rate-limited requests", async () => {
    const submit = () =>
      server.request("/api/v1/forms/submit", {
        method: "POST",
        key: owner.key,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ formId: owner.formId, data: { message: "hi" } }),
      });
    for (let i = 0; i < 5; i++) expect((await submit()).status).toBe(200);
    expect((await submit()).status).toBe(429);

    const res = await server.request("/metrics", { headers: { authorization: "Bearer s3cret-token" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/plain");
    const text = await res.text();
    expect(text).toContain('formsvc_http_requests_total{method="POST",route="/api/v1/forms/submit",status="200"} 5');
    // A refusal happens before routing, so it is counted without a route.
    expect(text).toContain('formsvc_http_requests_total{method="POST",route="unmatched",status="429"} 1');
    expect(text).toMatch(
      /formsvc_http_request_duration_seconds_bucket\{method="POST",route="\/api\/v1\/forms\/submit",le="\+Inf"\} 5/,
    );
    // Buckets are cumulative: never decreasing, and the largest finite one holds all five (each took well under 2.5 s).
    const buckets = [
      ...text.matchAll(
        /formsvc_http_request_duration_seconds_bucket\{method="POST",route="\/api\/v1\/forms\/submit",le="[\d.]+"\} (\d+)/g,
      ),
    ].map((m) => Number(m[1]));
    expect(buckets).toHaveLength(12);
    expect(buckets).toEqual([...buckets].sort((a, b) => a - b));
    expect(buckets.at(-1)).toBe(5);
    expect(text).toContain("formsvc_submissions_stored_total 5");
    expect(text).toContain("formsvc_rate_limited_total 1");
  });

  test("labels unknown paths as one route, so what callers type cannot grow the label set", async () => {
    await server.request("/no/such/path/abc123");
    const text = await (await server.request("/metrics", { headers: { authorization: "Bearer s3cret-token" } })).text();
    expect(text).not.toContain("abc123");
    expect(text).toContain('route="unmatched"');
  });
});
