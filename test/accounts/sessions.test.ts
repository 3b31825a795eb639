import { beforeAll, describe, expect, test } from "bun:test";
import { createLogger } from "../../src/lib/log";
import { useServer } from "../helpers/fixture";
import { login, PASSWORD, session, withPassword } from "../helpers/accounts";
import { seedOwner, startTestServer } from "../helpers/harness";
import { freePort, startSmtpSink } from "../helpers/smtp-sink";
import { personalTeamId } from "../../src/lib/rights";

const logLines: string[] = [];
const server = useServer({ log: createLogger("info", (l) => void logLines.push(l)) });
const owner = server.seed("owner@example.com");
server.seed("other@example.com");

beforeAll(async () => {
  await withPassword(server, "owner@example.com");
  await withPassword(server, "other@example.com");
});

const PHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) Mobile/15E148 Safari/604.1";
const LAPTOP = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";

const loginAs = async (email: string, userAgent: string) => {
  const res = await login(server, email, PASSWORD, { headers: { "user-agent": userAgent } });
  expect(res.status).toBe(200);
  return res.cookie!;
};
const list = (cookie: string) => server.json("/api/v1/auth/sessions", { headers: { cookie } });
const me = async (cookie: string) => (await server.request("/api/v1/auth/me", { headers: { cookie } })).status;
const end = (cookie: string, id: string) =>
  server.request(`/api/v1/auth/sessions/${id}`, { method: "DELETE", headers: session(server, cookie) });
const endOthers = (cookie: string) =>
  server.json("/api/v1/auth/sessions", { method: "DELETE", headers: session(server, cookie) });
const sessionRows = () =>
  server.query<{ id: string }>("SELECT id FROM sessions WHERE owner_id = ? ORDER BY id", owner.ownerId);

/** Two browsers of one person and one of another; each test starts with only these. */
async function threeSessions() {
  await server.exec("DELETE FROM sessions");
  const laptop = await loginAs("owner@example.com", LAPTOP);
  const phone = await loginAs("owner@example.com", PHONE);
  const theirs = await loginAs("other@example.com", LAPTOP);
  const ids = (await list(phone)).body.map((s: { id: string }) => s.id) as string[];
  const [theirsId] = (await list(theirs)).body.map((s: { id: string }) => s.id) as string[];
  return { laptop, phone, theirs, phoneId: ids[0]!, laptopId: ids[1]!, theirsId: theirsId! };
}

describe("GET /auth/sessions", () => {
  test("lists the caller's own sessions, newest first, with when, the browser, the address and which is this one", async () => {
    const { laptop, phone } = await threeSessions();
    const res = await list(laptop);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.body).toEqual([
      {
        id: expect.stringMatching(/^ses_/),
        createdAt: expect.any(String),
        lastSeenAt: expect.any(String),
        userAgent: PHONE,
        address: "127.0.0.1",
        current: false,
      },
      {
        id: expect.stringMatching(/^ses_/),
        createdAt: expect.any(String),
        lastSeenAt: expect.any(String),
        userAgent: LAPTOP,
        address: "127.0.0.1",
        current: true,
      },
    ]);
    expect((await list(phone)).body.map((s: { current: boolean }) => s.current)).toEqual([true, false]);
    // Only the token's hash is kept, and no answer carries a token.
    expect(JSON.stringify(res.body)).not.toContain(laptop.split("=")[1]!);
  });

  test("takes no API key: a secret key is a 401", async () => {
    const res = await server.json("/api/v1/auth/sessions", { headers: { "x-api-key": owner.key } });
    expect(res.status).toBe(401);
  });

  test("keeps at most 512 characters of a User-Agent", async () => {
    await server.exec("DELETE FROM sessions");
    const cookie = await loginAs("owner@example.com", "x".repeat(2000));
    expect((await list(cookie)).body[0].userAgent).toBe("x".repeat(512));
  });
});

describe("DELETE /auth/sessions/{id}", () => {
  test("ends the caller's other session at once: its cookie is a 401 from its next request on", async () => {
    const { laptop, phone, theirs, phoneId } = await threeSessions();
    expect(await me(phone)).toBe(200);
    const res = await end(laptop, phoneId);
    expect(res.status).toBe(204);
    expect(res.headers.get("set-cookie")).toBeNull();
    expect([await me(phone), await me(laptop), await me(theirs)]).toEqual([401, 200, 200]);
    expect((await list(laptop)).body.map((s: { userAgent: string }) => s.userAgent)).toEqual([LAPTOP]);
  });

  test("another person's session, or an unknown id, is a 404 and ends nothing", async () => {
    const { laptop, phone, theirs, theirsId } = await threeSessions();
    const before = await sessionRows();
    for (const id of [theirsId, "ses_unknown"]) {
      const res = await end(laptop, id);
      expect([res.status, (await res.json()).code]).toEqual([404, "NOT_FOUND"]);
    }
    expect(await sessionRows()).toEqual(before);
    expect([await me(laptop), await me(phone), await me(theirs)]).toEqual([200, 200, 200]);
  });

  test("may end the session it is made with, which clears its cookie", async () => {
    const { laptop, phone, laptopId } = await threeSessions();
    const res = await end(laptop, laptopId);
    expect(res.status).toBe(204);
    expect(res.headers.get("set-cookie")).toMatch(/Max-Age=0/);
    expect([await me(laptop), await me(phone)]).toEqual([401, 200]);
  });

  test("must come from the server's own origin: a foreign one is a 403 and ends nothing", async () => {
    const { laptop, phone, phoneId } = await threeSessions();
    const res = await server.json(`/api/v1/auth/sessions/${phoneId}`, {
      method: "DELETE",
      headers: session(server, laptop, "https://evil.example"),
    });
    expect(res.status).toBe(403);
    expect(await me(phone)).toBe(200);
  });
});

describe("DELETE /auth/sessions", () => {
  test("ends every session of the caller's but this one, and no one else's", async () => {
    const { laptop, phone, theirs } = await threeSessions();
    const res = await endOthers(phone);
    expect([res.status, res.body]).toEqual([200, { ended: 1 }]);
    expect([await me(laptop), await me(phone), await me(theirs)]).toEqual([401, 200, 200]);
    expect((await endOthers(phone)).body).toEqual({ ended: 0 });
  });

  test("no log line carries a session token", async () => {
    const { laptop, phone, phoneId } = await threeSessions();
    await end(laptop, phoneId);
    await endOthers(laptop);
    for (const cookie of [laptop, phone]) expect(logLines.join("\n")).not.toContain(cookie.split("=")[1]!);
  });
});

describe("a session opened by accepting an invitation", () => {
  test("keeps the browser and address of the request that accepted", async () => {
    const smtp = await startSmtpSink();
    const port = await freePort();
    const other = await startTestServer({ config: { smtpUrl: smtp.url, publicUrl: `http://127.0.0.1:${port}`, port } });
    try {
      const ada = await seedOwner(other, "ada@example.com");
      const invited = await other.json(`/api/v1/teams/${personalTeamId(ada.ownerId)}/invitations`, {
        method: "POST",
        key: ada.key,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: "bob@example.com", role: "viewer" }),
      });
      expect(invited.status).toBe(200);
      const token = /fsi_[A-Za-z0-9_-]+/.exec((await smtp.waitFor(1))[0]!.text ?? "")![0];
      const accepted = await other.json("/api/v1/invitations/accept", {
        method: "POST",
        headers: { "content-type": "application/json", origin: other.url, "user-agent": PHONE },
        body: JSON.stringify({ token, password: PASSWORD }),
      });
      expect(accepted.status).toBe(200);
      const cookie = accepted.headers.get("set-cookie")!.split(";")[0]!;
      const listed = await other.json("/api/v1/auth/sessions", { headers: { cookie } });
      expect(listed.body).toMatchObject([{ userAgent: PHONE, address: "127.0.0.1", current: true }]);
    } finally {
      await other.close();
      await smtp.close();
    }
  });
});
