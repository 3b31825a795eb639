import { describe, expect, test } from "bun:test";
import { login, withPassword } from "../helpers/accounts";
import { useServer } from "../helpers/fixture";
import { seedKey } from "../helpers/harness";
import { initializeBody, MCP_HEADERS, mcpClient } from "../helpers/mcp";

const server = useServer({ config: { rateLimit: 1_000_000 } });
const owner = server.seed("owner@example.com");

/** A raw POST /mcp of an initialize request with these headers, through the checked fetch. */
const post = (headers: Record<string, string>, body = initializeBody) =>
  server.json("/mcp", { method: "POST", headers: { ...MCP_HEADERS, ...headers }, body });

describe("who may call POST /mcp", () => {
  test("no key is a 401 with a sentence that says what to send", async () => {
    const res = await post({});
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ code: "UNAUTHORIZED", error: expect.stringContaining("Authorization: Bearer") });
    expect(res.headers.get("www-authenticate")).toContain("Bearer");
  });

  test("an unknown key is a 401", async () => {
    const res = await post({ authorization: "Bearer fsk_not_a_key" });
    expect(res).toMatchObject({
      status: 401,
      body: { code: "UNAUTHORIZED", error: expect.stringContaining("invalid") },
    });
  });

  test("a publishable key is a 401: it sits in web pages", async () => {
    const publishable = await seedKey(server, owner.ownerEmail, { publishable: true });
    const res = await post({ authorization: `Bearer ${publishable.key}` });
    expect(res).toMatchObject({
      status: 401,
      body: { code: "UNAUTHORIZED", error: expect.stringContaining("publishable") },
    });
  });

  test("a login session is a 401, even from the server's own page", async () => {
    await withPassword(server, owner.ownerEmail);
    const { cookie } = await login(server, owner.ownerEmail);
    expect(cookie).not.toBeNull();
    const res = await post({ cookie: cookie!, origin: server.url });
    expect(res).toMatchObject({
      status: 401,
      body: { code: "UNAUTHORIZED", error: expect.stringContaining("session") },
    });
  });

  test("a secret key anywhere but Authorization: Bearer is a 401", async () => {
    const inHeader = await post({ "x-api-key": owner.key });
    expect(inHeader).toMatchObject({ status: 401, body: { error: expect.stringContaining("Bearer") } });
    const inQuery = await server.json(`/mcp?apiKey=${owner.key}`, {
      method: "POST",
      headers: MCP_HEADERS,
      body: initializeBody,
    });
    expect(inQuery.status).toBe(401);
  });

  test("a secret key as Authorization: Bearer is answered by the transport, JSON", async () => {
    const res = await post({ authorization: `Bearer ${owner.key}` });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("application/json");
    expect(res.body).toMatchObject({ jsonrpc: "2.0", id: 1, result: { serverInfo: { name: "formsvc" } } });
    // The front's headers, as on every answer.
    expect(res.headers.get("x-request-id")).toMatch(/^req_/);
    expect(res.headers.get("cache-control")).toBe("no-store");
    // Stateless: no session to keep.
    expect(res.headers.get("mcp-session-id")).toBeNull();
  });

  test("a tools/call without initialize is answered, as the guide's curl sends it: each request stands alone", async () => {
    const res = await post(
      { authorization: `Bearer ${owner.key}` },
      JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "list_forms", arguments: {} } }),
    );
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body.result.content[0].text).forms[0].id).toBe(owner.formId);
  });

  test("a key revoked between two calls is refused at the second", async () => {
    const key = await seedKey(server, owner.ownerEmail, { role: "viewer", name: "assistant" });
    const mcp = await mcpClient(server, key.key);
    expect((await mcp.call("list_forms")).isError).toBe(false);
    const revoked = await server.send("DELETE", `/keys/${key.id}`, owner.key);
    expect(revoked.status).toBe(200);
    const refused = await mcp.client.callTool({ name: "list_forms", arguments: {} }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 401, message: expect.stringContaining("has been revoked") });
    await mcp.close();
  });
});

describe("what POST /mcp is sent", () => {
  test("GET and DELETE /mcp are 405 (a stateless server streams nothing and keeps no session), naming POST", async () => {
    for (const method of ["GET", "DELETE"]) {
      const res = await server.json("/mcp", {
        method,
        headers: { authorization: `Bearer ${owner.key}`, accept: "text/event-stream" },
      });
      expect(res.status, method).toBe(405);
      expect(res.headers.get("allow")).toBe("POST");
      expect(res.body.code).toBe("METHOD_NOT_ALLOWED");
    }
  });

  test("a body that is not JSON is the transport's parse error, never a 500", async () => {
    const res = await fetch(`${server.url}/mcp`, {
      method: "POST",
      headers: { ...MCP_HEADERS, authorization: `Bearer ${owner.key}` },
      body: "{not json",
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ jsonrpc: "2.0", error: { code: -32700 } });
  });

  test("a body over FORMSVC_MAX_BODY_BYTES is a 413, as on every route", async () => {
    const res = await post({ authorization: `Bearer ${owner.key}` }, " ".repeat(200 * 1024));
    expect(res).toMatchObject({ status: 413, body: { code: "PAYLOAD_TOO_LARGE" } });
  });
});
