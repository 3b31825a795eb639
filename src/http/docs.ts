import { openapi } from "@elysiajs/openapi";
import type { TSchema } from "elysia";
import { ErrorSchema } from "./schemas";
import { VERSION } from "../version";

const errorStatuses = {
  400: "invalid parameters or body",
  401: "missing, invalid or revoked API key",
  403: "the key's owner does not own this form",
  404: "form (or route) not found",
  413: "body larger than FORMSVC_MAX_BODY_BYTES",
  415: "unsupported Content-Type",
  429: "rate limit exceeded; wait until X-RateLimit-Reset (Retry-After is set)",
  503: "another process holds the database's write lock; nothing was stored, retry after Retry-After",
} as const;

type ErrorStatus = keyof typeof errorStatuses;

const json = (schema: TSchema) => ({ "application/json": { schema } });

/**
 * OpenAPI `responses` for a route: its success body and the errors it can answer, all with the
 * shared error body. Documentation only: bodies are checked by tests, not re-validated per request.
 */
export function responses(ok: { schema?: TSchema; description: string; status?: number }, ...errors: ErrorStatus[]) {
  return {
    [ok.status ?? 200]: { description: ok.description, ...(ok.schema ? { content: json(ok.schema) } : {}) },
    ...Object.fromEntries(errors.map((s) => [s, { description: errorStatuses[s], content: json(ErrorSchema) }])),
  };
}

/**
 * The API documents itself: @elysiajs/openapi (the maintained successor of @elysiajs/swagger,
 * OpenAPI 3.1) builds the document from the route schemas, so docs and code cannot drift.
 */
export const docs = openapi({
  provider: null, // the /docs page is docs-page.ts: pinned and offline, not this plugin's CDN page
  specPath: "/api/v1/openapi.json",
  exclude: { paths: ["/docs", "/healthz", "/metrics"] },
  documentation: {
    info: {
      title: "formsvc",
      version: VERSION,
      description:
        "Self-hosted form backend. Every endpoint needs an API key (X-API-Key header, recommended; or the apiKey query parameter; or Authorization: Bearer). Every response carries X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset. Lists are newest first with opaque keyset cursors.",
    },
    servers: [{ url: "/" }],
    components: {
      securitySchemes: {
        apiKeyHeader: { type: "apiKey", in: "header", name: "X-API-Key" },
        apiKeyQuery: { type: "apiKey", in: "query", name: "apiKey" },
        bearer: { type: "http", scheme: "bearer" },
      },
    },
    security: [{ apiKeyHeader: [] }, { apiKeyQuery: [] }, { bearer: [] }],
  },
});
