import { signal } from "@preact/signals";
import { FormsvcClient, FormsvcError } from "../../client/index";

/** What the session's 401 does: set by session.ts (back to the login page, keeping the route). */
let onUnauthorized: () => void = () => {};
export const whenUnauthorized = (f: () => void) => void (onUnauthorized = f);

// Answers to these say "not logged in" or "wrong password", not "the session ran out".
const AUTH_PATHS = /\/api\/v1\/auth\/(login|me)$/;

/** fetch for the client: the session cookie goes along (same origin), and a 401 anywhere else means the session ended. */
export async function sessionFetch(url: string, init: RequestInit): Promise<Response> {
  const res = await fetch(url, { ...init, credentials: "same-origin" });
  if (res.status === 401 && !AUTH_PATHS.test(new URL(url, location.href).pathname)) onUnauthorized();
  return res;
}

/** formsvc's typed client, without an API key: the browser's session cookie stands for the owner's secret key. */
export const client = new FormsvcClient({ baseUrl: `${location.origin}/api/v1`, fetch: sessionFetch });

/**
 * The operations this server offers, as "METHOD /path" with the path as the OpenAPI document writes
 * it ("PATCH /forms/{formId}"). Read once from /api/v1/openapi.json: a part of the dashboard whose
 * endpoint the server does not have (an older or newer formsvc) is left out instead of failing.
 */
export const operations = signal<ReadonlySet<string>>(new Set());

export async function loadOperations(): Promise<void> {
  const res = await fetch("/api/v1/openapi.json", { credentials: "same-origin" });
  if (!res.ok) throw new FormsvcError({ status: res.status, message: `could not read the server's API description (HTTP ${res.status})` });
  const doc = (await res.json()) as { paths?: Record<string, Record<string, unknown>> };
  const ops = new Set<string>();
  for (const [path, methods] of Object.entries(doc.paths ?? {})) {
    for (const method of Object.keys(methods)) ops.add(`${method.toUpperCase()} ${path.replace(/^\/api\/v1/, "")}`);
  }
  operations.value = ops;
}

/** Whether the server offers an operation, e.g. `offers("DELETE /keys/{keyId}")`. */
export const offers = (op: string) => operations.value.has(op);

/** A sentence for any failure, for the page to show: the server's own message where it sent one. */
export function describeError(e: unknown): string {
  if (e instanceof FormsvcError) {
    if (e.status === 0) return `formsvc did not answer (${e.message}). Check that it is running, then try again.`;
    if (e.status === 429) return `Too many requests for now: ${e.message}`;
    return e.message.charAt(0).toUpperCase() + e.message.slice(1) + (/[.!?]$/.test(e.message) ? "" : ".");
  }
  return e instanceof Error ? e.message : String(e);
}

export { FormsvcError };
