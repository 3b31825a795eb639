import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { existsSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import * as OTPAuth from "otpauth";
import { fixedClock } from "../../src/lib/clock";
import { createLogger } from "../../src/lib/log";
import { login, PASSWORD, session, withPassword } from "../helpers/accounts";
import { OPERATOR } from "../../src/lib/principal";
import { personalTeamId } from "../../src/lib/rights";
import { onSqlite } from "../helpers/engine";
import { runCliAsync, seedOwner, startTestServer, tempDir, type TestServer } from "../helpers/harness";

const STEP = 30_000;
const MINUTE = 60_000;

/** On SQLite the key file beside the database is what is tested; on PostgreSQL it would land in the working folder, so a key is given. */
const keyConfig = () => (onSqlite ? {} : { secretKey: randomBytes(32).toString("base64") });

const post = (server: TestServer, path: string, cookie: string | null, body?: unknown) =>
  server.json(`/api/v1${path}`, {
    method: "POST",
    headers: {
      origin: server.url,
      ...(cookie ? { cookie } : {}),
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

async function loggedIn(server: TestServer, email: string): Promise<string> {
  const res = await login(server, email);
  expect(res.status).toBe(200);
  return res.cookie!;
}

/** Enrols TOTP for the session's person: the app's TOTP (parsed from the answered URI) and the recovery codes. */
async function enrol(server: TestServer, cookie: string, now: () => number) {
  const started = await post(server, "/auth/totp", cookie);
  expect(started.status).toBe(200);
  expect(started.body.qr).toStartWith("data:image/png;base64,");
  const totp = OTPAuth.URI.parse(started.body.uri) as OTPAuth.TOTP;
  expect([totp.algorithm, totp.digits, totp.period, totp.secret.base32]).toEqual(["SHA1", 6, 30, started.body.secret]);
  const confirmed = await post(server, "/auth/totp/confirm", cookie, { code: totp.generate({ timestamp: now() }) });
  expect(confirmed.status).toBe(200);
  const codes: string[] = confirmed.body.recoveryCodes;
  expect(new Set(codes).size).toBe(10);
  return { totp, codes, secret: started.body.secret as string };
}

const secondFactor = (server: TestServer, challenge: string, code: string) =>
  post(server, "/auth/login/second-factor", null, { challenge, code });

describe("TOTP second factor", () => {
  const logLines: string[] = [];
  const clock = fixedClock("2026-11-20T10:00:00.000Z");
  let server: TestServer;
  let app: { totp: OTPAuth.TOTP; codes: string[]; secret: string };
  let aliceCookie: string;
  beforeAll(async () => {
    server = await startTestServer({
      clock,
      rateClock: clock,
      config: keyConfig(),
      log: createLogger("debug", (l) => void logLines.push(l)),
    });
    await withPassword(server, "alice@example.com");
    aliceCookie = await loggedIn(server, "alice@example.com");
    app = await enrol(server, aliceCookie, clock.now);
  });
  afterAll(() => server.close());

  test("a wrong code does not confirm an enrolment, and a second enrolment is refused once TOTP is on", async () => {
    await withPassword(server, "bob@example.com");
    const cookie = await loggedIn(server, "bob@example.com");
    expect((await post(server, "/auth/totp", cookie)).status).toBe(200);
    const wrong = await post(server, "/auth/totp/confirm", cookie, { code: "000000" });
    expect([wrong.status, wrong.body.code]).toEqual([400, "INVALID_PARAMETER"]);
    // Bob's unconfirmed secret does not guard his login.
    expect((await login(server, "bob@example.com")).status).toBe(200);
    const again = await post(server, "/auth/totp", aliceCookie);
    expect([again.status, again.body.code]).toEqual([409, "CONFLICT"]);
  });

  test("login with the password alone answers SECOND_FACTOR_REQUIRED and no session; the code opens it; the same code again is refused", async () => {
    clock.advance(STEP);
    const first = await login(server, "alice@example.com");
    expect([first.status, first.body.code, first.setCookie]).toEqual([401, "SECOND_FACTOR_REQUIRED", null]);
    expect(first.body.challenge).toStartWith("fsc_");
    const code = app.totp.generate({ timestamp: clock.now() });
    const done = await secondFactor(server, first.body.challenge, code);
    expect([done.status, done.body.email]).toEqual([200, "alice@example.com"]);
    const cookie = done.headers.get("set-cookie")!.split(";")[0]!;
    expect((await server.json("/api/v1/auth/me", { headers: { cookie } })).status).toBe(200);
    // A challenge works once.
    expect((await secondFactor(server, first.body.challenge, code)).status).toBe(401);

    const again = await login(server, "alice@example.com");
    const reused = await secondFactor(server, again.body.challenge, code);
    expect([reused.status, reused.body.code]).toEqual([401, "UNAUTHORIZED"]);
    clock.advance(STEP);
    const next = await secondFactor(server, again.body.challenge, app.totp.generate({ timestamp: clock.now() }));
    expect(next.status).toBe(200);
  });

  test("a key cannot enrol (session only), and the second step needs the server's own Origin", async () => {
    const owner = await seedOwner(server, "erin@example.com");
    expect((await server.send("POST", "/auth/totp", owner.key)).status).toBe(401);
    const { body } = await login(server, "alice@example.com");
    const res = await server.json("/api/v1/auth/login/second-factor", {
      method: "POST",
      headers: { "content-type": "application/json", origin: "https://evil.example" },
      body: JSON.stringify({ challenge: body.challenge, code: "123456" }),
    });
    expect([res.status, res.body.code]).toEqual([403, "CSRF"]);
  });

  test("a recovery code logs in once", async () => {
    const [code] = app.codes;
    const first = await login(server, "alice@example.com");
    expect((await secondFactor(server, first.body.challenge, code!.toUpperCase())).status).toBe(200);
    const second = await login(server, "alice@example.com");
    expect((await secondFactor(server, second.body.challenge, code!)).status).toBe(401);
    expect((await secondFactor(server, second.body.challenge, app.codes[1]!)).status).toBe(200);
  });

  test("accepting an invitation with the password alone opens no session past the second factor", async () => {
    const host = await server.services.owners.ensureOwner("host@example.com");
    const { token } = await server.services.invitations.invite(
      OPERATOR,
      personalTeamId(host.id),
      { email: "alice@example.com", role: "editor" },
      { email: false },
    );
    const res = await post(server, "/invitations/accept", null, { token, password: PASSWORD });
    expect([res.status, res.body.code, res.headers.get("set-cookie")]).toEqual([401, "SECOND_FACTOR_REQUIRED", null]);
    expect(await server.query("SELECT role FROM team_members WHERE team_id = ?", personalTeamId(host.id))).toEqual([
      { role: "owner" },
    ]);
  });

  test("an invitation cannot give a person with a second factor and no password (made by single sign-on) a password past it", async () => {
    await server.exec("UPDATE owners SET password_hash = NULL WHERE email = ?", "alice@example.com");
    try {
      const host = await server.services.owners.ensureOwner("host2@example.com");
      const { token } = await server.services.invitations.invite(
        OPERATOR,
        personalTeamId(host.id),
        { email: "alice@example.com", role: "editor" },
        { email: false },
      );
      const res = await post(server, "/invitations/accept", null, { token, password: "a new password of hers" });
      expect([res.status, res.body.code, res.headers.get("set-cookie")]).toEqual([401, "SECOND_FACTOR_REQUIRED", null]);
      expect(await server.query("SELECT password_hash FROM owners WHERE email = ?", "alice@example.com")).toEqual([
        { password_hash: null },
      ]);
    } finally {
      await withPassword(server, "alice@example.com");
    }
  });

  test("no log line holds the secret, a recovery code or a challenge", async () => {
    const { body } = await login(server, "alice@example.com");
    expect(logLines.length).toBeGreaterThan(0);
    for (const needle of [app.secret, ...app.codes, body.challenge])
      expect(logLines.filter((l) => l.includes(needle))).toEqual([]);
  });

  test("the secret is stored only encrypted, and the recovery codes only hashed", async () => {
    expect(await server.tablesHolding(app.secret)).toEqual([]);
    expect(await server.tablesHolding(app.codes[2]!)).toEqual([]);
    const [row] = await server.query<{ ciphertext: string }>("SELECT ciphertext FROM totp_secrets");
    expect(row!.ciphertext).toMatch(/^v1\./);
    if (onSqlite) {
      const keyFile = join(server.dir, "formsvc.key");
      expect(statSync(keyFile).mode & 0o777).toBe(0o600);
      for (const file of [server.db, `${server.db}-wal`])
        expect(
          await Bun.file(file)
            .text()
            .catch(() => ""),
        ).not.toContain(app.secret);
    }
  });

  test("wrong codes are throttled per person: after five, even the right code is a 429, and a right password again does not reset the count", async () => {
    clock.advance(20 * MINUTE);
    const { body } = await login(server, "alice@example.com");
    for (let i = 0; i < 4; i++) expect((await secondFactor(server, body.challenge, "123456")).status).toBe(401);
    // Whoever knows the password logs in again: the count of wrong codes stays.
    const again = await login(server, "alice@example.com");
    expect(again.body.code).toBe("SECOND_FACTOR_REQUIRED");
    expect((await secondFactor(server, again.body.challenge, "123456")).status).toBe(401);
    clock.advance(STEP);
    const refused = await secondFactor(server, again.body.challenge, app.totp.generate({ timestamp: clock.now() }));
    expect([refused.status, refused.body.code]).toEqual([429, "RATE_LIMITED"]);
    expect(refused.body.error).toContain("for this person");
  });

  test("formsvc owners 2fa reset turns TOTP off and ends the person's sessions", async () => {
    clock.advance(20 * MINUTE);
    const { body } = await login(server, "alice@example.com");
    const done = await secondFactor(server, body.challenge, app.totp.generate({ timestamp: clock.now() }));
    const cookie = done.headers.get("set-cookie")!.split(";")[0]!;
    const cli = await runCliAsync(["owners", "2fa", "reset", "--owner", "alice@example.com", "--json"], {
      db: server.db,
    });
    expect([cli.code, JSON.parse(cli.stdout)]).toEqual([
      0,
      { owner: "alice@example.com", wasOn: true, passkeysRemoved: 0 },
    ]);
    expect((await server.json("/api/v1/auth/me", { headers: { cookie } })).status).toBe(401);
    const plain = await login(server, "alice@example.com");
    expect(plain.status).toBe(200);
    expect(await server.query("SELECT owner_id FROM recovery_codes")).toEqual([]);
  });
});

describe("a lost phone, without an operator", () => {
  const clock = fixedClock("2026-11-21T10:00:00.000Z");
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ clock, rateClock: clock, config: keyConfig() });
    await withPassword(server, "frank@example.com");
  });
  afterAll(() => server.close());
  let fresh: string[] = [];

  test("recovery codes are renewed for a code: the old ones stop working, the account counts what is left", async () => {
    const cookie = await loggedIn(server, "frank@example.com");
    const { codes } = await enrol(server, cookie, clock.now);
    const me = await server.json("/api/v1/auth/me", { headers: { cookie } });
    expect([me.body.totpEnabled, me.body.recoveryCodesLeft]).toEqual([true, 10]);
    const wrong = await post(server, "/auth/totp/recovery-codes", cookie, { code: "0000-0000" });
    expect([wrong.status, wrong.body.code]).toEqual([401, "UNAUTHORIZED"]);
    const renewed = await post(server, "/auth/totp/recovery-codes", cookie, { code: codes[0] });
    expect(renewed.status).toBe(200);
    fresh = renewed.body.recoveryCodes;
    expect(fresh).toHaveLength(10);
    expect(fresh.filter((c) => codes.includes(c))).toEqual([]);
    expect(fresh[0]).toMatch(/^[0-9a-f]{4}(-[0-9a-f]{4}){4}$/);
    const old = await login(server, "frank@example.com");
    expect((await secondFactor(server, old.body.challenge, codes[1]!)).status).toBe(401);
    const withNew = await secondFactor(server, old.body.challenge, fresh[0]!);
    expect([withNew.status, withNew.body.recoveryCodesLeft]).toEqual([200, 9]);
  });

  test("a recovery code logs in and turns TOTP off, the session staying; a new phone enrols; keys and other sites cannot", async () => {
    const started = await login(server, "frank@example.com");
    const opened = await secondFactor(server, started.body.challenge, fresh[1]!);
    expect(opened.status).toBe(200);
    const cookie = opened.headers.get("set-cookie")!.split(";")[0]!;
    const owner = await seedOwner(server, "gina@example.com");
    expect((await server.send("POST", "/auth/totp/disable", owner.key, { code: fresh[2] })).status).toBe(401);
    const csrf = await server.json("/api/v1/auth/totp/disable", {
      method: "POST",
      headers: { cookie, origin: "https://evil.example", "content-type": "application/json" },
      body: JSON.stringify({ code: fresh[2] }),
    });
    expect([csrf.status, csrf.body.code]).toEqual([403, "CSRF"]);

    const off = await fetch(`${server.url}/api/v1/auth/totp/disable`, {
      method: "POST",
      headers: { cookie, origin: server.url, "content-type": "application/json" },
      body: JSON.stringify({ code: fresh[2] }),
    });
    expect(off.status).toBe(204);
    const me = await server.json("/api/v1/auth/me", { headers: { cookie } });
    expect([me.status, me.body.totpEnabled, me.body.recoveryCodesLeft]).toEqual([200, false, 0]);
    expect(await server.query("SELECT owner_id FROM recovery_codes")).toEqual([]);
    expect((await post(server, "/auth/totp/recovery-codes", cookie, { code: fresh[3] })).status).toBe(401);

    clock.advance(STEP);
    const phone = await enrol(server, cookie, clock.now);
    clock.advance(STEP);
    const again = await login(server, "frank@example.com");
    const code = phone.totp.generate({ timestamp: clock.now() });
    expect((await secondFactor(server, again.body.challenge, code)).status).toBe(200);
  });
});

describe("a lost secret key", () => {
  const clock = fixedClock("2026-11-22T10:00:00.000Z");

  /** Enrols a person under the first server's key; answers the database and a challenge of the server that `restart` starts on it. */
  async function enrolThenRestart(first: Record<string, string>, restart: (db: string) => Promise<TestServer>) {
    const before = await startTestServer({ clock, rateClock: clock, config: first, dir: folder.dir });
    await withPassword(before, "ivy@example.com");
    const { totp } = await enrol(before, await loggedIn(before, "ivy@example.com"), clock.now);
    const db = before.db;
    await before.close();
    const after = await restart(db);
    clock.advance(STEP);
    const { body } = await login(after, "ivy@example.com");
    return { after, challenge: body.challenge as string, code: totp.generate({ timestamp: clock.now() }) };
  }
  // A folder of each test's own: its database, and the key file beside it, outlive the first server.
  let folder: ReturnType<typeof tempDir>;
  beforeEach(() => void (folder = tempDir()));
  afterEach(() => folder.cleanup());

  test("another key than the secrets were sealed with is a clear 503, never a 500", async () => {
    const { after, challenge, code } = await enrolThenRestart({ secretKey: randomBytes(32).toString("base64") }, (db) =>
      startTestServer({
        clock,
        rateClock: clock,
        db,
        dir: folder.dir,
        config: { secretKey: randomBytes(32).toString("base64") },
      }),
    );
    try {
      const res = await secondFactor(after, challenge, code);
      expect([res.status, res.body.code]).toEqual([503, "UNAVAILABLE"]);
      expect(res.body.error).toContain("formsvc owners 2fa reset");
    } finally {
      await after.close();
    }
  });

  test.if(onSqlite)(
    "a key file gone from beside sealed secrets is not made anew: 503 until it is restored",
    async () => {
      const { after, challenge, code } = await enrolThenRestart({}, (db) => {
        rmSync(join(folder.dir, "formsvc.key"));
        return startTestServer({ clock, rateClock: clock, db, dir: folder.dir });
      });
      try {
        const res = await secondFactor(after, challenge, code);
        expect([res.status, res.body.code]).toEqual([503, "UNAVAILABLE"]);
        expect(existsSync(join(folder.dir, "formsvc.key"))).toBe(false);
      } finally {
        await after.close();
      }
    },
  );
});

describe("FORMSVC_REQUIRE_2FA", () => {
  const clock = fixedClock("2026-11-20T10:00:00.000Z");
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ clock, rateClock: clock, config: { ...keyConfig(), require2fa: true } });
    await withPassword(server, "carol@example.com");
  });
  afterAll(() => server.close());

  test("a session without a second factor reaches only enrolment, auth/me and logout until it enrols", async () => {
    const cookie = await loggedIn(server, "carol@example.com");
    const blocked = await server.json("/api/v1/forms/list", { headers: session(server, cookie) });
    expect([blocked.status, blocked.body.code]).toEqual([403, "SECOND_FACTOR_ENROLMENT_REQUIRED"]);
    const before = await server.json("/api/v1/auth/me", { headers: { cookie } });
    expect([before.status, before.body.totpEnabled]).toEqual([200, false]);
    await enrol(server, cookie, clock.now);
    expect((await server.json("/api/v1/forms/list", { headers: session(server, cookie) })).status).toBe(200);
    expect((await server.json("/api/v1/auth/me", { headers: { cookie } })).body.totpEnabled).toBe(true);
  });

  test("enrolling in one session does not let another session of the person through that proved nothing", async () => {
    await withPassword(server, "hank@example.com");
    const held = await loggedIn(server, "hank@example.com");
    const enrolling = await loggedIn(server, "hank@example.com");
    await enrol(server, enrolling, clock.now);
    expect((await server.json("/api/v1/forms/list", { headers: session(server, enrolling) })).status).toBe(200);
    const still = await server.json("/api/v1/forms/list", { headers: session(server, held) });
    expect([still.status, still.body.code]).toEqual([403, "SECOND_FACTOR_ENROLMENT_REQUIRED"]);
    // Its own sessions it may see and end, to be rid of the other one.
    expect((await server.json("/api/v1/auth/sessions", { headers: { cookie: held } })).status).toBe(200);
  });

  test("an API key is not held back: only sessions must enrol", async () => {
    const owner = await seedOwner(server, "dave@example.com");
    expect((await server.send("GET", "/forms/list", owner.key)).status).toBe(200);
  });
});
