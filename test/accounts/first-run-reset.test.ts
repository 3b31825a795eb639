import { afterEach, describe, expect, test } from "bun:test";
import { fixedClock } from "../../src/lib/clock";
import { login, PASSWORD, session, withPassword } from "../helpers/accounts";
import { startTestServer, type TestServer } from "../helpers/harness";
import { startSmtpSink, type SmtpSink } from "../helpers/smtp-sink";

const NEW_PASSWORD = "a brand new passphrase here";
const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const o of open.splice(0)) await o.close();
});

/** A server of its own (the per-client limits count every request of the file otherwise), with a mail sink and a pinned clock. */
async function setUp(config: Record<string, unknown> = {}) {
  const smtp = await startSmtpSink();
  const clock = fixedClock("2026-11-20T10:00:00.000Z");
  const server = await startTestServer({
    config: { rateLimit: 10_000, smtpUrl: smtp.url, publicUrl: "https://forms.example.com", ...config },
    clock,
  });
  open.push(smtp, server);
  return { smtp, clock, server };
}

/** A JSON POST as the server's own page sends it. */
const post = (server: TestServer, path: string, body: unknown, headers: Record<string, string> = {}) =>
  server.json(`/api/v1${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: "https://forms.example.com", ...headers },
    body: JSON.stringify(body),
  });
/** POST /auth/reset/confirm; its success is a bodiless 204. */
const confirm = async (server: TestServer, token: string, password: string) => {
  const res = await server.request("/api/v1/auth/reset/confirm", {
    method: "POST",
    headers: { "content-type": "application/json", origin: "https://forms.example.com" },
    body: JSON.stringify({ token, password }),
  });
  return { status: res.status, body: res.status === 204 ? null : await res.json() };
};
const tokenIn = (smtp: SmtpSink, i: number) =>
  /reset\?token=(fsr_[A-Za-z0-9_-]+)/.exec(smtp.messages[i]!.text ?? "")![1]!;
const loginHere = (server: TestServer, email: string, password: string) =>
  login(server, email, password, { origin: "https://forms.example.com" });

describe("first run: POST /auth/setup", () => {
  test("sets the first owner with the printed token, logs them in, and the token works only once", async () => {
    const { server } = await setUp();
    const token = (await server.services.accounts.issueSetupToken())!;
    expect(token).toMatch(/^fsu_/);
    const first = await post(
      server,
      "/auth/setup",
      { token, email: "Ada@Example.com", password: PASSWORD },
      { "user-agent": "Setup Browser/1.0" },
    );
    expect(first.status).toBe(200);
    expect(first.body.email).toBe("ada@example.com");
    // The session keeps what the list of sessions shows of it.
    expect(await server.query("SELECT user_agent, address FROM sessions")).toEqual([
      { user_agent: "Setup Browser/1.0", address: "127.0.0.1" },
    ]);
    const cookie = first.headers.get("set-cookie")!.split(";")[0]!;
    const me = await server.json("/api/v1/auth/me", { headers: session(server, cookie) });
    expect(me.status).toBe(200);
    expect((await loginHere(server, "ada@example.com", PASSWORD)).status).toBe(200);
    // Stored as its hash only.
    expect(await server.tablesHolding(token)).toEqual([]);

    const again = await post(server, "/auth/setup", { token, email: "eve@example.com", password: PASSWORD });
    expect(again.status).toBe(409);
    expect(await server.query("SELECT email FROM owners ORDER BY email")).toEqual([{ email: "ada@example.com" }]);
    // Once an owner has a password, no new link is made at all.
    expect(await server.services.accounts.issueSetupToken()).toBeNull();
  });

  const refusals: {
    name: string;
    status: number;
    prepare: (s: TestServer, clock: ReturnType<typeof fixedClock>) => Promise<string>;
  }[] = [
    {
      name: "a wrong token",
      status: 400,
      prepare: async (s) => (await s.services.accounts.issueSetupToken(), "fsu_wrong"),
    },
    {
      name: "a token past its 30 minutes",
      status: 400,
      prepare: async (s, clock) => {
        const token = (await s.services.accounts.issueSetupToken())!;
        clock.advance(30 * 60 * 1000 + 1);
        return token;
      },
    },
    {
      name: "a token once an owner has a password (set on the command line)",
      status: 409,
      prepare: async (s) => {
        const token = (await s.services.accounts.issueSetupToken())!;
        await withPassword(s, "owner@example.com");
        return token;
      },
    },
  ];
  for (const c of refusals)
    test(`refuses ${c.name} with ${c.status} and changes nothing`, async () => {
      const { server, clock } = await setUp();
      const token = await c.prepare(server, clock);
      const before = await server.query("SELECT id, email, password_hash FROM owners ORDER BY id");
      const res = await post(server, "/auth/setup", { token, email: "eve@example.com", password: PASSWORD });
      expect(res.status).toBe(c.status);
      expect(res.body.error).toMatch(/setup link|already set up/);
      expect(res.headers.get("set-cookie")).toBeNull();
      expect(await server.query("SELECT id, email, password_hash FROM owners ORDER BY id")).toEqual(before);
    });

  test("refuses an existing owner's address (one without a password, as init --owner makes) with 409 OWNER_EXISTS, changing nothing; the link still sets up another, and that owner resets instead", async () => {
    const { server, smtp } = await setUp();
    const existing = await server.services.owners.ensureOwner("keys@example.com");
    const token = (await server.services.accounts.issueSetupToken())!;
    const before = await server.query("SELECT id, email, password_hash FROM owners ORDER BY id");
    const res = await post(server, "/auth/setup", { token, email: "Keys@Example.com", password: PASSWORD });
    expect([res.status, res.body.code]).toEqual([409, "OWNER_EXISTS"]);
    expect(res.body.error).toMatch(/password reset/);
    expect(res.headers.get("set-cookie")).toBeNull();
    expect(await server.query("SELECT id, email, password_hash FROM owners ORDER BY id")).toEqual(before);
    expect((await loginHere(server, "keys@example.com", PASSWORD)).status).toBe(401);
    const other = await post(server, "/auth/setup", { token, email: "ada@example.com", password: PASSWORD });
    expect(other.status).toBe(200);

    // That owner sets a password through a reset link instead.
    expect((await post(server, "/auth/reset", { email: "keys@example.com" })).status).toBe(202);
    const [mail] = await smtp.waitFor(1);
    expect((mail!.to as { text: string }).text).toBe("keys@example.com");
    expect((await confirm(server, tokenIn(smtp, 0), NEW_PASSWORD)).status).toBe(204);
    expect((await loginHere(server, "keys@example.com", NEW_PASSWORD)).status).toBe(200);
    expect((await server.query("SELECT id FROM owners WHERE email = 'keys@example.com'"))[0].id).toBe(existing.id);
  });

  test("a wrong token with an existing owner's address is the wrong token's 400: the link is needed to learn who exists", async () => {
    const { server } = await setUp();
    await server.services.owners.ensureOwner("keys@example.com");
    await server.services.accounts.issueSetupToken();
    const res = await post(server, "/auth/setup", {
      token: "fsu_wrong",
      email: "keys@example.com",
      password: PASSWORD,
    });
    expect(res.status).toBe(400);
  });

  test("refuses a password outside the rule, as owners set-password does, and keeps the token", async () => {
    const { server } = await setUp();
    const token = (await server.services.accounts.issueSetupToken())!;
    const short = await post(server, "/auth/setup", { token, email: "ada@example.com", password: "short" });
    expect(short.status).toBe(400);
    expect(short.body.error).toMatch(/at least 12 characters/);
    expect((await post(server, "/auth/setup", { token, email: "ada@example.com", password: PASSWORD })).status).toBe(
      200,
    );
  });

  test("refuses a request from another origin with 403 CSRF before reading its body", async () => {
    const { server } = await setUp();
    const token = (await server.services.accounts.issueSetupToken())!;
    const res = await post(
      server,
      "/auth/setup",
      { token, email: "eve@example.com", password: PASSWORD },
      { origin: "https://evil.example" },
    );
    expect(res.status).toBe(403);
    expect(await server.query("SELECT count(*) AS n FROM owners")).toEqual([{ n: 0 }]);
  });
});

test("GET / redirects to the dashboard", async () => {
  const { server } = await setUp();
  const res = await fetch(server.url + "/", { redirect: "manual" });
  expect(res.status).toBe(302);
  expect(res.headers.get("location")).toBe("/dashboard");
});

describe("password reset", () => {
  test("mails a known owner one link that works once, ends their sessions, and the new password logs in", async () => {
    const { server, smtp } = await setUp();
    await withPassword(server, "ada@example.com");
    const old = (await loginHere(server, "ada@example.com", PASSWORD)).cookie!;

    const asked = await post(server, "/auth/reset", { email: "ADA@example.com" });
    expect(asked.status).toBe(202);
    const [mail] = await smtp.waitFor(1);
    expect(mail!.to).toMatchObject({ text: "ada@example.com" });
    expect(mail!.text).toContain("https://forms.example.com/dashboard/reset?token=fsr_");
    const token = tokenIn(smtp, 0);
    // Once sent, the token is nowhere in the database: only its hash.
    await Bun.sleep(100);
    expect(await server.tablesHolding(token)).toEqual([]);

    const done = await confirm(server, token, NEW_PASSWORD);
    expect(done.status).toBe(204);
    expect((await server.json("/api/v1/auth/me", { headers: session(server, old) })).status).toBe(401);
    expect((await loginHere(server, "ada@example.com", PASSWORD)).status).toBe(401);
    expect((await loginHere(server, "ada@example.com", NEW_PASSWORD)).status).toBe(200);

    const twice = await confirm(server, token, "yet another passphrase");
    expect(twice.status).toBe(400);
    expect(twice.body.error).toMatch(/wrong, used or expired/);
    expect((await loginHere(server, "ada@example.com", NEW_PASSWORD)).status).toBe(200);
  });

  test("answers an unknown address exactly as a known one and mails it nothing; an owner without a password is mailed too", async () => {
    const { server, smtp } = await setUp();
    await withPassword(server, "ada@example.com");
    await server.services.owners.ensureOwner("nopassword@example.com");
    const answers = [];
    for (const email of ["nobody@example.com", "nopassword@example.com", "ada@example.com"]) {
      const res = await post(server, "/auth/reset", { email });
      answers.push({ status: res.status, body: res.body });
    }
    expect(answers[0]).toEqual(answers[2]!);
    expect(answers[1]).toEqual(answers[2]!);
    await smtp.waitFor(2);
    await Bun.sleep(200);
    expect(smtp.messages.map((m) => (m.to as { text: string }).text).sort()).toEqual([
      "ada@example.com",
      "nopassword@example.com",
    ]);
  });

  test("a HEAD or GET of the emailed reset link (a mail scanner) changes nothing: the link still works", async () => {
    const { server, smtp } = await setUp();
    await withPassword(server, "ada@example.com");
    await post(server, "/auth/reset", { email: "ada@example.com" });
    await smtp.waitFor(1);
    const link = /https:\/\/forms\.example\.com(\/dashboard\/reset\?token=\S+)/.exec(smtp.messages[0]!.text!)![1]!;
    for (const method of ["HEAD", "GET"]) expect((await server.request(link, { method })).status).toBe(200);
    expect((await server.query("SELECT used_at FROM password_resets"))[0].used_at).toBeNull();
    expect((await confirm(server, tokenIn(smtp, 0), NEW_PASSWORD)).status).toBe(204);
  });

  test("refuses a link past its hour, and changes nothing", async () => {
    const { server, smtp, clock } = await setUp();
    await withPassword(server, "ada@example.com");
    await post(server, "/auth/reset", { email: "ada@example.com" });
    await smtp.waitFor(1);
    clock.advance(60 * 60 * 1000 + 1);
    const res = await confirm(server, tokenIn(smtp, 0), NEW_PASSWORD);
    expect(res.status).toBe(400);
    expect((await loginHere(server, "ada@example.com", PASSWORD)).status).toBe(200);
  });

  test("sends one email per owner per 5 minutes, however often asked, answering 202 every time", async () => {
    const { server, smtp, clock } = await setUp();
    await withPassword(server, "ada@example.com");
    for (let i = 0; i < 3; i++)
      expect((await post(server, "/auth/reset", { email: "ada@example.com" })).status).toBe(202);
    await smtp.waitFor(1);
    await Bun.sleep(200);
    expect(smtp.messages.length).toBe(1);
    clock.advance(5 * 60 * 1000);
    expect((await post(server, "/auth/reset", { email: "ada@example.com" })).status).toBe(202);
    await smtp.waitFor(2);
    // Both links work until one is used; using one uses up the other.
    const [first, second] = [tokenIn(smtp, 0), tokenIn(smtp, 1)];
    expect((await confirm(server, second, NEW_PASSWORD)).status).toBe(204);
    expect((await confirm(server, first, PASSWORD)).status).toBe(400);
  });

  test("answers the sixth request from one client address within 15 minutes with 429 and Retry-After", async () => {
    const { server, clock } = await setUp();
    for (let i = 0; i < 5; i++)
      expect((await post(server, "/auth/reset", { email: `someone${i}@example.com` })).status).toBe(202);
    const sixth = await post(server, "/auth/reset", { email: "someone5@example.com" });
    expect(sixth.status).toBe(429);
    expect(Number(sixth.headers.get("retry-after"))).toBeGreaterThan(0);
    clock.advance(15 * 60 * 1000);
    expect((await post(server, "/auth/reset", { email: "someone5@example.com" })).status).toBe(202);
  });

  test("refuses a body that is not a JSON object, and a bad email, with 400", async () => {
    const { server } = await setUp();
    for (const body of [null, [], "x", { email: "not an email" }])
      expect((await post(server, "/auth/reset", body)).status).toBe(400);
  });
});
