import { beforeAll, describe, expect, test } from "bun:test";
import { useServer } from "../helpers/fixture";
import { ResponseChecker } from "../helpers/openapi-check";

// The harness checks every answer the suite receives; these show that a wrong one fails.
const server = useServer();
let checker: ResponseChecker;

beforeAll(async () => {
  checker = new ResponseChecker(
    await (await server.app.handle(new Request("http://localhost/api/v1/openapi.json"))).json(),
  );
});

const rateHeaders = {
  "x-ratelimit-limit": "120",
  "x-ratelimit-remaining": "119",
  "x-ratelimit-reset": "1800000000",
  "x-request-id": "req_x",
};
const answer = (status: number, body: unknown, headers: Record<string, string> = rateHeaders) =>
  new Response(typeof body === "string" ? body : JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
const check = (method: string, path: string, res: Response) => checker.check(method, `http://127.0.0.1${path}`, res);
const formList = {
  forms: [
    {
      id: "frm_1",
      name: "n",
      description: "",
      submissionCount: 0,
      unread: 0,
      createdAt: "2026-01-01T00:00:00.000Z",
      updatedAt: "2026-01-01T00:00:00.000Z",
    },
  ],
  nextCursor: null,
};

describe("the response check of the test harness", () => {
  test("passes a documented answer, and one on a trailing slash", async () => {
    await check("GET", "/api/v1/forms/list", answer(200, formList));
    await check("GET", "/api/v1/forms/list/", answer(200, formList));
    await check(
      "POST",
      "/api/v1/forms/submit",
      answer(
        303,
        { success: true, submissionId: "sub_1", redirect: "https://example.com" },
        { ...rateHeaders, location: "https://example.com/" },
      ),
    );
  });

  test("fails a body that breaks the schema, naming method, path, status and the schema error", async () => {
    const bad = { ...formList, forms: [{ ...formList.forms[0], submissionCount: -1 }] };
    await expect(check("GET", "/api/v1/forms/list", answer(200, bad))).rejects.toThrow(
      "GET /api/v1/forms/list → 200: body/forms/0/submissionCount must be >= 0",
    );
    await expect(check("GET", "/api/v1/forms/list", answer(200, "not json"))).rejects.toThrow("body is not JSON");
  });

  test("fails a status the operation does not document", async () => {
    await expect(check("GET", "/api/v1/forms/list", answer(404, { error: "x" }))).rejects.toThrow(
      "GET /api/v1/forms/list → 404: status 404 is not documented",
    );
    await expect(check("GET", "/api/v1/forms/frm_1/users-joined", answer(415, { error: "x" }))).rejects.toThrow(
      "status 415 is not documented",
    );
  });

  test("fails a missing or malformed documented header", async () => {
    const { "x-ratelimit-reset": _, ...withoutReset } = rateHeaders;
    await expect(check("GET", "/api/v1/forms/list", answer(200, formList, withoutReset))).rejects.toThrow(
      "header X-RateLimit-Reset is missing",
    );
    await expect(
      check("GET", "/api/v1/forms/list", answer(200, formList, { ...rateHeaders, "x-ratelimit-limit": "many" })),
    ).rejects.toThrow("header X-RateLimit-Limit");
    await expect(
      check("POST", "/api/v1/forms/submit", answer(303, { success: true, submissionId: "sub_1" })),
    ).rejects.toThrow("header Location is missing");
    await expect(check("GET", "/api/v1/forms/list", answer(429, { error: "slow down" }))).rejects.toThrow(
      "header Retry-After is missing",
    );
  });

  test("checks answers outside the document only when they are errors, against the error body", async () => {
    await check("GET", "/healthz", answer(200, { status: "ok" }, {}));
    await check("GET", "/metrics", new Response("formsvc_up 1\n", { headers: { "content-type": "text/plain" } }));
    await check("GET", "/no/such/route", answer(404, { error: "no such endpoint", code: "ROUTE_NOT_FOUND" }, {}));
    await check(
      "PUT",
      "/api/v1/forms/frm_1",
      answer(405, { error: "PUT is not allowed here; use GET, PATCH, DELETE" }, {}),
    );
    await expect(check("GET", "/no/such/route", answer(404, { message: "not found" }, {}))).rejects.toThrow(
      "GET /no/such/route → 404: body must have required property 'error'",
    );
    await expect(check("GET", "/docs", new Response("<h1>oops</h1>", { status: 500 }))).rejects.toThrow(
      "body is not JSON",
    );
  });
});
