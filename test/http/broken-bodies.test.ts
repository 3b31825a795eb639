import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connect } from "node:net";
import { createLogger } from "../../src/lib/log";
import { seedOwner, startTestServer, type TestServer } from "../helpers/harness";

// Bodies that end before they should or cannot be read at all: found by fuzzing, where an empty
// multipart body was never answered, and a broken one was logged as an unhandled error (a 500).

const lines: string[] = [];
let server: TestServer;
let owner: Awaited<ReturnType<typeof seedOwner>>;

beforeAll(async () => {
  server = await startTestServer({ log: createLogger("info", (line) => lines.push(line)) });
  owner = await seedOwner(server, "owner@example.com");
});
afterAll(() => server.close());

/** Writes `text` as it is, then closes the writing side after `closeAfterMs` (or leaves it open); the status line of the answer, or "no answer" after 5 s. */
function raw(text: string, closeAfterMs: number | null = null): Promise<number | "no answer"> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname, () => {
      socket.write(text);
      if (closeAfterMs !== null) setTimeout(() => socket.end(), closeAfterMs);
    });
    let answer = "";
    const timer = setTimeout(() => (socket.destroy(), resolve("no answer")), 5000);
    socket.on("data", (data) => {
      answer += data;
      const status = /^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1];
      if (status) (clearTimeout(timer), socket.destroy(), resolve(Number(status)));
    });
    socket.on(
      "close",
      () => (clearTimeout(timer), resolve(answer ? Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1]) : "no answer")),
    );
    socket.on("error", () => {});
  });
}

const head = (path: string, headers: Record<string, string | undefined>) =>
  [
    `POST ${path} HTTP/1.1`,
    `Host: 127.0.0.1`,
    ...Object.entries(headers).flatMap(([k, v]) => (v === undefined ? [] : [`${k}: ${v}`])),
    "",
    "",
  ].join("\r\n");

/** The log lines written since `from`, once its request's line is there: the request lines' statuses, and whether any is an error. */
async function loggedSince(from: number) {
  const parsed = () => lines.slice(from).map((l) => JSON.parse(l) as { level: string; msg: string; status?: number });
  // The server may close the connection before the request is done with (and logged).
  for (let waited = 0; waited < 5000 && !parsed().some((l) => l.msg === "request"); waited += 20) await Bun.sleep(20);
  const since = parsed();
  return {
    errors: since.filter((l) => l.level === "error").map((l) => l.msg),
    statuses: since.filter((l) => l.msg === "request").map((l) => l.status),
  };
}

describe("an empty multipart body", () => {
  test("is answered with a 400 at once, on both submit paths, with a length of 0 or none", async () => {
    const paths = [
      { path: "/api/v1/forms/submit", key: { "X-API-Key": owner.key } },
      { path: `/f/${owner.formId}`, key: {} },
    ];
    for (const { path, key } of paths) {
      const type = { "Content-Type": "multipart/form-data; boundary=x", Accept: "application/json", ...key };
      expect([path, await raw(head(path, { ...type, "Content-Length": "0" }))]).toEqual([path, 400]);
      // No length and no framing: the body ends with the writing side.
      expect([path, await raw(head(path, type), 50)]).toEqual([path, 400]);
    }
    expect(await server.query("SELECT count(*) AS n FROM submissions")).toEqual([{ n: 0 }]);
  });
});

describe("a body that cannot be read to its end", () => {
  const cases = () => [
    { path: "/api/v1/forms/submit", headers: { "X-API-Key": owner.key, "Content-Type": "application/json" } },
    { path: `/f/${owner.formId}`, headers: { "Content-Type": "application/json", Accept: "application/json" } },
    {
      path: "/api/v1/forms/submit",
      headers: { "X-API-Key": owner.key, "Content-Type": "multipart/form-data; boundary=x" },
    },
    { path: "/api/v1/forms", headers: { "X-API-Key": owner.key, "Content-Type": "application/json" } },
  ];

  test("broken chunked framing is the request's fault: logged as a 400, never as an unhandled error", async () => {
    for (const { path, headers } of cases()) {
      const from = lines.length;
      await raw(`${head(path, { ...headers, "Transfer-Encoding": "chunked" })}zz\r\n{}\r\n0\r\n\r\n`);
      expect([path, await loggedSince(from)]).toEqual([path, { errors: [], statuses: [400] }]);
    }
  });

  test("a body cut short by the client closing is logged as a 400, never as an unhandled error", async () => {
    for (const { path, headers } of cases()) {
      const from = lines.length;
      await raw(`${head(path, { ...headers, "Content-Length": "1000" })}{"formId":`, 50);
      expect([path, await loggedSince(from)]).toEqual([path, { errors: [], statuses: [400] }]);
    }
    expect(await server.query("SELECT count(*) AS n FROM submissions")).toEqual([{ n: 0 }]);
  });
});
