import { beforeAll, describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import { createApp } from "../../src/app";
import { loadConfig } from "../../src/config";
import { requestContext, secret } from "../../src/http/context";
import { personalTeamId } from "../../src/lib/rights";
import { silentLogger } from "../../src/lib/log";
import { useServer } from "../helpers/fixture";
import { startTestServer } from "../helpers/harness";
import { login, PASSWORD, session, withPassword } from "../helpers/accounts";

const server = useServer();
const owner = server.seed("owner@example.com");

beforeAll(async () => {
  await withPassword(server, "owner@example.com");
});

/**
 * The server's app with one more route: no state-changing `{ auth: "secret" }` route exists yet, so
 * this one stands in for them; it answers the principal it was given. Asked in-process as
 * http://forms.test, which is then the server's own origin.
 */
function appWithProbe() {
  const config = loadConfig({}, { db: server.db, logLevel: "silent" });
  const app = createApp({ store: server.store, services: server.services, config, log: silentLogger }).use(
    new Elysia({ prefix: "/api/v1" })
      .use(requestContext)
      .post("/probe", ({ principal }) => principal, { auth: secret("forms.read") })
      .get("/probe", ({ principal }) => principal, { auth: secret("forms.read") }),
  );
  return (method: string, headers: Record<string, string>) =>
    app.handle(new Request("http://forms.test/api/v1/probe", { method, headers }));
}

describe("a request made with a session that changes something", () => {
  test("reaches the route only with the server's own Origin, with its owner's rights as a secret key under the session's ses_ id", async () => {
    const probe = appWithProbe();
    const { cookie } = await login(server, "owner@example.com");
    const passed = await probe("POST", { cookie: cookie!, origin: "http://forms.test" });
    expect(passed.status).toBe(200);
    const principal = await passed.json();
    expect(principal).toEqual({
      keyId: expect.stringMatching(/^ses_[0-9a-f]{32}$/),
      ownerId: owner.ownerId,
      kind: "secret",
      forms: null,
      teams: {}, // a Map, which JSON writes as {}
      team: personalTeamId(owner.ownerId),
      right: "forms.read",
    });
    expect(await server.query("SELECT id FROM sessions WHERE id = ?", principal.keyId)).toHaveLength(1);
    for (const origin of [
      undefined,
      "null",
      "https://evil.example",
      "http://evil.forms.test",
      "http://forms.test:8080",
      "https://forms.test",
    ]) {
      const res = await probe("POST", { cookie: cookie!, ...(origin ? { origin } : {}) });
      expect([origin, res.status, (await res.json()).code]).toEqual([origin, 403, "CSRF"]);
    }
  });

  test("is not asked for an Origin when it only reads", async () => {
    const probe = appWithProbe();
    const { cookie } = await login(server, "owner@example.com");
    expect((await probe("GET", { cookie: cookie!, origin: "https://evil.example" })).status).toBe(200);
    expect(
      (await server.json("/api/v1/forms/list", { headers: session(server, cookie!, "https://evil.example") })).status,
    ).toBe(200);
  });

  test("with an API key instead is not subject to the Origin rule", async () => {
    const probe = appWithProbe();
    const res = await probe("POST", { "x-api-key": owner.key, origin: "https://evil.example" });
    expect(res.status).toBe(200);
    expect((await res.json()).keyId).toBe(owner.keyId);
  });

  test("POST /auth/logout with a missing or foreign Origin is a 403 and the session lives on; with the server's own, it ends", async () => {
    const { cookie } = await login(server, "owner@example.com");
    for (const origin of [null, "https://evil.example"]) {
      const res = await server.json("/api/v1/auth/logout", {
        method: "POST",
        headers: session(server, cookie!, origin),
      });
      expect([res.status, res.body.code, res.headers.get("set-cookie")]).toEqual([403, "CSRF", null]);
    }
    expect((await server.json("/api/v1/auth/me", { headers: { cookie: cookie! } })).status).toBe(200);
    expect(
      (await server.request("/api/v1/auth/logout", { method: "POST", headers: session(server, cookie!) })).status,
    ).toBe(204);
    expect((await server.json("/api/v1/auth/me", { headers: { cookie: cookie! } })).status).toBe(401);
  });
});

describe("the server's own origin", () => {
  test("is FORMSVC_PUBLIC_URL's when set, and an https one makes the session cookie Secure", async () => {
    const behind = await startTestServer({ config: { publicUrl: "https://forms.example.com/" } });
    try {
      await withPassword(behind, "owner@example.com");
      expect((await login(behind, "owner@example.com", PASSWORD)).status).toBe(403);
      const res = await login(behind, "owner@example.com", PASSWORD, { origin: "https://forms.example.com" });
      expect(res.status).toBe(200);
      expect(res.setCookie!.split(";").map((a) => a.trim())).toContain("Secure");
      const out = await behind.request("/api/v1/auth/logout", {
        method: "POST",
        headers: session(behind, res.cookie!, "https://forms.example.com"),
      });
      expect(out.status).toBe(204);
      expect(
        out.headers
          .get("set-cookie")!
          .split(";")
          .map((a) => a.trim()),
      ).toContain("Secure");
    } finally {
      await behind.close();
    }
  });

  test("an http FORMSVC_PUBLIC_URL leaves the cookie without Secure", async () => {
    const plain = await startTestServer({ config: { publicUrl: "http://forms.internal:8080" } });
    try {
      await withPassword(plain, "owner@example.com");
      const res = await login(plain, "owner@example.com", PASSWORD, { origin: "http://forms.internal:8080" });
      expect(res.status).toBe(200);
      expect(res.setCookie!.split(";").map((a) => a.trim())).not.toContain("Secure");
    } finally {
      await plain.close();
    }
  });

  test("without it, is the request's Host, with https only when a trusted proxy says so in X-Forwarded-Proto", async () => {
    const https = server.url.replace("http:", "https:");
    expect(
      (await login(server, "owner@example.com", PASSWORD, { origin: https, headers: { "x-forwarded-proto": "https" } }))
        .status,
    ).toBe(403);
    const proxied = await startTestServer({ config: { trustProxy: true } });
    try {
      await withPassword(proxied, "owner@example.com");
      const viaProxy = { "x-forwarded-proto": "https" };
      expect(
        (
          await login(proxied, "owner@example.com", PASSWORD, {
            origin: proxied.url.replace("http:", "https:"),
            headers: viaProxy,
          })
        ).status,
      ).toBe(200);
      expect(
        (await login(proxied, "owner@example.com", PASSWORD, { origin: proxied.url, headers: viaProxy })).status,
      ).toBe(403);
    } finally {
      await proxied.close();
    }
  });
});

describe("the public endpoints", () => {
  test("take no session: a session on POST /forms/submit is a 401 without a key and stores nothing, as JSON or as a form post", async () => {
    const { cookie } = await login(server, "owner@example.com");
    // With a trailing slash too: the router serves it as submit.
    for (const path of ["/api/v1/forms/submit", "/api/v1/forms/submit/"]) {
      const json = await server.json(path, {
        method: "POST",
        headers: { ...session(server, cookie!), "content-type": "application/json" },
        body: JSON.stringify({ formId: owner.formId, data: { message: "hi" } }),
      });
      expect([path, json.status, json.body.code, json.body.error]).toEqual([
        path,
        401,
        "UNAUTHORIZED",
        "missing API key: send it in the X-API-Key header",
      ]);
    }
    const form = await server.json("/api/v1/forms/submit", {
      method: "POST",
      headers: {
        ...session(server, cookie!, "https://evil.example"),
        "content-type": "application/x-www-form-urlencoded",
      },
      body: new URLSearchParams({ formId: owner.formId, message: "hi" }).toString(),
    });
    expect(form.status).toBe(401);
    expect((await server.query("SELECT count(*) AS n FROM submissions"))[0].n).toBe(0);
  });

  test("GET /forms/{formId}/challenge with a session and no key is a 401", async () => {
    const { cookie } = await login(server, "owner@example.com");
    const res = await server.json(`/api/v1/forms/${owner.formId}/challenge`, { headers: session(server, cookie!) });
    expect([res.status, res.body.code]).toEqual([401, "UNAUTHORIZED"]);
  });
});
