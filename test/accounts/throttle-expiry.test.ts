import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { fixedClock } from "../../src/lib/clock";
import { startTestServer, type TestServer } from "../helpers/harness";
import { login, PASSWORD, session, withPassword } from "../helpers/accounts";

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

describe("login throttling", () => {
  const clock = fixedClock("2026-11-20T10:00:00.000Z");
  let server: TestServer;
  beforeAll(async () => {
    // One clock for the services (the login throttle, sessions) and the rate limiter, moved by hand.
    server = await startTestServer({ clock, rateClock: clock });
    for (const email of ["target@example.com", "bystander@example.com"]) await withPassword(server, email);
  });
  afterAll(() => server.close());

  test("five failed logins for one email make the next attempts 429, even with the right password; another email is unaffected; after 15 minutes it logs in", async () => {
    for (let i = 0; i < 5; i++) {
      clock.advance(MINUTE);
      expect((await login(server, "target@example.com", `wrong guess ${i}`)).status).toBe(401);
    }
    const refused = await login(server, "target@example.com", PASSWORD);
    expect([refused.status, refused.body.code, refused.setCookie]).toEqual([429, "RATE_LIMITED", null]);
    // The first failure leaves the window 15 minutes after it: 11 minutes from now.
    expect(refused.headers.get("retry-after")).toBe(String(11 * 60));
    expect((await login(server, "TARGET@example.com", PASSWORD)).status).toBe(429);
    expect((await login(server, "bystander@example.com", PASSWORD)).status).toBe(200);

    clock.advance(11 * MINUTE - 1000);
    expect((await login(server, "target@example.com", PASSWORD)).status).toBe(429);
    clock.advance(1000);
    const later = await login(server, "target@example.com", PASSWORD);
    expect([later.status, later.body.email]).toEqual([200, "target@example.com"]);
  });

  test("an unknown email is throttled exactly like a known one", async () => {
    for (let i = 0; i < 5; i++) await login(server, "ghost@example.com", `wrong guess ${i}`);
    const ghost = await login(server, "ghost@example.com", PASSWORD);
    for (let i = 0; i < 5; i++) await login(server, "bystander@example.com", `wrong guess ${i}`);
    const known = await login(server, "bystander@example.com", PASSWORD);
    expect([ghost.status, ghost.body.error, ghost.headers.get("retry-after")]).toEqual([
      known.status,
      known.body.error,
      known.headers.get("retry-after"),
    ]);
    expect(ghost.status).toBe(429);
  });
});

describe("login throttling per client address", () => {
  test("twenty failed logins from one address within 15 minutes make any email's login a 429 there", async () => {
    const clock = fixedClock("2026-11-20T10:00:00.000Z");
    const server = await startTestServer({ clock, rateClock: clock });
    try {
      await withPassword(server, "fresh@example.com");
      for (let i = 0; i < 20; i++)
        expect((await login(server, `guess${i % 4}@example.com`, `wrong guess ${i}`)).status).toBe(401);
      const res = await login(server, "fresh@example.com", PASSWORD);
      expect([res.status, res.body.error]).toEqual([
        429,
        "too many failed logins from this address; try again in 900 s (Retry-After)",
      ]);
      clock.advance(15 * MINUTE);
      expect((await login(server, "fresh@example.com", PASSWORD)).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});

describe("session expiry", () => {
  const clock = fixedClock("2026-11-01T00:00:00.000Z");
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ clock });
    await withPassword(server, "owner@example.com");
  });
  afterAll(() => server.close());
  const me = (cookie: string) => server.json("/api/v1/auth/me", { headers: session(server, cookie) });

  test("a session unused for 7 days ends; each request keeps it alive until then", async () => {
    const { cookie } = await login(server, "owner@example.com");
    clock.advance(6 * DAY);
    expect((await me(cookie!)).status).toBe(200);
    clock.advance(6 * DAY);
    expect((await me(cookie!)).status).toBe(200);
    clock.advance(7 * DAY);
    expect((await me(cookie!)).status).toBe(401);
  });

  test("a session ends 30 days after the login however active it is", async () => {
    const { cookie } = await login(server, "owner@example.com");
    for (let day = 6; day < 30; day += 6) {
      clock.advance(6 * DAY);
      expect([day, (await me(cookie!)).status]).toEqual([day, 200]);
    }
    clock.advance(6 * DAY - 1);
    expect((await me(cookie!)).status).toBe(200);
    clock.advance(1);
    const res = await me(cookie!);
    expect([res.status, res.body.error]).toEqual([
      401,
      "the login session has expired or ended: log in again (POST /api/v1/auth/login)",
    ]);
  });

  test("the lifetimes are settings: FORMSVC_SESSION_IDLE_DAYS and FORMSVC_SESSION_MAX_DAYS", async () => {
    const short = await startTestServer({ clock, config: { sessionIdleDays: 0.5, sessionMaxDays: 1 } });
    try {
      await withPassword(short, "owner@example.com");
      const idle = (await login(short, "owner@example.com")).cookie!;
      const busy = (await login(short, "owner@example.com")).cookie!;
      const meThere = (cookie: string) => short.json("/api/v1/auth/me", { headers: { cookie } });
      expect(await login(short, "owner@example.com").then((r) => r.setCookie)).toContain("Max-Age=86400");
      clock.advance(10 * 60 * MINUTE);
      expect((await meThere(busy)).status).toBe(200);
      clock.advance(3 * 60 * MINUTE);
      expect((await meThere(idle)).status).toBe(401);
      expect((await meThere(busy)).status).toBe(200);
      clock.advance(11 * 60 * MINUTE);
      expect((await meThere(busy)).status).toBe(401);
    } finally {
      await short.close();
    }
  });

  test("the hourly clean-up deletes expired sessions and keeps live ones", async () => {
    const old = (await login(server, "owner@example.com")).cookie!;
    clock.advance(8 * DAY);
    const fresh = (await login(server, "owner@example.com")).cookie!;
    const count = async () => (await server.query<{ n: number }>("SELECT count(*) AS n FROM sessions"))[0]!.n;
    const before = await count();
    expect(await server.services.accounts.deleteExpiredSessions()).toBeGreaterThanOrEqual(1);
    expect(await count()).toBe(1);
    expect(before).toBeGreaterThan(1);
    expect((await me(fresh)).status).toBe(200);
    expect((await me(old)).status).toBe(401);
  });
});
