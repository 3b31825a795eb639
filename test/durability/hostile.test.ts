import { describe, expect, test } from "bun:test";
import { useServer } from "../helpers/fixture";

const server = useServer({ config: { rateLimit: 100_000 } });
const owner = server.seed();

const count = async () => (await server.query<{ c: number }>("SELECT count(*) AS c FROM submissions"))[0]!.c;

/** Sends a request and insists on a 4xx JSON error with an `error` string. */
async function expectClientError(label: string, path: string, init: RequestInit & { key?: string }) {
  const res = await server.request(path, { key: owner.key, redirect: "manual", ...init });
  const text = await res.text();
  expect([label, res.status >= 400 && res.status < 500]).toEqual([label, true]);
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(`${label}: not JSON: ${text.slice(0, 100)}`);
  }
  expect(typeof body.error).toBe("string");
  expect(text).not.toContain("at ");
}

describe("hostile input", () => {
  test("only ever gets 4xx JSON errors, stores nothing, and leaves the server answering", async () => {
    const before = await count();
    const json = { "content-type": "application/json" };
    const nestedArrays = `{"formId":"${owner.formId}","data":{"x":${"[".repeat(10_000)}${"]".repeat(10_000)}}}`;
    let nestedObjects = "1";
    for (let i = 0; i < 40; i++) nestedObjects = `{"a":${nestedObjects}}`;
    const bodies: [string, BodyInit, Record<string, string>][] = [
      ["malformed JSON", '{"formId": ', json],
      ["trailing garbage", `{"formId":"${owner.formId}","data":{}} trailing`, json],
      ["wrong types", JSON.stringify({ formId: { $ne: null }, data: 1 }), json],
      ["huge string", JSON.stringify({ formId: owner.formId, data: { x: "a".repeat(200_000) } }), json],
      ["10,000 nested arrays", nestedArrays, json],
      ["40 nested objects", `{"formId":"${owner.formId}","data":${nestedObjects}}`, json],
      ["NUL in formId", JSON.stringify({ formId: `${owner.formId}\u0000`, data: {} }), json],
      ["SQL in formId", JSON.stringify({ formId: "x' OR '1'='1", data: {} }), json],
      ["invalid UTF-8", new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]), json],
      ["empty body", "", json],
      ["odd content type", "formId=x", { "content-type": "application/x-www-form-urlencoded; charset=evil" }],
      ["text/html", "<h1>hi</h1>", { "content-type": "text/html" }],
      ["no content type", JSON.stringify({ formId: owner.formId, data: {} }), {}],
      [
        "broken multipart",
        "--x\r\nContent-Disposition: form-data\r\n\r\n",
        { "content-type": "multipart/form-data; boundary=x" },
      ],
      [
        "file upload",
        (() => {
          const f = new FormData();
          f.set("formId", owner.formId);
          f.set("cv", new File(["x"], "cv.txt"));
          return f;
        })(),
        {},
      ],
    ];
    for (const [label, body, headers] of bodies)
      await expectClientError(label, "/api/v1/forms/submit", { method: "POST", body, headers });

    for (const [label, path] of [
      ["SQL in path", "/api/v1/forms/x'%20OR%201=1--/submissions"],
      ["SQL in cursor", `/api/v1/forms/${owner.formId}/submissions?cursor=x'%20OR%201=1--`],
      ["JSON in cursor", `/api/v1/forms/${owner.formId}/submissions?cursor=${encodeURIComponent('{"a":1}')}`],
      ["NUL in path", "/api/v1/forms/%00/submissions"],
      ["repeated limit", "/api/v1/forms/list?limit=5&limit=500"],
      ["bad percent encoding", "/api/v1/forms/%E0%A4%A/submissions"],
    ] as const) {
      await expectClientError(label, path, {});
    }
    await expectClientError("bad Idempotency-Key", "/api/v1/forms/submit", {
      method: "POST",
      body: JSON.stringify({ formId: owner.formId, data: {} }),
      headers: { ...json, "idempotency-key": "\u00ff".repeat(3) },
    });

    expect(await count()).toBe(before);
    expect((await server.request("/healthz")).status).toBe(200);
    expect((await server.request(`/api/v1/forms/${owner.formId}`, { key: owner.key })).status).toBe(200);
  });
});
