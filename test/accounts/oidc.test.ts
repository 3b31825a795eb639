import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createSign, generateKeyPairSync, randomBytes, type KeyObject } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import Provider from "oidc-provider";
import * as OTPAuth from "otpauth";
import { loadConfig } from "../../src/config";
import { createLogger } from "../../src/lib/log";
import type { SsoRefusal } from "../../src/modules/accounts/oidc";
import { personalTeamId } from "../../src/lib/rights";
import { launchBrowser, type TestBrowser } from "../helpers/browser";
import { startTestServer, type TestServer } from "../helpers/harness";

/**
 * OpenID Connect sign-in against a real provider (oidc-provider, on loopback, its development
 * login and consent pages): the flow is driven over HTTP as a browser would, cookies and all.
 */

const CLIENT_ID = "formsvc";
const CLIENT_SECRET = "a client secret long enough for HS256 signing";
const TEAM = "team_oidc";

/** Each login the provider's development page accepts (any password), with the claims it gives. */
const PEOPLE: Record<string, { email: string; email_verified: boolean }> = {
  ada: { email: "Ada@Example.com", email_verified: true },
  unverified: { email: "eve@example.com", email_verified: false },
  outsider: { email: "mallory@elsewhere.org", email_verified: true },
  grace: { email: "grace@example.com", email_verified: true },
  stranger: { email: "trent@elsewhere.org", email_verified: true },
  otto: { email: "otto@example.com", email_verified: true },
};

/** The provider's signing key (its JWKS), so that a test can mint what a provider could send. */
const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
const SIGNING_KEY = { ...privateKey.export({ format: "jwk" }), kid: "test", alg: "RS256", use: "sig" };

/** While set, every ID token the token endpoint answers is re-made with these claims, signed with `key` (default the provider's). */
let rewrite: { claims: (c: Record<string, unknown>) => Record<string, unknown>; key?: KeyObject } | null = null;

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");
function remint(jwt: string, change: NonNullable<typeof rewrite>): string {
  const [header, payload] = jwt.split(".");
  const claims = change.claims(JSON.parse(Buffer.from(payload!, "base64url").toString()));
  const input = `${header}.${b64(claims)}`;
  return `${input}.${createSign("RSA-SHA256")
    .update(input)
    .sign(change.key ?? privateKey, "base64url")}`;
}

let provider: Server;
let issuer: string;
let server: TestServer;
let chromium: TestBrowser | undefined;
/** The server's log: where the detail of a refusal goes (the login page is told only its reason). */
const logLines: string[] = [];
const lastRefusal = (): string =>
  JSON.parse(logLines.filter((l) => l.includes('"oidc sign-in refused"')).at(-1) ?? "{}").detail ?? "";

beforeAll(async () => {
  let handler: ReturnType<Provider["callback"]> | null = null;
  provider = createServer((req, res) => {
    const change = rewrite;
    if (change && req.method === "POST" && req.url?.startsWith("/token")) {
      const end = res.end.bind(res) as (chunk?: unknown) => typeof res;
      res.end = ((chunk?: unknown) => {
        const body = typeof chunk === "string" || Buffer.isBuffer(chunk) ? JSON.parse(String(chunk)) : null;
        if (!body?.id_token) return end(chunk);
        const text = JSON.stringify({ ...body, id_token: remint(body.id_token, change) });
        res.setHeader("content-length", Buffer.byteLength(text));
        return end(text);
      }) as typeof res.end;
    }
    handler!(req, res);
  });
  await new Promise<void>((resolve) => provider.listen(0, "127.0.0.1", resolve));
  issuer = `http://127.0.0.1:${(provider.address() as AddressInfo).port}`;
  server = await startTestServer({
    log: createLogger("debug", (l) => void logLines.push(l)),
    config: {
      oidcIssuer: issuer,
      oidcClientId: CLIENT_ID,
      oidcClientSecret: CLIENT_SECRET,
      oidcName: "Example SSO",
      oidcAllowedDomains: "example.com",
      oidcTeam: TEAM,
      oidcRole: "editor",
      secretKey: randomBytes(32).toString("base64"),
    },
  });
  const oidc = new Provider(issuer, {
    clients: [
      {
        client_id: CLIENT_ID,
        client_secret: CLIENT_SECRET,
        redirect_uris: [`${server.url}/api/v1/auth/oidc/callback`],
        grant_types: ["authorization_code"],
        response_types: ["code"],
      },
    ],
    claims: { openid: ["sub"], email: ["email", "email_verified"] },
    findAccount: (_ctx: unknown, id: string) => ({
      accountId: id,
      claims: () => ({ sub: id, ...PEOPLE[id] }),
    }),
    features: { devInteractions: { enabled: true } },
    pkce: { required: () => true },
    cookies: { keys: ["test cookie key"] },
    jwks: { keys: [SIGNING_KEY] },
    ttl: { Interaction: 600, Session: 600, Grant: 600, AccessToken: 600, IdToken: 600 },
  });
  handler = oidc.callback();
  const at = new Date().toISOString();
  await server.exec("INSERT INTO teams (id, name, personal_of, created_at) VALUES (?, ?, NULL, ?)", TEAM, "Staff", at);
});

afterAll(async () => {
  await chromium?.close();
  await server?.close();
  provider?.close();
  provider?.closeAllConnections();
});

/** Cookies per origin, as a browser keeps them (paths and lifetimes aside: these tests need neither). */
function browser() {
  const jar = new Map<string, Map<string, string>>();
  const get = async (url: string, init: RequestInit = {}) => {
    const origin = new URL(url).origin;
    const cookies = jar.get(origin) ?? new Map<string, string>();
    jar.set(origin, cookies);
    const res = await fetch(url, {
      ...init,
      redirect: "manual",
      headers: {
        ...(init.headers as Record<string, string>),
        cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join("; "),
      },
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair = ""] = line.split(";");
      const eq = pair.indexOf("=");
      const [name, value] = [pair.slice(0, eq), pair.slice(eq + 1)];
      if (/max-age=0|expires=thu, 01 jan 1970/i.test(line) || value === "") cookies.delete(name);
      else cookies.set(name, value);
    }
    return res;
  };
  return { get, cookies: (origin: string) => jar.get(origin) ?? new Map<string, string>() };
}

/**
 * Starts at formsvc, signs in at the provider as `login` and consents; answers the callback URL the
 * provider sends the browser back to (not yet followed), and the browser.
 */
async function throughProvider(login: string) {
  const b = browser();
  const start = await b.get(`${server.url}/api/v1/auth/oidc/start`);
  expect(start.status).toBe(302);
  let url = new URL(start.headers.get("location")!, server.url).href;
  expect(url.startsWith(`${issuer}/`)).toBe(true);
  for (let hops = 0; hops < 20; hops++) {
    if (url.startsWith(`${server.url}/api/v1/auth/oidc/callback`)) return { callback: url, b };
    let res = await b.get(url);
    if (res.status === 200) {
      const page = await res.text();
      const action = /action="([^"]+)"/.exec(page)![1]!;
      const prompt = /name="prompt" value="(\w+)"/.exec(page)![1]!;
      const form = new URLSearchParams({ prompt, ...(prompt === "login" ? { login, password: "any" } : {}) });
      res = await b.get(new URL(action, url).href, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: form.toString(),
      });
    }
    expect([302, 303]).toContain(res.status);
    url = new URL(res.headers.get("location")!, url).href;
  }
  throw new Error("the provider never sent the browser back");
}

const owner = (email: string) => server.query<{ id: string }>("SELECT id FROM owners WHERE email = ?", email);

describe("OpenID Connect sign-in", () => {
  test("the login page is told to offer it, by its name", async () => {
    const res = await server.json("/api/v1/auth/providers");
    expect(res.status).toBe(200);
    expect(res.body.oidc).toEqual({ name: "Example SSO", start: "/api/v1/auth/oidc/start" });
  });

  test("start sends the browser to the provider with PKCE, state and nonce, kept in a signed HttpOnly cookie", async () => {
    const res = await browser().get(`${server.url}/api/v1/auth/oidc/start`);
    const to = new URL(res.headers.get("location")!);
    expect(to.searchParams.get("code_challenge_method")).toBe("S256");
    expect(to.searchParams.get("code_challenge")).toMatch(/^[\w-]{43}$/);
    expect(to.searchParams.get("state")).toBeTruthy();
    expect(to.searchParams.get("nonce")).toBeTruthy();
    expect(to.searchParams.get("redirect_uri")).toBe(`${server.url}/api/v1/auth/oidc/callback`);
    const cookie = res.headers.get("set-cookie")!;
    expect(cookie).toMatch(
      /^formsvc_oidc=[\w-]+\.[\w-]+; Max-Age=600; Path=\/api\/v1\/auth\/oidc; HttpOnly; SameSite=Lax/,
    );
    // Only its signature is the secret: nothing is stored for a sign-in that is only begun.
    expect(cookie).not.toContain(to.searchParams.get("state")!);
  });

  test("a person new to formsvc signs in, is made with their personal team, joins the team with the role, and lands logged in", async () => {
    expect(await owner("ada@example.com")).toEqual([]);
    const { callback, b } = await throughProvider("ada");
    const res = await b.get(callback);
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/dashboard");
    // The session arrives, and the begun sign-in's cookie goes.
    expect(b.cookies(server.url).has("formsvc_session")).toBe(true);
    expect(b.cookies(server.url).has("formsvc_oidc")).toBe(false);
    const me = await b.get(`${server.url}/api/v1/auth/me`);
    expect(me.status).toBe(200);
    expect(((await me.json()) as { email: string }).email).toBe("ada@example.com");
    const [ada] = await owner("ada@example.com");
    const roles = await server.query<{ team_id: string; role: string }>(
      "SELECT team_id, role FROM team_members WHERE owner_id = ? ORDER BY role",
      ada!.id,
    );
    expect(roles).toEqual([
      { team_id: TEAM, role: "editor" },
      { team_id: personalTeamId(ada!.id), role: "owner" },
    ]);

    // A second sign-in is the same person: matched by email, not made again, not added again.
    const again = await throughProvider("ada");
    expect((await again.b.get(again.callback)).headers.get("location")).toBe("/dashboard");
    expect(await owner("ada@example.com")).toHaveLength(1);
    expect(
      await server.query("SELECT role FROM team_members WHERE owner_id = ? AND team_id = ?", ada!.id, TEAM),
    ).toHaveLength(1);
  });

  test("a person with a TOTP second factor is asked for a code after the provider, as after a password", async () => {
    const first = await throughProvider("otto");
    await first.b.get(first.callback);
    const post = (b: typeof first.b, path: string, body?: unknown) =>
      b.get(`${server.url}/api/v1${path}`, {
        method: "POST",
        headers: { origin: server.url, "content-type": "application/json" },
        body: JSON.stringify(body ?? {}),
      });
    const started = (await (await post(first.b, "/auth/totp")).json()) as { uri: string };
    const totp = OTPAuth.URI.parse(started.uri) as OTPAuth.TOTP;
    expect((await post(first.b, "/auth/totp/confirm", { code: totp.generate() })).status).toBe(200);

    const again = await throughProvider("otto");
    const res = await again.b.get(again.callback);
    expect(res.status).toBe(302);
    const to = res.headers.get("location")!;
    expect(to).toStartWith("/dashboard#/login?challenge=");
    expect(again.b.cookies(server.url).has("formsvc_session")).toBe(false);
    expect(again.b.cookies(server.url).has("formsvc_oidc")).toBe(false);
    const challenge = new URLSearchParams(to.slice(to.indexOf("?"))).get("challenge")!;
    // The code of the step after the one used to enrol: each code logs in once.
    const code = totp.generate({ timestamp: Date.now() + 30_000 });
    const done = await post(again.b, "/auth/login/second-factor", { challenge, code });
    expect(done.status).toBe(200);
    expect(((await done.json()) as { email: string; totpEnabled: boolean }).totpEnabled).toBe(true);
    expect(again.b.cookies(server.url).has("formsvc_session")).toBe(true);
  });

  /** Sent back to the login page with only `reason`, no session; the log says why in detail. */
  const refused = async (res: Response, reason: SsoRefusal, why: RegExp) => {
    expect(res.status).toBe(302);
    const to = res.headers.get("location")!;
    expect(to).toBe(`/dashboard#/login?sso=${reason}`);
    expect(lastRefusal()).toMatch(why);
    expect(res.headers.getSetCookie().some((c) => c.startsWith("formsvc_session="))).toBe(false);
  };

  test("a tampered state is refused, and no session opens", async () => {
    const { callback, b } = await throughProvider("ada");
    const url = new URL(callback);
    url.searchParams.set("state", `${url.searchParams.get("state")}x`);
    await refused(await b.get(url.href), "unchecked", /state/);
  });

  test("a callback without the browser's begun sign-in (another browser's code) is refused", async () => {
    const { callback } = await throughProvider("ada");
    await refused(await browser().get(callback), "lapsed", /not started here/);
  });

  test("a forged pending cookie is refused", async () => {
    const { callback, b } = await throughProvider("ada");
    const jar = b.cookies(server.url);
    const [body, signature] = jar.get("formsvc_oidc")!.split(".");
    const forged = JSON.parse(Buffer.from(body!, "base64url").toString());
    forged.verifier = "a".repeat(43);
    jar.set("formsvc_oidc", `${Buffer.from(JSON.stringify(forged)).toString("base64url")}.${signature}`);
    await refused(await b.get(callback), "lapsed", /not started here/);
  });

  /** Signs in as Ada, the ID token re-made as `change` says: refused, and no session. */
  const withToken = async (change: NonNullable<typeof rewrite>, why: RegExp) => {
    const { callback, b } = await throughProvider("ada");
    rewrite = change;
    try {
      await refused(await b.get(callback), "unchecked", why);
    } finally {
      rewrite = null;
    }
  };

  test("an ID token for another client (audience) is refused", async () => {
    await withToken({ claims: (c) => ({ ...c, aud: "another-client" }) }, /"aud"/);
  });

  test("an ID token with another sign-in's nonce is refused", async () => {
    await withToken({ claims: (c) => ({ ...c, nonce: "a-nonce-of-another-sign-in" }) }, /nonce/);
  });

  test("an expired ID token is refused", async () => {
    const now = Math.floor(Date.now() / 1000);
    await withToken({ claims: (c) => ({ ...c, iat: now - 7200, exp: now - 3600 }) }, /"exp"/);
  });

  test("an ID token from another issuer is refused", async () => {
    await withToken({ claims: (c) => ({ ...c, iss: "https://evil.example" }) }, /"iss"/);
  });

  test("an ID token not signed with the issuer's keys (its JWKS) is refused", async () => {
    const other = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey;
    await withToken({ claims: (c) => c, key: other }, /signature/);
  });

  test("the untouched ID token passes the same path (the checks above fail for their reason)", async () => {
    const { callback, b } = await throughProvider("ada");
    rewrite = { claims: (c) => c };
    try {
      expect((await b.get(callback)).headers.get("location")).toBe("/dashboard");
    } finally {
      rewrite = null;
    }
  });

  test("an email the provider has not verified is refused, and no person is made", async () => {
    const { callback, b } = await throughProvider("unverified");
    await refused(await b.get(callback), "unverified", /not verified eve@example\.com/);
    expect(await owner("eve@example.com")).toEqual([]);
  });

  test("an email outside the allowed domains is refused, and no person is made", async () => {
    const { callback, b } = await throughProvider("outsider");
    await refused(await b.get(callback), "domain", /elsewhere\.org may not sign in/);
    expect(await owner("mallory@elsewhere.org")).toEqual([]);
  });
});

describe("OpenID Connect settings", () => {
  test("the issuer, client id and secret go together: one alone is a startup error naming all three", () => {
    expect(() => loadConfig({ FORMSVC_OIDC_ISSUER: "https://id.example.com" })).toThrow(
      /FORMSVC_OIDC_ISSUER, FORMSVC_OIDC_CLIENT_ID and FORMSVC_OIDC_CLIENT_SECRET .* together/,
    );
    expect(() =>
      loadConfig({
        FORMSVC_OIDC_ISSUER: "http://id.example.com",
        FORMSVC_OIDC_CLIENT_ID: "a",
        FORMSVC_OIDC_CLIENT_SECRET: "b",
      }),
    ).toThrow(/must be https/);
    expect(() => loadConfig({ FORMSVC_OIDC_ROLE: "boss" })).toThrow(/FORMSVC_OIDC_ROLE/);
  });

  test("a provider out of reach sends the browser back to the login page, saying so (no 500)", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const gone = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    closed.close();
    const down = await startTestServer({
      config: { oidcIssuer: gone, oidcClientId: "x", oidcClientSecret: "y" },
    });
    try {
      expect((await down.json("/api/v1/auth/providers")).body.oidc.name).toBe("127.0.0.1");
      const res = await fetch(`${down.url}/api/v1/auth/oidc/start`, { redirect: "manual" });
      expect(res.status).toBe(302);
      const to = res.headers.get("location")!;
      expect(to).toBe("/dashboard#/login?sso=unreachable");
      expect(res.headers.get("set-cookie")).toBeNull();
    } finally {
      await down.close();
    }
  });

  test("without them the login page offers no other way, and start is a 404", async () => {
    const plain = await startTestServer();
    try {
      expect((await plain.json("/api/v1/auth/providers")).body.oidc).toBeNull();
      const res = await plain.json("/api/v1/auth/oidc/start");
      expect(res.status).toBe(404);
      expect(res.body.code).toBe("NOT_FOUND");
    } finally {
      await plain.close();
    }
  });
});

describe("OpenID Connect sign-in in the browser", () => {
  /** From formsvc's login page through the provider's login and consent pages, as `login`. */
  async function signIn(login: string) {
    chromium ??= await launchBrowser();
    const tab = await chromium.newPage();
    const { page } = tab;
    await page.goto(`${server.url}/dashboard`);
    await page.getByRole("link", { name: "Sign in with Example SSO" }).click();
    await page.locator('input[name="login"]').fill(login);
    await page.locator('input[name="password"]').fill("any");
    await page.getByRole("button", { name: "Sign-in" }).click();
    await page.getByRole("button", { name: "Continue" }).click();
    return tab;
  }

  test("the login page's button leads through the provider's pages back to the dashboard, logged in", async () => {
    const tab = await signIn("grace");
    try {
      await tab.page.getByRole("button", { name: "Log out" }).waitFor();
      expect(new URL(tab.page.url()).pathname).toBe("/dashboard");
      const [grace] = await owner("grace@example.com");
      expect(
        await server.query("SELECT role FROM team_members WHERE owner_id = ? AND team_id = ?", grace!.id, TEAM),
      ).toEqual([{ role: "editor" }]);
    } finally {
      await tab.close();
    }
  });

  test("a link cannot put words of its own on the login page: only known reasons are shown", async () => {
    chromium ??= await launchBrowser();
    const tab = await chromium.newPage();
    try {
      await tab.page.goto(
        `${server.url}/dashboard#/login?sso=${encodeURIComponent("Your account is locked: call +1 555 0100")}&error=locked`,
      );
      await tab.page.getByRole("button", { name: "Log in" }).waitFor();
      expect(await tab.page.getByText("call +1 555 0100").count()).toBe(0);
      expect(await tab.page.getByRole("alert").count()).toBe(0);
    } finally {
      await tab.close();
    }
  });

  test("a refusal comes back to the login page, which says why", async () => {
    const tab = await signIn("stranger");
    try {
      await tab.page.getByRole("alert").getByText("People of your email's domain may not sign in here.").waitFor();
      expect(await tab.page.getByRole("button", { name: "Log in" }).isVisible()).toBe(true);
      expect(await owner("trent@elsewhere.org")).toEqual([]);
    } finally {
      await tab.close();
    }
  });
});
