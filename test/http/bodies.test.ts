import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connect } from "node:net";
import { login, PASSWORD, session, withPassword } from "../helpers/accounts";
import { seedOwner, startTestServer, type TestServer } from "../helpers/harness";

const MAX_BODY_BYTES = 4096;
const HUGE = 32 * 1024 * 1024;

let server: TestServer;
let owner: Awaited<ReturnType<typeof seedOwner>>;

beforeAll(async () => {
  server = await startTestServer({
    config: { maxBodyBytes: MAX_BODY_BYTES, rateLimit: 1_000_000, webhookAllowPrivate: true },
  });
  owner = await seedOwner(server, "owner@example.com");
  await withPassword(server, "owner@example.com");
});
afterAll(() => server.close());

/** The management operations that take a JSON body, each with a body it accepts. */
const jsonOperations = () => [
  { method: "POST", path: "/api/v1/forms", valid: { name: "New" } },
  { method: "PATCH", path: `/api/v1/forms/${owner.formId}`, valid: {} },
  { method: "POST", path: "/api/v1/keys", valid: {} },
  { method: "POST", path: `/api/v1/forms/${owner.formId}/webhooks`, valid: { url: "http://127.0.0.1:9/hook" } },
];

/** A chunked body of `total` bytes, pulled only as the server reads it. */
function chunkedBody(total: number) {
  const chunk = new Uint8Array(64 * 1024).fill(0x20);
  let pulled = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled >= total) return controller.close();
      pulled += chunk.byteLength;
      controller.enqueue(chunk);
    },
  });
  return { stream, pulled: () => pulled };
}

/** Sends only a request's head, announcing `length` bytes of body that never come, and resolves with the status of the answer (or "no answer" after 3 s). */
function headOnly(
  method: string,
  path: string,
  headers: Record<string, string>,
  length: number,
): Promise<number | "no answer"> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname, () => {
      const lines = [
        `${method} ${path} HTTP/1.1`,
        `Host: ${hostname}:${port}`,
        `Content-Length: ${length}`,
        ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
      ];
      socket.write(`${lines.join("\r\n")}\r\n\r\n`);
    });
    const timer = setTimeout(() => (socket.destroy(), resolve("no answer")), 3000);
    socket.once("data", (data) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(String(data))?.[1]));
    });
  });
}

const send = (
  op: { method: string; path: string },
  init: { key?: string; type?: string | null; body?: BodyInit; headers?: Record<string, string> },
) =>
  server.json(op.path, {
    method: op.method,
    key: init.key,
    headers: { ...(init.type === null ? {} : { "content-type": init.type ?? "application/json" }), ...init.headers },
    body: init.body,
    duplex: "half",
  } as RequestInit & { key?: string });

describe("a body is read only once its caller is known", () => {
  test("a huge chunked body without a key is answered 401 at once, read no further than socket buffers hold; with a key, 413 at the limit", async () => {
    for (const op of jsonOperations()) {
      for (const [key, status] of [
        [undefined, 401],
        [owner.key, 413],
      ] as const) {
        const body = chunkedBody(HUGE);
        const res = await send(op, { key, body: body.stream });
        expect({ op: `${op.method} ${op.path}`, status: res.status, readAll: body.pulled() >= HUGE }).toEqual({
          op: `${op.method} ${op.path}`,
          status,
          readAll: false,
        });
      }
    }
  });

  test("a declared Content-Length over the limit is refused without waiting for the body: 401 without a key, 413 with one", async () => {
    for (const op of jsonOperations()) {
      const headers = { "content-type": "application/json" };
      expect(await headOnly(op.method, op.path, headers, 100 * 1024 * 1024)).toBe(401);
      expect(await headOnly(op.method, op.path, { ...headers, "x-api-key": owner.key }, 100 * 1024 * 1024)).toBe(413);
    }
  });

  test("a malformed body is a 401 without a key, a 400 with one", async () => {
    for (const op of jsonOperations()) {
      expect((await send(op, { body: "{not json" })).status).toBe(401);
      const { status, body } = await send(op, { key: owner.key, body: "{not json" });
      expect({ status, error: body.error }).toEqual({ status: 400, error: "request body is not valid JSON" });
    }
  });

  test("login checks the Origin before it reads the body, and caps the body it reads", async () => {
    const op = { method: "POST", path: "/api/v1/auth/login" };
    const foreign = chunkedBody(HUGE);
    const refused = await send(op, { body: foreign.stream, headers: { origin: "https://evil.example" } });
    expect({ status: refused.status, code: refused.body.code, readAll: foreign.pulled() >= HUGE }).toEqual({
      status: 403,
      code: "CSRF",
      readAll: false,
    });
    const own = chunkedBody(HUGE);
    const tooLarge = await send(op, { body: own.stream, headers: { origin: server.url } });
    expect({ status: tooLarge.status, readAll: own.pulled() >= HUGE }).toEqual({ status: 413, readAll: false });
    expect(
      await headOnly("POST", op.path, { "content-type": "application/json", origin: server.url }, 100 * 1024 * 1024),
    ).toBe(413);
    expect((await login(server, "owner@example.com", PASSWORD)).status).toBe(200);
  });

  test("a session's request without a body (logout) refuses one over the limit with 413, and ends nothing", async () => {
    const { cookie } = await login(server, "owner@example.com");
    const res = await server.json("/api/v1/auth/logout", {
      method: "POST",
      headers: { ...session(server, cookie!), "content-type": "text/plain" },
      body: "x".repeat(MAX_BODY_BYTES + 1),
    });
    expect(res.status).toBe(413);
    expect((await server.json("/api/v1/auth/me", { headers: session(server, cookie!) })).status).toBe(200);
  });
});

describe("a JSON body must be the object the operation documents", () => {
  const notObjects = [
    { body: "false", says: "not a boolean" },
    { body: "0", says: "not a number" },
    { body: '""', says: "not a string" },
    { body: "[]", says: "not an array" },
    { body: "null", says: "not null" },
  ];

  test('false, 0, "", [] and null are a 400 that says so, and change nothing', async () => {
    const keysBefore = await server.query("SELECT count(*) AS n FROM api_keys");
    const formBefore = (await server.json(`/api/v1/forms/${owner.formId}`, { key: owner.key })).body;
    for (const op of jsonOperations()) {
      for (const { body, says } of notObjects) {
        const res = await send(op, { key: owner.key, body });
        expect({ op: `${op.method} ${op.path}`, body, status: res.status, error: res.body.error }).toEqual({
          op: `${op.method} ${op.path}`,
          body,
          status: 400,
          error: `request body must be a JSON object, ${says}`,
        });
      }
    }
    expect(await server.query("SELECT count(*) AS n FROM api_keys")).toEqual(keysBefore);
    expect((await server.json(`/api/v1/forms/${owner.formId}`, { key: owner.key })).body).toEqual(formBefore);
  });

  test("a value the schema check could not describe (nested past 32 levels, or an object with its own toString) is a 400 that says so, and changes nothing", async () => {
    const formBefore = (await server.json(`/api/v1/forms/${owner.formId}`, { key: owner.key })).body;
    const keysBefore = await server.query("SELECT count(*) AS n FROM api_keys");
    const deep = "[".repeat(40) + "]".repeat(40);
    for (const op of jsonOperations()) {
      // Each beside a body the operation takes; both the array and the object are where a string is documented.
      const valid = JSON.stringify(op.valid).slice(1, -1);
      const hostile = [
        {
          body: `{${valid}${valid ? "," : ""}"name":${deep}}`,
          error: "request body is nested more than 32 levels deep",
        },
        {
          body: `{${valid}${valid ? "," : ""}"name":[{"toString":1}]}`,
          error: "name[0].toString: this endpoint takes no field named toString",
        },
        { body: `{"toString":"x"}`, error: "toString: this endpoint takes no field named toString" },
      ];
      for (const { body, error } of hostile) {
        const res = await send(op, { key: owner.key, body });
        expect({ op: `${op.method} ${op.path}`, status: res.status, error: res.body.error }).toEqual({
          op: `${op.method} ${op.path}`,
          status: 400,
          error,
        });
      }
    }
    expect(await server.query("SELECT count(*) AS n FROM api_keys")).toEqual(keysBefore);
    expect((await server.json(`/api/v1/forms/${owner.formId}`, { key: owner.key })).body).toEqual(formBefore);
  });

  test("is checked as it was sent: a setting of the wrong type (which Elysia's normalizing made {}) or a field the operation does not know is a 400, and changes nothing", async () => {
    const count = async () => ({
      forms: await server.query("SELECT count(*) AS n FROM forms"),
      webhooks: await server.query("SELECT count(*) AS n FROM webhooks"),
    });
    const before = await count();
    const formBefore = (await server.json(`/api/v1/forms/${owner.formId}`, { key: owner.key })).body;
    const filesError =
      "files must be null or {maxFileBytes?, maxFiles? (1 to 100), maxTotalBytes?, types? (MIME types such as application/pdf or image/*)}";
    const cases = [
      ...[123, 0, true, [], "on"].map((files) => ({
        op: { method: "PATCH", path: `/api/v1/forms/${owner.formId}` },
        body: { files },
        error: filesError,
      })),
      { op: { method: "POST", path: "/api/v1/forms" }, body: { name: "New", files: 1 }, error: filesError },
      {
        op: { method: "POST", path: `/api/v1/forms/${owner.formId}/webhooks` },
        body: { url: "http://127.0.0.1:9/hook", extra: 1 },
        error: "unknown field extra",
      },
    ];
    for (const { op, body, error } of cases) {
      const res = await send(op, { key: owner.key, body: JSON.stringify(body) });
      expect({ body, status: res.status, error: res.body.error }).toEqual({ body, status: 400, error });
    }
    expect(await count()).toEqual(before);
    expect((await server.json(`/api/v1/forms/${owner.formId}`, { key: owner.key })).body).toEqual(formBefore);
  });

  test("an empty body is a 400, not read as {}", async () => {
    for (const op of jsonOperations()) {
      const res = await send(op, { key: owner.key, body: "" });
      expect({ op: op.path, status: res.status, code: res.body.code }).toEqual({
        op: op.path,
        status: 400,
        code: "INVALID_BODY",
      });
    }
  });

  test("another Content-Type is a 415 that names application/json, after the 401", async () => {
    const others = [
      { type: "application/x-www-form-urlencoded", body: "name=New" },
      {
        type: "multipart/form-data; boundary=x",
        body: '--x\r\nContent-Disposition: form-data; name="name"\r\n\r\nNew\r\n--x--\r\n',
      },
      { type: "text/plain", body: '{"name":"New"}' },
      { type: null, body: '{"name":"New"}' },
    ];
    for (const op of jsonOperations()) {
      for (const { type, body } of others) {
        expect((await send(op, { type, body })).status).toBe(401);
        const res = await send(op, { key: owner.key, type, body });
        expect({ op: op.path, type, status: res.status, error: res.body.error }).toEqual({
          op: op.path,
          type,
          status: 415,
          error: "Content-Type must be application/json: this endpoint takes a JSON object",
        });
      }
    }
  });

  test("a JSON object is taken with any charset parameter, as before", async () => {
    for (const op of jsonOperations()) {
      const res = await send(op, {
        key: owner.key,
        type: "application/json; charset=utf-8",
        body: JSON.stringify(op.valid),
      });
      expect({ op: op.path, status: res.status }).toEqual({ op: op.path, status: 200 });
    }
  });
});
