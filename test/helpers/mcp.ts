import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { TestServer } from "./harness";

/**
 * The MCP SDK's own client on the server's /mcp over real HTTP, with a key as Authorization: Bearer.
 * Its requests go through the server's checked fetch: an error answer off the API's shape fails the test.
 */
export async function mcpClient(server: TestServer, key: string) {
  const client = new Client({ name: "formsvc-tests", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
      fetch: (url, init) => server.fetch(String(url), init),
    }),
  );
  return {
    client,
    /** tools/call, its answer's text parsed (JSON for a result, `CODE: sentence` for a tool error). */
    async call(name: string, args: Record<string, unknown> = {}) {
      const res = (await client.callTool({ name, arguments: args })) as CallToolResult;
      const text = (res.content[0] as { text: string }).text;
      return {
        isError: res.isError === true,
        text,
        body: res.isError ? (res.structuredContent as { code: string; error: string }) : JSON.parse(text),
        bytes: Buffer.byteLength(text),
      };
    },
    close: () => client.close(),
  };
}

/** A JSON-RPC initialize request as a client's first POST /mcp, for tests of what is refused before MCP. */
export const initializeBody = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
});

export const MCP_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };
