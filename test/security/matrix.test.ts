import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { notServed } from "../../src/http/methods";
import { seedForm, seedKey, seedOwner, startTestServer, type TestServer } from "../helpers/harness";
import { OPERATOR } from "../../src/lib/principal";
import { ROUTE_RIGHT, ROUTE_ROLE } from "../../src/http/context";
import { personalTeamId, RIGHTS } from "../../src/lib/rights";
import {
  apiRoutes as apiRoutesOf,
  expectEach,
  hasBody,
  isPublic,
  label,
  namedBy,
  OTHER_OWNER_STATUS,
  pathOf as pathWith,
  rightOf,
  takesApiKey,
  validBody as validBodyWith,
  type Route,
} from "./routes";

/**
 * The security cases of every API operation, generated from the routes the app serves
 * (`app.routes`), so that a new route is covered, or fails "every route is classified", the day it
 * is added. Each case is a request that must be refused: nothing here succeeds, so nothing changes.
 */

const MAX_BODY_BYTES = 2048;

/** Routes outside the matrix, each with why. A route neither here nor taking an API key fails the test until it is classified. */
const NOT_IN_MATRIX: { method: string; path: RegExp; why: string }[] = [
  {
    method: "POST",
    path: /^\/api\/v1\/auth\/login$/,
    why: "takes no key (it is how one logs in); its CSRF check, body cap and JSON object are in test/http/bodies.test.ts",
  },
  {
    method: "POST",
    path: /^\/api\/v1\/auth\/(setup|reset|reset\/confirm)$/,
    why: "take no key or session (first run, a forgotten password): a link's token or an email instead; their CSRF check, body checks, refusals and limits are in test/accounts/first-run-reset.test.ts",
  },
  {
    method: "POST",
    path: /^\/api\/v1\/auth\/login\/second-factor$/,
    why: "takes no key (a login's challenge and a code instead); its CSRF check, refusals and throttle are in test/accounts/totp.test.ts",
  },
  {
    method: "POST",
    path: /^\/api\/v1\/auth\/totp(\/confirm|\/recovery-codes|\/disable)?$/,
    why: "session only (a person's second factor): every key case is a 401 (test/accounts/totp.test.ts)",
  },
  {
    method: "GET",
    path: /^\/api\/v1\/auth\/(providers|oidc\/start|oidc\/callback)$/,
    why: "take no key (how one signs in with OpenID Connect, and whether one can): the signed cookie and the provider's answer are the credentials; their refusals are in test/accounts/oidc.test.ts",
  },
  { method: "GET", path: /^\/$/, why: "a redirect to /dashboard, public (test/accounts/first-run-reset.test.ts)" },
  {
    method: "POST",
    path: /^\/api\/v1\/auth\/logout$/,
    why: "session only: no key is accepted, so every key case is a 401 (test/accounts)",
  },
  {
    method: "GET",
    path: /^\/api\/v1\/auth\/me$/,
    why: "session only: no key is accepted, so every key case is a 401 (test/accounts)",
  },
  {
    method: "POST",
    path: /^\/api\/v1\/auth\/passkeys\/login(\/options)?$/,
    why: "take no key (how one logs in with a passkey): the authenticator's signature is the credential; their CSRF check, refusals and throttle are in test/accounts/passkeys.test.ts",
  },
  ...["GET", "POST", "PATCH", "DELETE"].map((method) => ({
    method,
    path: /^\/api\/v1\/auth\/passkeys(\/options|\/:passkeyId)?$/,
    why: "session only (a person's own passkeys): no key is accepted, so every key case is a 401; another person's passkey is a 404 (test/accounts/passkeys.test.ts)",
  })),
  {
    method: "GET",
    path: /^\/api\/v1\/auth\/sessions$/,
    why: "session only (a person's own sessions): no key is accepted, so every key case is a 401 (test/accounts/sessions.test.ts)",
  },
  {
    method: "DELETE",
    path: /^\/api\/v1\/auth\/sessions(\/:sessionId)?$/,
    why: "session only (a person's own sessions): no key is accepted, so every key case is a 401; another person's session is a 404 (test/accounts/sessions.test.ts)",
  },
  {
    method: "PATCH",
    path: /^\/api\/v1\/auth\/me$/,
    why: "session only: no key is accepted, so every key case is a 401 (test/accounts/login.test.ts)",
  },
  {
    method: "POST",
    path: /^\/api\/v1\/teams$/,
    why: "session only (teams are people's): no key is accepted, so every key case is a 401 (test/teams/teams.test.ts)",
  },
  ...["GET", "PUT"].map((method) => ({
    method,
    path: /^\/api\/v1\/forms\/:formId\/notifications\/me$/,
    why: "session only (a member's own choice; a key is no person): every key case is a 401 (test/email/member-notifications.test.ts)",
  })),
  {
    method: "POST",
    path: /^\/mcp$/,
    why: "the MCP endpoint: a secret key as Authorization: Bearer only (no session, no publishable key, no other place: 401), its answers the transport's; no key, a wrong one, a revoked one, another team's ids, roles and the body cap are in test/mcp/auth.test.ts and test/mcp/tools.test.ts",
  },
  { method: "GET", path: /^\/api\/v1\/openapi\.json$/, why: "the public API document" },
  { method: "GET", path: /^\/docs(\/|$)/, why: "the docs page and its assets, public" },
  {
    method: "GET",
    path: /^\/dashboard(\/|$)/,
    why: "the dashboard's page and assets, public; its calls go through the API",
  },
  { method: "GET", path: /^\/widget\//, why: "the challenge widget's script, public" },
  {
    method: "GET",
    path: /^\/confirm\/:token$/,
    why: "a submitter's confirmation link: the token is the credential (test/outbound)",
  },
  {
    method: "POST",
    path: /^\/confirm\/:token$/,
    why: "the confirmation page's button: the token is the credential, and it only confirms that address (test/email/recipient-confirmations.test.ts)",
  },
  {
    method: "POST",
    path: /^\/f\/:formId$/,
    why: "the drop-in endpoint: no key, the form id is the public address (publicEndpoint); its checks are a publishable key's (test/dropin)",
  },
  {
    method: "GET",
    path: /^\/f\/:formId$/,
    why: "the hosted form page, public like the drop-in endpoint it posts to (test/dropin/hosted-page.test.ts)",
  },
  {
    method: "GET",
    path: /^\/f\/:formId\/challenge$/,
    why: "the hosted page's proof-of-work challenge: no key, the form id is the public address (test/dropin/hosted-page.test.ts)",
  },
  { method: "GET", path: /^\/f\/assets\//, why: "the stylesheets of the pages for people, public" },
  {
    method: "POST",
    path: /^\/f\/:formId\/partial$/,
    why: "the hosted page's save and resume: no key, like the drop-in endpoint (its limits and rate bucket); a saved answer's token is its credential (test/dropin/partials.test.ts)",
  },
  {
    method: "GET",
    path: /^\/f\/:formId\/resume$/,
    why: "a resume link: the token is the credential, and the page changes nothing (test/dropin/partials.test.ts)",
  },
  {
    method: "GET",
    path: /^\/f\/:formId\/thanks$/,
    why: "the thank-you page a visitor lands on after a drop-in post, public (test/dropin)",
  },
  {
    method: "GET",
    path: /^\/f\/:formId\/edit\/:submissionId$/,
    why: "a submitter's edit link (editableDays): the signature is the credential; shows their answers, changes nothing (test/dropin/edits.test.ts)",
  },
  {
    method: "POST",
    path: /^\/f\/:formId\/edit\/:submissionId$/,
    why: "a submitter's edit link's post: the signature is the credential, its checks a drop-in post's (test/dropin/edits.test.ts)",
  },
  {
    method: "POST",
    path: /^\/f\/:formId\/edit-link$/,
    why: "asks that an address be emailed its answer's edit link (one response per email, with edits): it shows nothing and answers the same whoever asks (test/dropin/edits.test.ts)",
  },
  {
    method: "GET",
    path: /^\/api\/v1\/files\/:fileId$/,
    why: "a signed download link from a notification or webhook: the signature is the credential (test/files)",
  },
  {
    method: "GET",
    path: /^\/invitations\/:token$/,
    why: "an invitation's link: the token is the credential, and the page changes nothing (test/teams/invitations.test.ts)",
  },
  {
    method: "POST",
    path: /^\/invitations\/:token$/,
    why: "the invitation page's form: the token is the credential, with the invited person's session or password, or a new password; its CSRF check and refusals are in test/teams/invitations.test.ts",
  },
  {
    method: "POST",
    path: /^\/api\/v1\/invitations\/accept$/,
    why: "takes no key: an invitation link's token, with the invited person's session or password (test/teams/invitations.test.ts)",
  },
  { method: "GET", path: /^\/healthz$/, why: "the load balancer's probe, public by design" },
  {
    method: "GET",
    path: /^\/metrics$/,
    why: "its own bearer token, FORMSVC_METRICS_TOKEN (test/ops/health-metrics.test.ts)",
  },
];

let server: TestServer;
let routes: Route[];
let document: any;
let ids: Record<string, string>;
const keys: Record<"owner" | "other" | "publishable" | "bound", string> = {
  owner: "",
  other: "",
  publishable: "",
  bound: "",
};

beforeAll(async () => {
  server = await startTestServer({
    config: {
      maxBodyBytes: MAX_BODY_BYTES,
      rateLimit: 1_000_000,
      publicRateLimit: 1_000_000,
      webhookAllowPrivate: true,
    },
  });
  const owner = await seedOwner(server, "owner@example.com");
  const other = await seedOwner(server, "other@example.com");
  const second = await seedForm(server, owner.ownerEmail, { name: "Second" });
  keys.owner = owner.key;
  keys.other = other.key;
  keys.publishable = (await seedKey(server, owner.ownerEmail, { publishable: true })).key;
  // Bound to the owner's second form: every path below names the first.
  keys.bound = (await seedKey(server, owner.ownerEmail, { forms: [second.id] })).key;
  const webhook = await server.services.webhooks.addWebhook(OPERATOR, owner.formId, { url: "http://127.0.0.1:9/hook" });
  const submitted = await server.json("/api/v1/forms/submit", {
    method: "POST",
    key: owner.key,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ formId: owner.formId, data: { email: "ada@example.com" } }),
  });
  expect(submitted.status).toBe(200);
  const [delivery] = await server.services.webhooks.deliveries(OPERATOR, webhook.id, 1);
  ids = {
    formId: owner.formId,
    teamId: personalTeamId(owner.ownerId),
    keyId: owner.keyId,
    submissionId: submitted.body.submissionId,
    webhookId: webhook.id,
    deliveryId: delivery!.id,
  };
  routes = server.app.routes as unknown as Route[];
  document = await (await server.app.handle(new Request("http://localhost/api/v1/openapi.json"))).json();
});
afterAll(() => server.close());

const excluded = (r: Route) => NOT_IN_MATRIX.some((x) => x.method === r.method && x.path.test(r.path));
const apiRoutes = () => apiRoutesOf(routes);
const pathOf = (r: Route) => pathWith(r, ids);
const operationOf = (r: Route) => document.paths[r.path.replace(/:(\w+)/g, "{$1}")]?.[r.method.toLowerCase()];
/** Whether the route's documented request body is JSON. */
const takesJson = (r: Route) => operationOf(r)?.requestBody?.content?.["application/json"] !== undefined;
const validBody = (r: Route) => validBodyWith(r, ids);

async function call(r: Route, key: string | null, body?: BodyInit) {
  const headers: Record<string, string> = {};
  if (key !== null) headers["x-api-key"] = key;
  if (hasBody(r)) headers["content-type"] = "application/json";
  return await server.json(pathOf(r), {
    method: r.method,
    headers,
    body: hasBody(r) ? (body ?? validBody(r)) : undefined,
    duplex: "half",
  } as RequestInit);
}

/** A chunked body (no Content-Length) of `total` bytes, pulled only as the server reads it; `pulled()` says how much was. */
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

test("every route is classified: in the matrix (it takes an API key), a guard that serves nothing, or listed with the reason it is not", () => {
  const unclassified = routes.filter((r) => r.handler !== notServed && !takesApiKey(r) && !excluded(r)).map(label);
  expect(unclassified).toEqual([]);
  // The list holds no route that is in the matrix after all, or that no longer exists.
  for (const x of NOT_IN_MATRIX)
    expect(routes.some((r) => r.method === x.method && x.path.test(r.path) && !takesApiKey(r))).toBe(true);
  expect(apiRoutes().length).toBeGreaterThan(20);
});

test("every route that takes a secret key or a session states its right (`auth: secret(…)`), with the least role that holds it, in the API document too", () => {
  const stating = apiRoutes().filter((r) => !isPublic(r));
  const stated = (r: Route) => {
    const right = rightOf(r);
    const op = operationOf(r);
    return (
      right !== undefined &&
      right in RIGHTS &&
      r.hooks!.detail![ROUTE_ROLE] === RIGHTS[right] &&
      op[ROUTE_RIGHT] === right &&
      op[ROUTE_ROLE] === RIGHTS[right]
    );
  };
  expect(stating.filter((r) => !stated(r)).map(label)).toEqual([]);
  expect(stating.length).toBeGreaterThan(20);
});

const outcome = async (r: Route, key: string | null, body?: BodyInit) => {
  const { status, body: answer } = await call(r, key, body);
  return { status, code: answer.code };
};

describe("the OpenAPI document", () => {
  test("offers application/json only for the management bodies (submit also takes form posts), 415 wherever a body is taken, and 413 everywhere", async () => {
    const cases = apiRoutes().concat(routes.filter((r) => r.path === "/api/v1/auth/login"));
    await expectEach(
      cases,
      label,
      (r) => ({
        types: !operationOf(r).requestBody
          ? []
          : r.path.endsWith("/forms/submit")
            ? ["application/json", "application/x-www-form-urlencoded", "multipart/form-data"]
            : ["application/json"],
        413: true,
        415: operationOf(r).requestBody !== undefined,
      }),
      async (r) => {
        const op = operationOf(r);
        return {
          types: Object.keys(op.requestBody?.content ?? {}),
          413: "413" in op.responses,
          415: "415" in op.responses,
        };
      },
    );
  });
});

describe("every API operation", () => {
  test("refuses a request without a key, and one with a wrong key, with 401", async () => {
    const cases = apiRoutes().flatMap((r) =>
      [null, "fsk_wrong0000000000000000000000", "fpk_wrong0000000000000000000000"].map((key) => ({ r, key })),
    );
    await expectEach(
      cases,
      ({ r, key }) => `${label(r)} with ${key ?? "no key"}`,
      () => ({ status: 401, code: "UNAUTHORIZED" }),
      ({ r, key }) => outcome(r, key),
    );
  });

  test("refuses another owner's key on this owner's form or resource, as the route documents", async () => {
    const cases = apiRoutes()
      .map((r) => ({ r, param: namedBy(r) }))
      .filter((c): c is { r: Route; param: string } => c.param !== undefined);
    expect(cases.length).toBeGreaterThan(10);
    await expectEach(
      cases,
      ({ r }) => label(r),
      ({ param }) => OTHER_OWNER_STATUS[param],
      async ({ r }) => (await call(r, keys.other)).status,
    );
  });

  test("refuses a publishable key with 403 KEY_SCOPE, except on the public operations", async () => {
    const cases = apiRoutes().filter((r) => !isPublic(r));
    await expectEach(
      cases,
      label,
      () => ({ status: 403, code: "KEY_SCOPE" }),
      (r) => outcome(r, keys.publishable),
    );
  });

  test("refuses a key bound to another form with 403 KEY_SCOPE on every operation that names a form", async () => {
    const cases = apiRoutes().filter((r) => r.path.includes(":formId") || r.path.endsWith("/forms/submit"));
    expect(cases.length).toBeGreaterThan(10);
    await expectEach(
      cases,
      label,
      () => ({ status: 403, code: "KEY_SCOPE" }),
      (r) => outcome(r, keys.bound),
    );
  });

  test("refuses a chunked body over FORMSVC_MAX_BODY_BYTES with 413 for a valid key, and with 401 without a key before reading it", async () => {
    // Twice what a refusal reads away after its answer (16 MiB): the rest is never read.
    const total = 32 * 1024 * 1024;
    const cases = apiRoutes()
      .filter(hasBody)
      .flatMap((r) => [
        { r, key: keys.owner, status: 413 },
        { r, key: null, status: 401 },
      ]);
    await expectEach(
      cases,
      ({ r, key }) => `${label(r)} ${key ? "with" : "without"} a key`,
      // The answer came when the server stopped reading at the limit, or before it began: what was sent
      // by then is what socket buffers hold, far from all of it; after it, at most 16 MiB more was read away.
      ({ status }) => ({ status, answeredEarly: true, readAwayBounded: true }),
      async ({ r, key }) => {
        const body = chunkedBody(total);
        const headers: Record<string, string> = { "content-type": "application/json" };
        if (key !== null) headers["x-api-key"] = key;
        const res = await fetch(`${server.url}${pathOf(r)}`, {
          method: r.method,
          headers,
          body: body.stream,
          duplex: "half",
        } as RequestInit);
        const answeredAt = body.pulled();
        await res.text().catch(() => "");
        return { status: res.status, answeredEarly: answeredAt < total / 4, readAwayBounded: body.pulled() < total };
      },
    );
  });

  test("refuses a body that declares a length over FORMSVC_MAX_BODY_BYTES with 413 for a valid key, and 401 without one", async () => {
    const big = JSON.stringify({ padding: "x".repeat(MAX_BODY_BYTES) });
    const cases = apiRoutes()
      .filter(hasBody)
      .flatMap((r) => [
        { r, key: keys.owner, status: 413 },
        { r, key: null, status: 401 },
      ]);
    await expectEach(
      cases,
      ({ r, key }) => `${label(r)} ${key ? "with" : "without"} a key`,
      ({ status }) => status,
      async ({ r, key }) => (await call(r, key, big)).status,
    );
  });

  test("refuses a JSON body that is not an object with 400, where the operation takes one", async () => {
    const cases = apiRoutes()
      .filter(takesJson)
      .flatMap((r) => ["false", "0", '""', "[]", "null"].map((body) => ({ r, body })));
    expect(cases.length).toBeGreaterThanOrEqual(5 * 5);
    await expectEach(
      cases,
      ({ r, body }) => `${label(r)} with ${body}`,
      () => 400,
      async ({ r, body }) => (await call(r, keys.owner, body)).status,
    );
  });
});
