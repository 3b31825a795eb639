import { Elysia, type TSchema } from "elysia";
import { ErrorSchema } from "./schemas";
import { SESSION_COOKIE } from "./session-cookie";
import { VERSION } from "../version";

export const SPEC_PATH = "/api/v1/openapi.json";

const errorStatuses = {
  400: "invalid parameters or body",
  401: "missing, invalid or revoked API key (or login session, where one is taken; wrong email or password at login)",
  403: "the caller is no member of the team that owns this (FORBIDDEN), its role there is below the operation's x-role (ROLE_TOO_LOW), the key may not do this (KEY_SCOPE: a publishable key off submit, a bound key off its forms), the page's origin is not allowed (ORIGIN_NOT_ALLOWED), or a request made with a login session that changes something does not carry the server's own Origin (CSRF)",
  404: "form, submission, key or webhook (or route) not found; another owner's key is not found either",
  408: "the body came slower than FORMSVC_MIN_BODY_RATE bytes a second (default 1024) over 30 s (BODY_TOO_SLOW); nothing was stored. A body at that rate or faster is read however long it takes",
  409: "the resource is not in a state that allows this (a disabled webhook, a delivery being sent, a limit reached)",
  413: "body larger than FORMSVC_MAX_BODY_BYTES (default 102400 bytes), with or without a Content-Length; answered on every endpoint, once the key (or session) has been checked",
  415: "unsupported Content-Type: this endpoint takes the types its request body lists (application/json for the management API)",
  429: "rate limit exceeded (at login also: too many failed logins); wait Retry-After seconds (a rate-limit bucket is full again at X-RateLimit-Reset)",
  500: "internal error; the answer carries no detail, the log has it under the request id",
  503: "the database stayed locked by another process past the 5 s busy timeout (a submit meets this behind another process's long write; a read rarely, as WAL readers do not wait for writers); nothing was stored, retry after Retry-After",
} as const;

type ErrorStatus = keyof typeof errorStatuses;

const json = (schema: TSchema | { $ref: string }) => ({ "application/json": { schema } });
const header = (name: string) => ({ $ref: `#/components/headers/${name}` });

/** Headers on every answer of the API (CONTRACT: errors included). */
const everyAnswer = {
  "X-RateLimit-Limit": header("X-RateLimit-Limit"),
  "X-RateLimit-Remaining": header("X-RateLimit-Remaining"),
  "X-RateLimit-Reset": header("X-RateLimit-Reset"),
  "X-Request-Id": header("X-Request-Id"),
};
const headersOf = (status: number) =>
  status === 429 || status === 503 ? { ...everyAnswer, "Retry-After": header("Retry-After") } : everyAnswer;

const errorResponse = (status: ErrorStatus) => ({
  description: errorStatuses[status],
  headers: headersOf(status),
  content: json({ $ref: "#/components/schemas/Error" }),
});

/**
 * OpenAPI `responses` for a route: its success body (JSON `schema`, or `content` by media type) and the errors it can answer, all errors with
 * the shared error body. 413, 500 and 503 come with every route: every route refuses a body over the
 * limit, and the app's error handler answers the others wherever an unexpected error or a locked
 * database meets a request (a route that takes a body gets its 415 in `generate`). Documentation only here; the
 * test harness checks every answer of the test suite against it.
 */
export function responses(
  ok: {
    schema?: TSchema;
    content?: Record<string, { schema: TSchema }>;
    description: string;
    status?: number;
    headers?: Record<string, unknown>;
  },
  ...errors: ErrorStatus[]
) {
  const status = ok.status ?? 200;
  const content = ok.content ?? (ok.schema ? json(ok.schema) : undefined);
  return {
    [status]: {
      description: ok.description,
      headers: { ...headersOf(status), ...ok.headers },
      ...(content ? { content } : {}),
    },
    ...Object.fromEntries([...new Set<ErrorStatus>([...errors, 413, 500, 503])].map((s) => [s, errorResponse(s)])),
  };
}

/** A response header as an OpenAPI header object. */
const integerHeader = (description: string) => ({
  description,
  required: true,
  schema: { type: "integer" as const, minimum: 0 },
});

// Schema keywords Elysia reads that OpenAPI 3.1 (JSON Schema 2020-12) does not have: `error`, the
// message of a failed check, and `nullable`, which t.Nullable adds beside its `anyOf [..., null]`.
const ELYSIA_ONLY = new Set(["error", "nullable"]);
const SCHEMA_MAPS = new Set(["properties", "patternProperties", "$defs", "dependentSchemas"]);
const SCHEMA_LISTS = new Set(["anyOf", "allOf", "oneOf", "prefixItems"]);
const SUBSCHEMAS = new Set([
  "items",
  "additionalProperties",
  "not",
  "if",
  "then",
  "else",
  "contains",
  "propertyNames",
  "unevaluatedItems",
  "unevaluatedProperties",
  "contentSchema",
]);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const mapValues = (o: Record<string, unknown>, f: (v: unknown) => unknown) =>
  Object.fromEntries(Object.entries(o).map(([k, v]) => [k, f(v)]));

/** A copy of a JSON Schema without Elysia's own keywords; names (of properties, say) are kept whatever they are. */
export function publishedSchema(schema: unknown): unknown {
  if (!isObject(schema)) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (ELYSIA_ONLY.has(key)) continue;
    if (SCHEMA_MAPS.has(key) && isObject(value)) out[key] = mapValues(value, publishedSchema);
    else if (SCHEMA_LISTS.has(key) && Array.isArray(value)) out[key] = value.map(publishedSchema);
    else if (SUBSCHEMAS.has(key)) out[key] = publishedSchema(value);
    else out[key] = structuredClone(value);
  }
  return out;
}

/**
 * The document as served: a copy (the generated one shares its schemas with the live validators)
 * in which every schema is plain JSON Schema 2020-12.
 */
export function publishedDocument(node: unknown, key = ""): unknown {
  if (key === "schema") return publishedSchema(node);
  if (key === "schemas" && isObject(node)) return mapValues(node, publishedSchema);
  if (key === "example" || key === "examples") return structuredClone(node);
  if (Array.isArray(node)) return node.map((v) => publishedDocument(v));
  if (!isObject(node)) return node;
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, publishedDocument(v, k)]));
}

// What the document says beside the routes' own schemas.
const documentation = {
  info: {
    title: "formsvc",
    version: VERSION,
    description: `Self-hosted form backend. Every endpoint needs an API key (X-API-Key header, recommended; or the apiKey query parameter; or Authorization: Bearer), or a login session (the ${SESSION_COOKIE} cookie from POST /api/v1/auth/login, which acts as its owner's secret key everywhere but submit and challenge; a key, when sent, wins; a request with a session that changes something must carry the server's own Origin, else 403 CSRF). A team owns forms, keys, webhooks and the spam model; every owner has a personal team, and people join others by invitation, each with a role (viewer, editor, admin, owner). A secret key (fsk_…) belongs to one team with a role; a session acts in each of its person's teams with their role there. Each operation names the right it needs and the least role that holds it (x-right, x-role); a role below is 403 ROLE_TOO_LOW. A secret key may call every endpoint its role allows for its team's forms; a publishable key (fpk_…, made for web pages) only the operations marked x-publishable-key (submit, challenge), elsewhere 403 KEY_SCOPE; those two also answer CORS to other origins. Every response carries X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset. Lists are newest first with opaque keyset cursors. Errors always have the Error body, also for an unknown route (404) and a method a path does not serve (405, with Allow). A request is checked in this order: rate limit (429), key or session (401; the CSRF 403 of a session), then its body (415 for a Content-Type the endpoint does not take, 413 over FORMSVC_MAX_BODY_BYTES, 400 when malformed or not the documented object), parameters (400), the resource (404) and its team, the key's scope and the caller's role there (403). No byte of a body is read before the key or session has been checked, and every endpoint answers a body over the limit with 413, whether it declares its length (refused unread) or is chunked (refused when the count passes the limit). The management endpoints take application/json only, a JSON object (false, 0, "", [] or null are a 400). Beside this API, POST /mcp (no operation here) speaks the Model Context Protocol (Streamable HTTP, stateless, JSON answers) for AI assistants: a secret key as Authorization: Bearer only (no session, no publishable key: 401), tools with the key's team and role that call these same operations (a viewer key gets only the read tools), errors as tool errors with these codes, every call in the audit log; see the README, "Agent access (MCP)".`,
    // The repository grants no license (package.json is private): npm's word for that. Choosing one changes this line.
    license: { name: "UNLICENSED" },
  },
  servers: [{ url: "/" }],
  components: {
    schemas: { Error: ErrorSchema },
    headers: {
      "X-RateLimit-Limit": integerHeader("requests the bucket holds when full"),
      "X-RateLimit-Remaining": integerHeader("requests left in the bucket"),
      "X-RateLimit-Reset": integerHeader("Unix time, in seconds, when the bucket is full again"),
      "Retry-After": integerHeader("seconds to wait before the next request"),
      "X-Request-Id": {
        description: "this request's id, as the log names it",
        required: true,
        schema: { type: "string" as const },
      },
    },
    securitySchemes: {
      apiKeyHeader: { type: "apiKey", in: "header", name: "X-API-Key" },
      apiKeyQuery: { type: "apiKey", in: "query", name: "apiKey" },
      bearer: { type: "http", scheme: "bearer" },
      sessionCookie: {
        type: "apiKey",
        in: "cookie",
        name: SESSION_COOKIE,
        description:
          "a login session (POST /api/v1/auth/login); acts as its owner's secret key. Named __Host-formsvc_session when FORMSVC_PUBLIC_URL is https",
      },
    },
  },
  security: [{ apiKeyHeader: [] }, { apiKeyQuery: [] }, { bearer: [] }],
};

/**
 * Every operation that takes a body answers 415 for a type its requestBody does not list (http/body.ts,
 * submit's reader), and 408 for a body that comes too slowly (http/body-pace.ts).
 */
function withBodyAnswers(paths: object): void {
  for (const item of Object.values(paths)) {
    for (const operation of Object.values(isObject(item) ? item : {})) {
      if (isObject(operation) && operation.requestBody && isObject(operation.responses)) {
        operation.responses["415"] ??= errorResponse(415);
        operation.responses["408"] ??= errorResponse(408);
      }
    }
  }
}

/** The document of every route `app` serves (as @elysiajs/openapi's plugin assembles it), published. */
async function generate(app: Elysia): Promise<unknown> {
  // Loaded on the first request for the document: it is ~270 KB of code (with converters for
  // schema libraries we do not use) that a server otherwise carries in memory for nothing.
  const { toOpenAPISchema } = await import("@elysiajs/openapi");
  const { paths, components } = toOpenAPISchema(
    app,
    { paths: ["/docs", "/healthz", "/metrics", "/confirm/:token"] },
    undefined,
    undefined,
    "3.1.2",
  );
  withBodyAnswers(paths);
  return publishedDocument({
    ...documentation,
    openapi: "3.1.2",
    paths,
    components: {
      ...documentation.components,
      schemas: { ...components.schemas, ...documentation.components.schemas },
    },
  });
}

/**
 * GET /api/v1/openapi.json: the API documents itself. @elysiajs/openapi (the maintained successor
 * of @elysiajs/swagger, OpenAPI 3.1) builds the document from the route schemas, so docs and code
 * cannot drift; it is published without Elysia's own schema keywords, made once per app (the
 * routes do not change once it listens). The /docs page is docs-page.ts: pinned and offline.
 */
export function docs() {
  let document: Promise<unknown> | undefined;
  const plugin: Elysia = new Elysia({ name: "docs" });
  return plugin.get(
    SPEC_PATH,
    () => {
      document ??= generate(plugin);
      // A failed generation is not kept: the next request tries again.
      document.catch(() => (document = undefined));
      return document;
    },
    { detail: { hide: true } },
  );
}
