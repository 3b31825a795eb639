import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import type { CDPSession, Page } from "playwright-core";
import { createLogger } from "../../src/lib/log";
import { PASSWORD, withPassword } from "../helpers/accounts";
import { launchBrowser, screenshot, type OfflinePage, type TestBrowser } from "../helpers/browser";
import { runCliAsync, seedKey, startTestServer, type TestServer } from "../helpers/harness";
import { freePort } from "../helpers/smtp-sink";

/**
 * Passkeys with real WebAuthn ceremonies: Chromium's virtual authenticator (DevTools protocol) makes
 * and signs with the credentials, on pages of the server's own origin, `http://localhost:PORT`
 * (a secure context). A second server, `http://other.localhost:PORT2`, is another relying party.
 * FORMSVC_REQUIRE_2FA is on: a password session reaches only enrolment, which a passkey is.
 */

const logLines: string[] = [];
let server: TestServer;
let other: TestServer;
let origin: string;
let otherOrigin: string;
let chromium: TestBrowser;
const tabs: OfflinePage[] = [];

/** A device: a page of `site` with its own virtual authenticator (user verification on, unless told). */
interface Device {
  page: Page;
  cdp: CDPSession;
  authenticatorId: string;
}

async function device(site: string, verifies = true): Promise<Device> {
  const tab = await chromium.newPage();
  tabs.push(tab);
  await tab.page.goto(`${site}/api/v1/auth/providers`);
  const cdp = await tab.context.newCDPSession(tab.page);
  await cdp.send("WebAuthn.enable");
  const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport: "internal",
      hasResidentKey: verifies,
      hasUserVerification: verifies,
      isUserVerified: verifies,
      automaticPresenceSimulation: true,
    },
  });
  return { page: tab.page, cdp, authenticatorId };
}

/** What the browser answers to registration options (the JSON the API takes), as @simplewebauthn/browser sends it. */
const create = (d: Device, options: unknown): Promise<any> =>
  d.page.evaluate(async (o) => {
    const credential = (await navigator.credentials.create({
      publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(o as PublicKeyCredentialCreationOptionsJSON),
    })) as PublicKeyCredential;
    return credential.toJSON();
  }, options);

const get = (d: Device, options: unknown): Promise<any> =>
  d.page.evaluate(async (o) => {
    const credential = (await navigator.credentials.get({
      publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(o as PublicKeyCredentialRequestOptionsJSON),
    })) as PublicKeyCredential;
    return credential.toJSON();
  }, options);

/** A JSON request from the server's own page (Origin), with the session `cookie` if any. */
function call(method: string, path: string, cookie: string | null, body?: unknown, at = server) {
  return at.json(`/api/v1${path}`, {
    method,
    headers: {
      origin: at === server ? origin : otherOrigin,
      ...(cookie ? { cookie } : {}),
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
  });
}

async function passwordSession(email: string, at = server): Promise<string> {
  const res = await call("POST", "/auth/login", null, { email, password: PASSWORD }, at);
  expect(res.status).toBe(200);
  return res.headers.get("set-cookie")!.split(";")[0]!;
}

/** Registers a passkey named `name` for the session's person with the device; the API's answer. */
async function register(d: Device, cookie: string, name: string, at = server) {
  const options = await call("POST", "/auth/passkeys/options", cookie, undefined, at);
  expect(options.status).toBe(200);
  return call("POST", "/auth/passkeys", cookie, { name, response: await create(d, options.body) }, at);
}

/** A login assertion from the device for a fresh login challenge of `at`. */
async function assertion(d: Device, at = server, change: (o: any) => any = (o) => o) {
  const options = await call("POST", "/auth/passkeys/login/options", null, {}, at);
  expect(options.status).toBe(200);
  return get(d, change(options.body));
}

const signIn = (response: unknown) => call("POST", "/auth/passkeys/login", null, { response });

const ownerId = async (email: string) =>
  (await server.query<{ id: string }>("SELECT id FROM owners WHERE email = ?", email))[0]!.id;

beforeAll(async () => {
  const [port, otherPort] = [await freePort(), await freePort()];
  origin = `http://localhost:${port}`;
  otherOrigin = `http://other.localhost:${otherPort}`;
  server = await startTestServer({
    config: { port, publicUrl: origin, require2fa: true, secretKey: randomBytes(32).toString("base64") },
    log: createLogger("debug", (l) => void logLines.push(l)),
  });
  other = await startTestServer({ config: { port: otherPort, publicUrl: otherOrigin } });
  for (const email of ["ada@example.com", "bob@example.com"]) await withPassword(server, email);
  await withPassword(other, "ada@example.com");
  chromium = await launchBrowser();
});

afterAll(async () => {
  for (const tab of tabs) await tab.close();
  await chromium?.close();
  await server?.close();
  await other?.close();
});

let laptop: Device;
let phone: Device;
let bobDevice: Device;

describe("registering passkeys", () => {
  test("a password session under FORMSVC_REQUIRE_2FA registers a passkey as its enrolment; the list shows names, never keys", async () => {
    laptop = await device(origin);
    phone = await device(origin);
    const cookie = await passwordSession("ada@example.com");
    expect((await call("GET", "/keys", cookie)).body.code).toBe("SECOND_FACTOR_ENROLMENT_REQUIRED");
    expect((await call("GET", "/auth/passkeys", cookie)).body).toEqual([]);

    const options = await call("POST", "/auth/passkeys/options", cookie);
    expect(options.body.rp).toEqual({ id: "localhost", name: "formsvc" });
    expect(options.body.authenticatorSelection).toMatchObject({
      residentKey: "required",
      userVerification: "required",
    });
    const handle = Buffer.from(options.body.user.id, "base64url").toString("latin1");
    expect(handle).not.toContain("ada@");
    const first = await call("POST", "/auth/passkeys", cookie, {
      name: " Laptop ",
      response: await create(laptop, options.body),
    });
    expect([first.status, first.body.name, first.body.lastUsedAt]).toEqual([200, "Laptop", null]);
    // The session has now proved a second factor.
    expect((await call("GET", "/keys", cookie)).status).toBe(200);

    // The laptop's passkey is excluded from the next registration: the second is the phone's.
    const again = await call("POST", "/auth/passkeys/options", cookie);
    expect(again.body.excludeCredentials.map((c: { id: string }) => c.id)).toEqual([
      (await server.query("SELECT credential_id FROM passkeys"))[0].credential_id,
    ]);
    const second = await call("POST", "/auth/passkeys", cookie, {
      name: "Phone",
      response: await create(phone, again.body),
    });
    expect(second.status).toBe(200);

    const list = await call("GET", "/auth/passkeys", cookie);
    expect(list.body.map((p: any) => [p.name, Object.keys(p).sort()])).toEqual([
      ["Laptop", ["createdAt", "id", "lastUsedAt", "name"]],
      ["Phone", ["createdAt", "id", "lastUsedAt", "name"]],
    ]);
    const stored = await server.query("SELECT owner_id, counter, public_key FROM passkeys ORDER BY created_at");
    expect(stored.map((r) => r.owner_id)).toEqual([await ownerId("ada@example.com"), await ownerId("ada@example.com")]);
    expect(stored.every((r) => r.public_key.length > 40)).toBe(true);
  });

  test("a registration's challenge works once, and only for the person it was made for", async () => {
    const ada = await passwordSession("ada@example.com");
    // Ada's session has no second factor, and she has passkeys: she proves it with one, not by adding another.
    const held = await call("POST", "/auth/passkeys/options", ada);
    expect([held.status, held.body.code]).toEqual([403, "SECOND_FACTOR_ENROLMENT_REQUIRED"]);

    const bob = await passwordSession("bob@example.com");
    bobDevice = await device(origin);
    const options = await call("POST", "/auth/passkeys/options", bob);
    const response = await create(bobDevice, options.body);
    const first = await call("POST", "/auth/passkeys", bob, { name: "Key", response });
    expect(first.status).toBe(200);
    const replay = await call("POST", "/auth/passkeys", bob, { name: "Key again", response });
    expect([replay.status, replay.body.code]).toEqual([400, "INVALID_PARAMETER"]);
    expect(
      await server.query("SELECT name FROM passkeys WHERE owner_id = ?", await ownerId("bob@example.com")),
    ).toEqual([{ name: "Key" }]);
  });

  test("a password session of a person with passkeys cannot enrol TOTP in their place either", async () => {
    const bob = await passwordSession("bob@example.com");
    expect((await call("GET", "/keys", bob)).body.code).toBe("SECOND_FACTOR_ENROLMENT_REQUIRED");
    const totp = await call("POST", "/auth/totp", bob);
    expect([totp.status, totp.body.code]).toEqual([403, "SECOND_FACTOR_ENROLMENT_REQUIRED"]);
    expect(await server.query("SELECT owner_id FROM totp_secrets")).toEqual([]);
  });

  test("an answer made on another site (another origin and relying party) is refused", async () => {
    const stranger = await device(otherOrigin);
    const cookie = (await signIn(await assertion(laptop))).headers.get("set-cookie")!.split(";")[0]!;
    const options = await call("POST", "/auth/passkeys/options", cookie);
    const response = await create(stranger, { ...options.body, rp: { id: "other.localhost", name: "x" } });
    const refused = await call("POST", "/auth/passkeys", cookie, { name: "Elsewhere", response });
    expect([refused.status, refused.body.code]).toEqual([400, "INVALID_PARAMETER"]);
    expect(refused.body.error).toMatch(/origin/i);
    expect((await call("GET", "/auth/passkeys", cookie)).body).toHaveLength(2);
  });

  test("user verification not performed is refused", async () => {
    const cookie = (await signIn(await assertion(laptop))).headers.get("set-cookie")!.split(";")[0]!;
    const lax = await device(origin, false);
    const options = await call("POST", "/auth/passkeys/options", cookie);
    const response = await create(lax, {
      ...options.body,
      // An authenticator that cannot verify its user makes no discoverable credential: a plain one, to get an answer at all.
      authenticatorSelection: {
        residentKey: "discouraged",
        requireResidentKey: false,
        userVerification: "discouraged",
      },
    });
    const refused = await call("POST", "/auth/passkeys", cookie, { name: "No UV", response });
    expect([refused.status, refused.body.code]).toEqual([400, "INVALID_PARAMETER"]);
    expect(refused.body.error).toMatch(/user verification/i);
    expect((await call("GET", "/auth/passkeys", cookie)).body).toHaveLength(2);
  });
});

describe("logging in with a passkey", () => {
  test("a discoverable passkey logs its person in without a password, as a second factor, with the login's audit line", async () => {
    const options = await call("POST", "/auth/passkeys/login/options", null, {});
    expect([options.body.rpId, options.body.allowCredentials ?? [], options.body.userVerification]).toEqual([
      "localhost",
      [],
      "required",
    ]);
    const res = await signIn(await get(phone, options.body));
    expect([res.status, res.body.email]).toEqual([200, "ada@example.com"]);
    const cookie = res.headers.get("set-cookie")!.split(";")[0]!;
    expect((await call("GET", "/keys", cookie)).status).toBe(200);
    const [session] = await server.query(
      "SELECT id, second_factor FROM sessions WHERE owner_id = ? ORDER BY created_at DESC, id DESC LIMIT 1",
      await ownerId("ada@example.com"),
    );
    expect(session.second_factor).toBe(1);
    expect(await server.query("SELECT action FROM audit_events WHERE object_id = ?", session.id)).toEqual([
      { action: "owner.login" },
    ]);
    const list = (await call("GET", "/auth/passkeys", cookie)).body;
    expect(list.find((p: any) => p.name === "Phone").lastUsedAt).not.toBeNull();
  });

  test("a person with TOTP signs in with a passkey without a code: the passkey is the second factor", async () => {
    const bob = await ownerId("bob@example.com");
    await server.exec(
      "INSERT INTO totp_secrets (owner_id, ciphertext, created_at, confirmed_at) VALUES (?, 'sealed', ?, ?)",
      bob,
      new Date().toISOString(),
      new Date().toISOString(),
    );
    try {
      const password = await call("POST", "/auth/login", null, { email: "bob@example.com", password: PASSWORD });
      expect([password.status, password.body.code]).toEqual([401, "SECOND_FACTOR_REQUIRED"]);
      const res = await signIn(await assertion(bobDevice));
      expect([res.status, res.body.email, res.body.totpEnabled]).toEqual([200, "bob@example.com", true]);
    } finally {
      await server.exec("DELETE FROM totp_secrets WHERE owner_id = ?", bob);
    }
  });

  test("an assertion is accepted once: its replay is refused", async () => {
    const response = await assertion(laptop);
    expect((await signIn(response)).status).toBe(200);
    const replay = await signIn(response);
    expect([replay.status, replay.body.code]).toEqual([401, "UNAUTHORIZED"]);
  });

  test("a challenge lapses after 5 minutes: refused, and swept by the housekeeping job", async () => {
    const response = await assertion(phone);
    const [row] = await server.query<{ expires_at: string }>("SELECT expires_at FROM passkey_challenges");
    const lifetime = Date.parse(row!.expires_at) - Date.now();
    expect(lifetime).toBeGreaterThan(4 * 60_000);
    expect(lifetime).toBeLessThanOrEqual(5 * 60_000);
    await server.exec("UPDATE passkey_challenges SET expires_at = ?", new Date(Date.now() - 1000).toISOString());
    const late = await signIn(response);
    expect([late.status, late.body.code]).toEqual([401, "UNAUTHORIZED"]);
    expect(late.body.error).toMatch(/lapsed/);
    await call("POST", "/auth/passkeys/login/options", null, {});
    await server.exec(
      "INSERT INTO passkey_challenges (challenge_hash, owner_id, expires_at) VALUES ('old', NULL, ?)",
      new Date(Date.now() - 1000).toISOString(),
    );
    await server.jobs.run("forget-lapsed-passkey-challenges");
    expect(await server.query("SELECT count(*) AS n FROM passkey_challenges WHERE challenge_hash = 'old'")).toEqual([
      { n: 0 },
    ]);
    expect(await server.query("SELECT count(*) AS n FROM passkey_challenges")).toEqual([{ n: 1 }]);
  });

  test("another relying party's passkey, signing this server's challenge, is refused", async () => {
    const elsewhere = await device(otherOrigin);
    const cookie = await passwordSession("ada@example.com", other);
    expect((await register(elsewhere, cookie, "Other", other)).status).toBe(200);
    // Its own server takes it …
    const there = await call(
      "POST",
      "/auth/passkeys/login",
      null,
      { response: await assertion(elsewhere, other) },
      other,
    );
    expect(there.status).toBe(200);
    // … this one does not, with this one's challenge signed on the other site.
    const response = await assertion(elsewhere, server, (o) => ({ ...o, rpId: "other.localhost" }));
    const refused = await signIn(response);
    expect([refused.status, refused.body.code]).toEqual([401, "UNAUTHORIZED"]);
    // Even were its credential known here (copied), the signature is another site's.
    const [row] = await other.query("SELECT * FROM passkeys");
    await server.exec(
      "INSERT INTO passkeys (id, owner_id, credential_id, public_key, counter, transports, name, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
      "pk_copied",
      await ownerId("ada@example.com"),
      row.credential_id,
      row.public_key,
      row.counter,
      row.transports,
      "Copied",
      row.created_at,
    );
    try {
      const copied = await signIn(await assertion(elsewhere, server, (o) => ({ ...o, rpId: "other.localhost" })));
      expect([copied.status, copied.body.code]).toEqual([401, "UNAUTHORIZED"]);
      expect(copied.body.error).toMatch(/origin|rp id/i);
    } finally {
      await server.exec("DELETE FROM passkeys WHERE id = 'pk_copied'");
    }
  });

  test("an assertion without user verification is refused", async () => {
    await laptop.cdp.send("WebAuthn.setUserVerified", {
      authenticatorId: laptop.authenticatorId,
      isUserVerified: false,
    });
    try {
      const response = await assertion(laptop, server, (o) => ({ ...o, userVerification: "discouraged" }));
      const refused = await signIn(response);
      expect([refused.status, refused.body.code]).toEqual([401, "UNAUTHORIZED"]);
      expect(refused.body.error).toMatch(/user verification/i);
    } finally {
      await laptop.cdp.send("WebAuthn.setUserVerified", {
        authenticatorId: laptop.authenticatorId,
        isUserVerified: true,
      });
    }
  });

  test("a signature counter that goes back (a cloned authenticator) is refused", async () => {
    await server.exec("UPDATE passkeys SET counter = 1000000 WHERE name = 'Laptop'");
    const refused = await signIn(await assertion(laptop));
    expect([refused.status, refused.body.code]).toEqual([401, "UNAUTHORIZED"]);
    expect(refused.body.error).toMatch(/counter/i);
    expect(await server.query("SELECT counter FROM passkeys WHERE name = 'Laptop'")).toEqual([{ counter: 1000000 }]);
  });

  test("tampered and malformed answers are 4xx, never 500", async () => {
    const good = await assertion(phone);
    const signature = Buffer.from(good.response.signature, "base64url");
    signature[signature.length - 1]! ^= 1;
    const tampered = await signIn({
      ...good,
      response: { ...good.response, signature: signature.toString("base64url") },
    });
    expect([tampered.status, tampered.body.code]).toEqual([401, "UNAUTHORIZED"]);
    const fresh = await assertion(phone);
    const forged = await signIn({ ...fresh, response: { ...fresh.response, userHandle: "bm9ib2R5" } });
    expect(forged.status).toBe(401);
    for (const body of [
      "{not json",
      { response: "x" },
      { response: { ...good, response: { ...good.response, clientDataJSON: "!!!" } } },
      { response: { ...good, type: "other" } },
      { response: { id: "x", rawId: "x", type: "public-key", response: {}, clientExtensionResults: {} } },
    ]) {
      const res = await call("POST", "/auth/passkeys/login", null, body);
      expect([res.status, body]).toEqual([400, body]);
    }
    const garbage = await call("POST", "/auth/passkeys", null, "{not json");
    expect(garbage.status).toBe(401);
  });
});

describe("passkeys in the dashboard", () => {
  test("a person held to enrolment adds a passkey, renames it on the account page, and signs in with it", async () => {
    await withPassword(server, "cleo@example.com");
    const desk = await device(origin);
    const { page } = desk;
    await page.goto(`${origin}/dashboard`);
    await page.getByLabel("Email").fill("cleo@example.com");
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Log in" }).click();
    // FORMSVC_REQUIRE_2FA: the enrolment page, where a passkey will do.
    await page.getByText("This server requires two-step login: add a passkey").waitFor();
    await screenshot(page, "passkeys-enrolment");
    await page.getByLabel("Name of a new passkey").fill("Desk");
    await page.getByRole("button", { name: "Add a passkey" }).click();
    await page.getByRole("button", { name: "Go on to the dashboard" }).click();
    await page.getByRole("button", { name: "Log out" }).waitFor();

    await page.goto(`${origin}/dashboard#/account`);
    const list = page.getByRole("list", { name: "Your passkeys" });
    await list.getByText("Desk").waitFor();
    await page.getByRole("button", { name: "Rename Desk" }).click();
    await page.getByLabel("New name of Desk").fill("Desk PC");
    await list.getByRole("button", { name: "Save" }).click();
    await list.getByText("Desk PC").waitFor();
    await screenshot(page, "passkeys-account");
    expect(
      await server.query(
        "SELECT name FROM passkeys WHERE owner_id = (SELECT id FROM owners WHERE email = 'cleo@example.com')",
      ),
    ).toEqual([{ name: "Desk PC" }]);

    await page.getByRole("button", { name: "Log out" }).click();
    await page.getByRole("button", { name: "Sign in with a passkey" }).click();
    await page.getByRole("button", { name: "Log out" }).waitFor();
    await screenshot(page, "passkeys-signed-in");
    expect((await call("GET", "/auth/me", (await cookieOf(page)) ?? null)).body.email).toBe("cleo@example.com");

    await page.goto(`${origin}/dashboard#/account`);
    await page.getByRole("button", { name: "Remove Desk PC" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Remove" }).click();
    await list.waitFor({ state: "detached" });
    expect(
      await server.query(
        "SELECT name FROM passkeys WHERE owner_id = (SELECT id FROM owners WHERE email = 'cleo@example.com')",
      ),
    ).toEqual([]);
  });

  test("where passkeys are not offered, the account page says why and the login page offers none", async () => {
    const plain = await startTestServer({ config: { publicUrl: "" } });
    try {
      await withPassword(plain, "dan@example.com");
      const tab = await chromium.newPage();
      tabs.push(tab);
      await tab.page.goto(`${plain.url}/dashboard`);
      await tab.page.getByLabel("Email").waitFor();
      expect(await tab.page.getByRole("button", { name: "Sign in with a passkey" }).count()).toBe(0);
      await tab.page.getByLabel("Email").fill("dan@example.com");
      await tab.page.getByLabel("Password").fill(PASSWORD);
      await tab.page.getByRole("button", { name: "Log in" }).click();
      await tab.page.getByRole("button", { name: "Log out" }).waitFor();
      await tab.page.goto(`${plain.url}/dashboard#/account`);
      await tab.page.getByText("Passkeys are not offered on this server: passkeys need FORMSVC_PUBLIC_URL").waitFor();
      await screenshot(tab.page, "passkeys-unavailable");
    } finally {
      await plain.close();
    }
  });
});

/** The session cookie the page's browser holds for the server. */
async function cookieOf(page: Page): Promise<string | null> {
  const cookies = await page.context().cookies(origin);
  const session = cookies.find((c) => c.name === "formsvc_session");
  return session ? `${session.name}=${session.value}` : null;
}

describe("managing passkeys", () => {
  let ada: string;
  let bob: string;
  beforeAll(async () => {
    ada = (await signIn(await assertion(phone))).headers.get("set-cookie")!.split(";")[0]!;
    bob = (await signIn(await assertion(bobDevice))).headers.get("set-cookie")!.split(";")[0]!;
  });

  test("renames and removes one's own; another person's passkey is a 404 and stays", async () => {
    const [laptopKey] = (await call("GET", "/auth/passkeys", ada)).body;
    expect((await call("PATCH", `/auth/passkeys/${laptopKey.id}`, ada, { name: "Work laptop" })).body.name).toBe(
      "Work laptop",
    );
    for (const name of ["", "x".repeat(101), "   "])
      expect((await call("PATCH", `/auth/passkeys/${laptopKey.id}`, ada, { name })).status).toBe(400);
    expect((await call("DELETE", `/auth/passkeys/${laptopKey.id}`, bob)).status).toBe(404);
    expect((await call("PATCH", `/auth/passkeys/${laptopKey.id}`, bob, { name: "Mine" })).status).toBe(404);
    expect((await call("DELETE", "/auth/passkeys/pk_unknown", ada)).status).toBe(404);
    expect((await call("GET", "/auth/passkeys", ada)).body.map((p: any) => p.name)).toEqual(["Work laptop", "Phone"]);

    const removed = await server.request(`/api/v1/auth/passkeys/${laptopKey.id}`, {
      method: "DELETE",
      headers: { origin, cookie: ada },
    });
    expect(removed.status).toBe(204);
    expect((await call("GET", "/auth/passkeys", ada)).body.map((p: any) => p.name)).toEqual(["Phone"]);
  });

  test("an API key cannot use these routes: they are the session's", async () => {
    const { key } = await seedKey(server, "ada@example.com");
    for (const [method, path] of [
      ["GET", "/auth/passkeys"],
      ["POST", "/auth/passkeys/options"],
    ] as const) {
      const res = await server.json(`/api/v1${path}`, { method, key, headers: { origin } });
      expect([res.status, res.body.code]).toEqual([401, "UNAUTHORIZED"]);
    }
  });

  test("logins from another site's page are refused (CSRF)", async () => {
    const res = await server.json("/api/v1/auth/passkeys/login/options", {
      method: "POST",
      headers: { origin: "http://evil.example", "content-type": "application/json" },
      body: "{}",
    });
    expect([res.status, res.body.code]).toEqual([403, "CSRF"]);
  });

  test("formsvc owners 2fa reset removes the person's passkeys", async () => {
    const cli = await runCliAsync(["owners", "2fa", "reset", "--owner", "ada@example.com", "--json"], {
      db: server.db,
    });
    expect([cli.code, JSON.parse(cli.stdout)]).toEqual([
      0,
      { owner: "ada@example.com", wasOn: false, passkeysRemoved: 1 },
    ]);
    expect((await signIn(await assertion(phone))).status).toBe(401);
  });

  test("no log line holds a challenge or key material", async () => {
    const options = await call("POST", "/auth/passkeys/login/options", null, {});
    await signIn(await get(phone, options.body));
    const keys = await server.query<{ public_key: string; credential_id: string }>(
      "SELECT public_key, credential_id FROM passkeys",
    );
    const text = logLines.join("\n");
    expect(logLines.length).toBeGreaterThan(10);
    expect(text).not.toContain(options.body.challenge);
    for (const k of keys) {
      expect(text).not.toContain(k.public_key);
      expect(text).not.toContain(k.credential_id);
    }
  });

  test("failed passkey logins count against the login throttle per address", async () => {
    let last = 0;
    for (let i = 0; i < 21 && last !== 429; i++) {
      const res = await call("POST", "/auth/passkeys/login", null, {
        response: {
          id: "x",
          rawId: "x",
          type: "public-key",
          response: { clientDataJSON: "e30", authenticatorData: "", signature: "" },
          clientExtensionResults: {},
        },
      });
      last = res.status;
    }
    expect(last).toBe(429);
    const password = await call("POST", "/auth/login", null, { email: "bob@example.com", password: PASSWORD });
    expect(password.status).toBe(429);
  });
});

describe("where passkeys are not offered", () => {
  test("an IP address or no FORMSVC_PUBLIC_URL: providers say why, and the routes are 409 PASSKEYS_UNAVAILABLE", async () => {
    for (const publicUrl of ["http://127.0.0.1:8080", "", "http://forms.example.com"]) {
      const s = await startTestServer({ config: { publicUrl } });
      try {
        const { body } = await s.json("/api/v1/auth/providers");
        expect(body.passkeys.available).toBe(false);
        expect(body.passkeys.reason).toMatch(publicUrl === "" ? /FORMSVC_PUBLIC_URL/ : /IP address|https/);
        const res = await s.json("/api/v1/auth/passkeys/login/options", {
          method: "POST",
          headers: { origin: publicUrl || s.url, "content-type": "application/json" },
          body: "{}",
        });
        expect([res.status, res.body.code]).toEqual([409, "PASSKEYS_UNAVAILABLE"]);
      } finally {
        await s.close();
      }
    }
    expect((await server.json("/api/v1/auth/providers")).body.passkeys).toEqual({ available: true });
  });
});
