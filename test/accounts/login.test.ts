import { beforeAll, describe, expect, test } from "bun:test";
import { createLogger } from "../../src/lib/log";
import { useServer } from "../helpers/fixture";
import { runCliAsync, seedOwner } from "../helpers/harness";
import { login, PASSWORD, session, withPassword } from "../helpers/accounts";

const logLines: string[] = [];
const server = useServer({ log: createLogger("info", (l) => void logLines.push(l)) });
const owner = server.seed("owner@example.com");
const other = server.seed("other@example.com");

beforeAll(async () => {
  await withPassword(server, "owner@example.com");
  await withPassword(server, "other@example.com");
});

const me = (cookie: string, headers: Record<string, string> = {}) =>
  server.json("/api/v1/auth/me", { headers: { cookie, ...headers } });
const formsList = (headers: Record<string, string>) => server.json("/api/v1/forms/list", { headers });
const logout = (cookie: string, origin: string | null = server.url) =>
  server.request("/api/v1/auth/logout", { method: "POST", headers: session(server, cookie, origin) });

describe("POST /auth/login", () => {
  test("answers the owner and sets an HttpOnly, SameSite=Lax session cookie on / that is not Secure over plain http", async () => {
    const res = await login(server, "Owner@Example.com");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: owner.ownerId,
      email: "owner@example.com",
      createdAt: expect.any(String),
      timeZone: "UTC",
      smtpConfigured: false,
      totpEnabled: false,
      recoveryCodesLeft: 0,
    });
    const attributes = res.setCookie!.split(";").map((a) => a.trim());
    expect(attributes[0]).toMatch(/^formsvc_session=fss_[A-Za-z0-9_-]{43}$/);
    expect(attributes.slice(1).sort()).toEqual(["HttpOnly", "Max-Age=2592000", "Path=/", "SameSite=Lax"]);
    expect(res.headers.get("cache-control")).toBe("no-store");
  });

  test("writes each login to the audit trail as the session it starts, never the password", async () => {
    const before = (await server.query("SELECT count(*) AS n FROM audit_events WHERE action = 'owner.login'"))[0].n;
    expect((await login(server, "owner@example.com")).status).toBe(200);
    const rows = await server.query("SELECT * FROM audit_events WHERE action = 'owner.login' ORDER BY id DESC");
    expect(rows.length).toBe(before + 1);
    expect(rows[0].actor_kind).toBe("session");
    expect(rows[0].actor_id).toMatch(/^ses_/);
    expect(JSON.stringify(rows)).not.toContain(PASSWORD);
  });

  test("stores only the SHA-256 of the session token", async () => {
    const { cookie } = await login(server, "owner@example.com");
    const token = cookie!.split("=")[1]!;
    const rows = await server.query<{ id: string; token_hash: string }>(
      "SELECT id, token_hash FROM sessions WHERE owner_id = ?",
      owner.ownerId,
    );
    expect(rows.map((r) => r.token_hash)).toContain(new Bun.CryptoHasher("sha256").update(token).digest("hex"));
    expect(JSON.stringify(rows)).not.toContain(token);
  });

  test("a wrong password, an unknown email and an owner without a password get the same 401", async () => {
    await seedOwner(server, "nopassword@example.com");
    const answers = await Promise.all([
      login(server, "owner@example.com", "not the right password"),
      login(server, "nobody@example.com", PASSWORD),
      login(server, "nopassword@example.com", PASSWORD),
    ]);
    for (const res of answers) {
      expect([res.status, res.body.code, res.body.error, res.setCookie]).toEqual([
        401,
        "UNAUTHORIZED",
        "wrong email or password",
        null,
      ]);
    }
  });

  test("must come from the server's own origin: a missing or foreign Origin is a 403 and opens no session", async () => {
    for (const origin of [null, "https://evil.example", "null"]) {
      const res = await login(server, "owner@example.com", PASSWORD, { origin });
      expect([res.status, res.body.code, res.setCookie]).toEqual([403, "CSRF", null]);
    }
  });

  test("a body without an email or password is a 400", async () => {
    const res = await server.json("/api/v1/auth/login", {
      method: "POST",
      headers: { "content-type": "application/json", origin: server.url },
      body: JSON.stringify({ email: "owner@example.com" }),
    });
    expect([res.status, res.body.code]).toEqual([400, "INVALID_PARAMETER"]);
  });

  test("takes other fields beside email and password, as documented, and names what is wrong in a body that has some", async () => {
    const post = (body: unknown) =>
      server.json("/api/v1/auth/login", {
        method: "POST",
        headers: { "content-type": "application/json", origin: server.url },
        body: JSON.stringify(body),
      });
    expect((await post({ email: "owner@example.com", password: PASSWORD, remember: true })).status).toBe(200);
    const wrong = await post({ email: 5, password: PASSWORD, remember: true });
    expect([wrong.status, wrong.body.error]).toEqual([400, (await post({ email: 5, password: PASSWORD })).body.error]);
    expect(wrong.body.error).not.toContain("remember");
  });

  test("with a session already in the cookie, ends that one", async () => {
    const first = (await login(server, "owner@example.com")).cookie!;
    const second = await login(server, "owner@example.com", PASSWORD, { headers: { cookie: first } });
    expect(second.status).toBe(200);
    expect((await me(first)).status).toBe(401);
    expect((await me(second.cookie!)).status).toBe(200);
  });
});

describe("a session", () => {
  test("GET /auth/me answers its owner; without a session, or with only an API key, it is a 401", async () => {
    const { cookie } = await login(server, "owner@example.com");
    const res = await me(cookie!);
    expect([res.status, res.body.email]).toEqual([200, "owner@example.com"]);
    expect((await server.json("/api/v1/auth/me")).status).toBe(401);
    expect((await server.json("/api/v1/auth/me", { key: owner.key })).status).toBe(401);
  });

  test("PATCH /auth/me sets the owner's time zone by its IANA name; an unknown zone, an offset or another field is a 400 that changes nothing", async () => {
    const { cookie } = await login(server, "owner@example.com");
    const patch = (body: unknown, headers: Record<string, string> = session(server, cookie!)) =>
      server.json("/api/v1/auth/me", {
        method: "PATCH",
        headers: { ...headers, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const set = await patch({ timeZone: "america/new_york" });
    expect([set.status, set.body.timeZone, set.body.email]).toEqual([200, "America/New_York", "owner@example.com"]);
    for (const bad of [{ timeZone: "Mars/Olympus" }, { timeZone: "+01:00" }, { timeZone: "" }, { email: "x@y.z" }]) {
      const res = await patch(bad);
      expect([res.status, typeof res.body.error]).toEqual([400, "string"]);
    }
    expect((await patch({ timeZone: "UTC" }, session(server, cookie!, "https://evil.example"))).status).toBe(403);
    expect((await patch({ timeZone: "UTC" }, { "x-api-key": owner.key })).status).toBe(401);
    expect((await me(cookie!)).body.timeZone).toBe("America/New_York");
    expect(await patch({})).toMatchObject({ status: 200, body: { timeZone: "America/New_York" } });
    await patch({ timeZone: "UTC" });
  });

  test("reads its owner's forms as a secret key does, and only theirs", async () => {
    const { cookie } = await login(server, "owner@example.com");
    const list = await formsList({ cookie: cookie! });
    expect(list.status).toBe(200);
    expect(list.body.forms.map((f: { id: string }) => f.id)).toEqual([owner.formId]);
    expect((await server.json(`/api/v1/forms/${other.formId}`, { headers: { cookie: cookie! } })).status).toBe(403);
    expect(
      (await server.json(`/api/v1/forms/${owner.formId}/submissions`, { headers: { cookie: cookie! } })).status,
    ).toBe(200);
  });

  test("gives way to an API key: a wrong key with a good session cookie is a 401, another owner's key sees that owner's forms", async () => {
    const { cookie } = await login(server, "owner@example.com");
    expect((await formsList({ cookie: cookie!, "x-api-key": "fsk_wrong" })).status).toBe(401);
    const theirs = await formsList({ cookie: cookie!, "x-api-key": other.key });
    expect(theirs.body.forms.map((f: { id: string }) => f.id)).toEqual([other.formId]);
  });

  test("is rate limited on its own bucket, not its address's", async () => {
    const { cookie } = await login(server, "owner@example.com");
    const withSession = await server.request("/api/v1/forms/list", { headers: { cookie: cookie! } });
    const keyless = await server.request("/api/v1/forms/list");
    // A fresh bucket of the default 120 for the new session; the address has spent on the logins before.
    expect(withSession.headers.get("x-ratelimit-remaining")).toBe("119");
    expect(Number(keyless.headers.get("x-ratelimit-remaining"))).toBeLessThan(119);
  });

  test("is refused after logout, which answers 204 and clears the cookie", async () => {
    const { cookie } = await login(server, "owner@example.com");
    const res = await logout(cookie!);
    expect(res.status).toBe(204);
    expect(
      res.headers
        .get("set-cookie")!
        .split(";")
        .map((a) => a.trim())
        .sort(),
    ).toEqual(["HttpOnly", "Max-Age=0", "Path=/", "SameSite=Lax", "formsvc_session="]);
    const after = await formsList({ cookie: cookie! });
    expect([after.status, after.body.error]).toEqual([
      401,
      "the login session has expired or ended: log in again, or send an API key in the X-API-Key header",
    ]);
    expect((await me(cookie!)).status).toBe(401);
    expect((await logout(cookie!)).status).toBe(401);
  });

  test("ends at logout whatever body comes with it: logout reads none", async () => {
    const { cookie } = await login(server, "owner@example.com");
    const res = await server.request("/api/v1/auth/logout", {
      method: "POST",
      headers: { ...session(server, cookie!), "content-type": "application/json" },
      body: "{not json",
    });
    expect(res.status).toBe(204);
    expect((await me(cookie!)).status).toBe(401);
  });

  test("is refused by a running server from the next request after owners sessions revoke, every session of that owner and no other", async () => {
    const a = (await login(server, "owner@example.com")).cookie!;
    const b = (await login(server, "owner@example.com")).cookie!;
    const theirs = (await login(server, "other@example.com")).cookie!;
    expect((await formsList({ cookie: a })).status).toBe(200);
    const res = await runCliAsync(["owners", "sessions", "revoke", "owner@example.com", "--json"], { db: server.db });
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout).sessionsEnded).toBeGreaterThanOrEqual(2);
    expect((await formsList({ cookie: a })).status).toBe(401);
    expect((await formsList({ cookie: b })).status).toBe(401);
    expect((await formsList({ cookie: theirs })).status).toBe(200);
  });

  test("gets Set-Cookie only from login and logout", async () => {
    const { cookie } = await login(server, "owner@example.com");
    for (const res of [
      await server.request("/api/v1/forms/list", { headers: { cookie: cookie! } }),
      await server.request("/api/v1/auth/me", { headers: { cookie: cookie! } }),
      await server.request("/api/v1/auth/me", { headers: { cookie: "formsvc_session=fss_unknown" } }),
    ]) {
      expect(res.headers.get("set-cookie")).toBeNull();
      await res.text();
    }
  });

  test("never appears in the request log, nor does the password", async () => {
    const { cookie } = await login(server, "owner@example.com");
    await formsList({ cookie: cookie! });
    await logout(cookie!);
    await login(server, "owner@example.com", "a wrong password here");
    await Bun.sleep(10);
    const all = logLines.join("");
    expect(all).toContain('"route":"/api/v1/auth/login"');
    expect(all).not.toContain(cookie!.split("=")[1]!);
    // Not inside a request id (base64url, where "fss_" turns up about once in 50,000 runs of this file).
    expect(all).not.toMatch(/(?<![A-Za-z0-9_-])fss_/);
    expect(all).not.toContain(PASSWORD);
    expect(all).not.toContain("a wrong password here");
  });
});

describe("the OpenAPI document", () => {
  test("shows login taking no key, logout and me taking the session cookie, and the API taking a key or the session", async () => {
    const doc = await (await server.fetch(`${server.url}/api/v1/openapi.json`)).json();
    expect(doc.components.securitySchemes.sessionCookie).toMatchObject({
      type: "apiKey",
      in: "cookie",
      name: "formsvc_session",
    });
    expect(doc.paths["/api/v1/auth/login"].post.security).toEqual([]);
    expect(doc.paths["/api/v1/auth/logout"].post.security).toEqual([{ sessionCookie: [] }]);
    expect(doc.paths["/api/v1/auth/me"].get.security).toEqual([{ sessionCookie: [] }]);
    expect(doc.paths["/api/v1/forms/list"].get.security).toContainEqual({ sessionCookie: [] });
    expect(doc.paths["/api/v1/forms/submit"].post.security).not.toContainEqual({ sessionCookie: [] });
  });
});
