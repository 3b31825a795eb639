import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { Elysia } from "elysia";
import { bearerToken, readApiKey } from "../../http/api-key";
import { readCapped } from "../../http/body";
import { requestContext } from "../../http/context";
import { publishedSchema } from "../../http/docs";
import { toErrorResponse } from "../../http/errors";
import { AppError } from "../../lib/errors";
import type { Logger } from "../../lib/log";
import type { Principal } from "../../lib/principal";
import { teamsWith } from "../../lib/rights";
import { VERSION } from "../../version";
import type { AuditService } from "../audit/service";
import { fitted, MAX_ANSWER_BYTES } from "./bounds";
import { TOOLS, type Tool, type ToolServices } from "./tools";

export interface McpDeps extends ToolServices {
  audit: Pick<AuditService, "record">;
  log: Logger;
}

const checks = new Map(TOOLS.map((tool) => [tool.name, TypeCompiler.Compile(tool.input)]));
const byName = new Map(TOOLS.map((tool) => [tool.name as string, tool]));

/** The arguments as the tool's schema takes them, else INVALID_PARAMETER with the schema's own sentence. */
function checkedArgs(tool: Tool, given: Record<string, unknown>): Record<string, unknown> {
  const check = checks.get(tool.name)!;
  if (check.Check(given)) return given;
  const first = check.Errors(given).First()!;
  const name = first.path.replace(/^\//, "").replaceAll("/", ".");
  const own = (first.schema as { error?: unknown }).error;
  throw new AppError(
    "INVALID_PARAMETER",
    typeof own === "string"
      ? own
      : name && !(name in (tool.input.properties as object))
        ? `unknown argument ${name}: ${tool.name} takes ${Object.keys(tool.input.properties).join(", ")}`
        : `${name || "arguments"}: ${first.message}`,
  );
}

/**
 * The caller of an MCP request: a secret key sent as `Authorization: Bearer`, and nothing else. A
 * login session is refused (a browser must not be made to act for an assistant, nor a stolen cookie
 * be used as a key), and so is a publishable key (it sits in web pages) and a key sent elsewhere
 * (the query string ends up in logs). All are 401: the answer an assistant's settings need fixing by.
 */
function keyCaller(request: Request, caller: Principal | null, sessionGiven: boolean): Principal {
  const refuse = (message: string) =>
    new AppError("UNAUTHORIZED", message, { "www-authenticate": 'Bearer realm="formsvc"' });
  const bearer = bearerToken(request.headers.get("authorization"));
  if (bearer === null)
    throw refuse(
      sessionGiven
        ? "the MCP endpoint takes no login session: send a secret API key (fsk_) as Authorization: Bearer"
        : "missing API key: send a secret API key (fsk_) as Authorization: Bearer",
    );
  if (readApiKey(request) !== bearer)
    throw refuse("send the API key as Authorization: Bearer only (not in X-API-Key or the query string)");
  if (!caller) throw refuse("API key is invalid or has been revoked");
  if (caller.kind !== "secret")
    throw refuse("a publishable key (fpk_) cannot use the MCP endpoint: send a secret API key (fsk_)");
  return caller;
}

/**
 * One request's MCP server, for one caller: tools/list shows the tools its role holds the right of;
 * tools/call checks the arguments, calls the tool with the right its route states, and answers a
 * refusal as a tool error carrying the API's code. Every call of a known tool is in the audit log.
 */
function serverFor(sdk: Sdk, caller: Principal, deps: McpDeps, requestId: string): Server {
  const { Server, ListToolsRequestSchema, CallToolRequestSchema, McpError, ErrorCode } = sdk;
  const server = new Server(
    { name: "formsvc", version: VERSION },
    {
      capabilities: { tools: {} },
      instructions:
        "formsvc's forms and their submissions (the inbox), with this API key's team and role. Lists are newest first and paged: call again with nextCursor to go on.",
    },
  );
  const mayUse = (tool: Tool) => teamsWith(caller, tool.right).length > 0;
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: TOOLS.filter(mayUse).map((tool) => ({
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: publishedSchema(tool.input) as { type: "object" },
      annotations: { title: tool.title, readOnlyHint: tool.right.endsWith(".read"), openWorldHint: false },
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async ({ params }) => {
    const tool = byName.get(params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `no tool named ${params.name}: tools/list names them`);
    return await call(tool, params.arguments ?? {}, caller, deps, requestId);
  });
  return server;
}

async function call(
  tool: Tool,
  given: Record<string, unknown>,
  caller: Principal,
  deps: McpDeps,
  requestId: string,
): Promise<CallToolResult> {
  let args: Record<string, unknown> = {};
  let outcome = "ok";
  try {
    args = checkedArgs(tool, given);
    const answer = fitted(await tool.run({ ...caller, right: tool.right }, args as never, deps));
    if (!answer)
      throw new AppError(
        "PAYLOAD_TOO_LARGE",
        `the answer is over ${MAX_ANSWER_BYTES / 1024} KB even with every value shortened; read it in the dashboard`,
      );
    return { content: [{ type: "text", text: JSON.stringify(answer) }] };
  } catch (error) {
    // As the API would answer it: its code and sentence; anything unexpected is logged (under the request's id) and said no more of.
    const { body } = toErrorResponse(error, "", deps.log, requestId);
    outcome = body.code;
    return {
      isError: true,
      content: [{ type: "text", text: `${body.code}: ${body.error}` }],
      structuredContent: { ...body },
    };
  } finally {
    // Reads too: what an assistant read is worth knowing. Ids only, never arguments' text.
    const objectId = [args.submissionId, args.formId].find((id) => typeof id === "string") ?? null;
    await deps.audit.record(caller, caller.team, `mcp.${tool.name}`, objectId as string | null, { outcome });
  }
}

/**
 * The SDK, loaded at the first MCP request: with its schemas it costs every start of formsvc (each
 * CLI command included) more than the rest of the server's modules together.
 */
const loadSdk = async () => {
  const [server, transport, types] = await Promise.all([
    import("@modelcontextprotocol/sdk/server/index.js"),
    import("@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"),
    import("@modelcontextprotocol/sdk/types.js"),
  ]);
  return { ...server, ...transport, ...types };
};
type Sdk = Awaited<ReturnType<typeof loadSdk>>;
let sdk: Promise<Sdk> | null = null;

/**
 * `POST /mcp`: the Model Context Protocol's Streamable HTTP transport, stateless (a new server and
 * transport per request, JSON answers): no session lives in one instance's memory, so any instance
 * behind a load balancer answers any request, and the key is checked again on every call (a key
 * revoked between two calls is refused at the second). GET (a stream of the server's own messages,
 * of which a stateless server has none) and DELETE (ending a session) are not served: 405.
 */
export function mcpRoutes(deps: McpDeps) {
  return new Elysia({ name: "mcp-routes" }).use(requestContext).post(
    "/mcp",
    async ({ request, requestId, caller, sessionGiven, maxBodyBytes, bodyPace }) => {
      const principal = keyCaller(request, caller, sessionGiven);
      // Our reader, not the transport's: the body limit and pace every route keeps (FORMSVC_MAX_BODY_BYTES).
      const body = await readCapped(request, maxBodyBytes, bodyPace);
      const loaded = await (sdk ??= loadSdk());
      const transport = new loaded.WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      const server = serverFor(loaded, principal, deps, requestId);
      await server.connect(transport);
      try {
        return await transport.handleRequest(
          new Request(request.url, { method: "POST", headers: request.headers, body: body as BodyInit }),
        );
      } finally {
        await server.close();
      }
    },
    // We read the body ourselves, after the key: nothing of it is read for a caller who is refused.
    { parse: "none", detail: { hide: true } },
  );
}
