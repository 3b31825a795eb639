import { expect } from "bun:test";
import { PUBLIC_ROUTE, ROUTE_RIGHT } from "../../src/http/context";
import { notServed } from "../../src/http/methods";
import type { Right } from "../../src/lib/rights";

/**
 * The route listing the security tests share (matrix.test.ts, roles.test.ts): the routes the app
 * serves (`app.routes`), which of them take a key, the right each states, and a request each
 * would take, so that a new route is in every one of them the day it is added.
 */

export interface Route {
  method: string;
  path: string;
  handler: unknown;
  hooks?: { detail?: Record<string, unknown> & { security?: Record<string, unknown>[] } };
}

/** What another owner's key gets on this owner's resource, by the path parameter that names it, as the routes document (another owner's key is not found, as one that does not exist). */
export const OTHER_OWNER_STATUS: Record<string, number> = { formId: 403, webhookId: 403, deliveryId: 403, keyId: 404 };

/** The path parameter that names what a route reaches, as OTHER_OWNER_STATUS lists them (the first in its order), if any. */
export const namedBy = (r: Route): string | undefined =>
  Object.keys(OTHER_OWNER_STATUS).find((p) => r.path.includes(`:${p}`));

export const takesApiKey = (r: Route) => r.hooks?.detail?.security?.some((s) => "apiKeyHeader" in s) ?? false;
export const isPublic = (r: Route) => r.hooks?.detail?.[PUBLIC_ROUTE] === true;
/** The right a route states (`auth: secret(…)`), if it states one. */
export const rightOf = (r: Route) => r.hooks?.detail?.[ROUTE_RIGHT] as Right | undefined;
/** The routes of the API that take a key: the matrix's rows. */
export const apiRoutes = (routes: Route[]) => routes.filter((r) => r.handler !== notServed && takesApiKey(r));
export const label = (r: Route) => `${r.method} ${r.path}`;
export const hasBody = (r: Route) => r.method !== "GET" && r.method !== "HEAD";
/** Query strings by route, for the routes that need one to be a request they take. */
const VALID_QUERY: Record<string, string> = { "GET /api/v1/submissions/search": "?q=hello" };

/** The route's path with its parameters filled from `ids` (by name), an id that exists nowhere where none is given, and the query it needs. */
export const pathOf = (r: Route, ids: Record<string, string>) =>
  r.path.replace(/:(\w+)/g, (_, name: string) => ids[name] ?? `unknown-${name}`) + (VALID_QUERY[label(r)] ?? "");

/** Bodies by route, from the fixture's ids (formId, teamId): each a body the operation would take. */
const VALID_BODY: Record<string, (ids: Record<string, string>) => unknown> = {
  // In the fixture's team, named: else a session would act in its own personal team.
  "POST /api/v1/forms": (ids) => ({ name: "New", teamId: ids.teamId }),
  "POST /api/v1/keys": (ids) => ({ teamId: ids.teamId }),
  "POST /api/v1/forms/submit": (ids) => ({ formId: ids.formId, data: {} }),
  "POST /api/v1/forms/:formId/webhooks": () => ({ url: "http://127.0.0.1:9/other" }),
  // Into the team it is in: a move that changes nothing, for the roles that may make it.
  "POST /api/v1/forms/:formId/move": (ids) => ({ teamId: ids.teamId }),
  "POST /api/v1/forms/:formId/submissions/bulk": (ids) => ({
    ids: [ids.submissionId],
    action: "set",
    set: { state: "open" },
  }),
  "POST /api/v1/forms/:formId/submissions/:submissionId/notes": () => ({ text: "A note" }),
  "POST /api/v1/teams": () => ({ name: "New" }),
  "PATCH /api/v1/teams/:teamId": () => ({ name: "Renamed" }),
  "PATCH /api/v1/teams/:teamId/members/:ownerId": () => ({ role: "viewer" }),
  "POST /api/v1/teams/:teamId/invitations": () => ({ email: "new@example.com", role: "viewer" }),
};

/** A JSON body each operation would take, so that only the case under test is wrong ({} where none is listed). */
export const validBody = (r: Route, ids: Record<string, string>) => JSON.stringify(VALID_BODY[label(r)]?.(ids) ?? {});

/** Whether the request (with its valid body) names what it reaches: by a path parameter, or a team or form in the body. */
export const namesItsTarget = (r: Route) => {
  const body = VALID_BODY[label(r)]?.({}) as Record<string, unknown> | undefined;
  return r.path.includes(":") || (body !== undefined && ("teamId" in body || "formId" in body));
};

/** Each route's outcome beside the one expected, compared as one table: a failure lists every route that differs. */
export async function expectEach<T>(
  cases: T[],
  name: (c: T) => string,
  expected: (c: T) => unknown,
  actual: (c: T) => Promise<unknown>,
) {
  const got: Record<string, unknown> = {};
  const want: Record<string, unknown> = {};
  for (const c of cases) {
    got[name(c)] = await actual(c);
    want[name(c)] = expected(c);
  }
  expect(got).toEqual(want);
}
