import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connect } from "node:net";
import { login, withPassword } from "../helpers/accounts";
import { seedOwner, startTestServer, type TestServer } from "../helpers/harness";

// A Host header no URL can carry: Bun then hands the app the path alone ("a b", an empty one) or a
// URL that does not parse ("[::1", a port past 65535). Each was a 500 where the front or a check
// parsed the request's URL.
const BAD_HOSTS = ["a b", "[::1", "h:99999", ""];

let server: TestServer;
let owner: Awaited<ReturnType<typeof seedOwner>>;

beforeAll(async () => {
  server = await startTestServer();
  owner = await seedOwner(server, "owner@example.com");
  await withPassword(server, "owner@example.com");
});
afterAll(() => server.close());

/** Sends one request as written, with `host` as its Host header; the status and the JSON body of the answer. */
function raw(
  head: string,
  host: string,
  headers: Record<string, string> = {},
  body = "",
): Promise<{ status: number; body: Record<string, unknown> }> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      const lines = [
        head,
        `Host: ${host}`,
        "Connection: close",
        `Content-Length: ${Buffer.byteLength(body)}`,
        ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
      ];
      socket.write(`${lines.join("\r\n")}\r\n\r\n${body}`);
    });
    let answer = "";
    socket.on("data", (data) => (answer += data));
    socket.on("error", reject);
    socket.on("close", () => {
      const [top = "", rest = ""] = answer.split("\r\n\r\n");
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(top)?.[1]);
      // A chunked answer: the JSON is the first chunk's data.
      const text = /transfer-encoding: chunked/i.test(top) ? rest.split("\r\n")[1]! : rest;
      resolve({ status, body: JSON.parse(text) as Record<string, unknown> });
    });
  });
}

describe.each(BAD_HOSTS)("with Host %p", (host) => {
  test("the health check answers", async () => {
    const res = await raw("GET /healthz HTTP/1.1", host);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe("ok");
  });

  test("an unknown path is the usual 404", async () => {
    const res = await raw("GET /no-such-path HTTP/1.1", host);
    expect(res.status).toBe(404);
    expect(res.body.error).toEqual(expect.any(String));
  });

  test("a key in the query is read", async () => {
    const res = await raw(`GET /api/v1/forms/${owner.formId}?apiKey=${owner.key} HTTP/1.1`, host);
    // Bun routes by the path it could make of the URL; whatever it matched, the key was read (no 401).
    expect(res.status).not.toBe(401);
    expect(res.status).toBeLessThan(500);
  });

  test("a login and a password reset, which must come from the server's own origin, are refused with 403 CSRF", async () => {
    const headers = { origin: server.url, "content-type": "application/json" };
    const login = JSON.stringify({ email: "owner@example.com", password: "not the password" });
    const reset = JSON.stringify({ email: "nobody@example.com" });
    for (const [path, body] of [
      ["/api/v1/auth/login", login],
      ["/api/v1/auth/reset", reset],
    ] as const) {
      const res = await raw(`POST ${path} HTTP/1.1`, host, headers, body);
      expect(res.status).toBe(403);
      expect(res.body.code).toBe("CSRF");
    }
  });

  test("a session's change, which must come from the server's own origin, is refused with 403 CSRF", async () => {
    const { cookie } = await login(server, "owner@example.com");
    const res = await raw(
      "POST /api/v1/forms HTTP/1.1",
      host,
      { cookie: cookie!, origin: server.url, "content-type": "application/json" },
      JSON.stringify({ name: "From a bad host" }),
    );
    expect(res.status).toBe(403);
    expect(res.body.code).toBe("CSRF");
  });
});
