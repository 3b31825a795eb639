import { beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import * as OTPAuth from "otpauth";
import { FormsvcClient, FormsvcError, type FetchLike } from "../../src/client";
import { PASSWORD, withPassword } from "../helpers/accounts";
import { useServer } from "../helpers/fixture";

// A key of its own: on PostgreSQL the default key file would be made in the working folder.
const server = useServer({ config: { rateLimit: 100_000, secretKey: randomBytes(32).toString("base64") } });
server.seed("session@example.com");
server.seed("totp@example.com");

beforeAll(async () => {
  await withPassword(server, "session@example.com");
  await withPassword(server, "totp@example.com");
});

/** A fetch as a page of the server's own origin has it: its Origin on every request, the session cookie kept and sent back. */
function browserLikeFetch(): FetchLike {
  let cookie: string | null = null;
  return async (url, init) => {
    const headers = new Headers(init.headers);
    headers.set("origin", server.url);
    if (cookie) headers.set("cookie", cookie);
    const res = await server.fetch(url, { ...init, headers });
    const set = res.headers.get("set-cookie");
    if (set) cookie = /Max-Age=0/i.test(set) ? null : set.split(";")[0]!;
    return res;
  };
}

describe("FormsvcClient's session methods against a running server", () => {
  test("login opens a session that me names and every call then uses; logout ends it", async () => {
    const client = new FormsvcClient({ baseUrl: `${server.url}/api/v1`, fetch: browserLikeFetch() });
    const account = await client.login({ email: "Session@Example.com", password: PASSWORD });
    expect(account).toMatchObject({ email: "session@example.com", id: expect.stringMatching(/^own_/) });
    expect(await client.me()).toEqual(account);
    expect((await client.listForms()).forms.map((f) => f.name)).toEqual(["Contact"]);
    expect(await client.logout()).toBeUndefined();
    const after = await client.me().catch((e: unknown) => e);
    expect([after instanceof FormsvcError, (after as FormsvcError).status]).toEqual([true, 401]);
  });

  test("listSessions marks this one; endSession and endOtherSessions end the others at once", async () => {
    const [here, there, third] = [browserLikeFetch(), browserLikeFetch(), browserLikeFetch()].map(
      (fetch) => new FormsvcClient({ baseUrl: `${server.url}/api/v1`, fetch }),
    );
    for (const c of [there!, third!, here!]) await c.login({ email: "session@example.com", password: PASSWORD });
    const sessions = await here!.listSessions();
    expect(sessions.slice(0, 3).map((s) => s.current)).toEqual([true, false, false]);
    await here!.endSession(sessions[1]!.id);
    expect(((await third!.me().catch((e: unknown) => e)) as FormsvcError).status).toBe(401);
    expect(await here!.endOtherSessions()).toBeGreaterThanOrEqual(1);
    expect(((await there!.me().catch((e: unknown) => e)) as FormsvcError).status).toBe(401);
    expect((await here!.listSessions()).map((s) => s.current)).toEqual([true]);
  });

  test("a wrong password is a FormsvcError 401 with the server's message, and opens no session", async () => {
    const client = new FormsvcClient({ baseUrl: `${server.url}/api/v1`, fetch: browserLikeFetch() });
    const refused = await client
      .login({ email: "session@example.com", password: "not the password at all" })
      .catch((e: unknown) => e);
    expect([
      refused instanceof FormsvcError,
      (refused as FormsvcError).status,
      (refused as FormsvcError).message,
    ]).toEqual([true, 401, expect.any(String)]);
    expect(((await client.me().catch((e: unknown) => e)) as FormsvcError).status).toBe(401);
  });

  test("startTotp and confirmTotp turn TOTP on; login then throws SECOND_FACTOR_REQUIRED with the challenge loginSecondFactor takes", async () => {
    const client = new FormsvcClient({ baseUrl: `${server.url}/api/v1`, fetch: browserLikeFetch() });
    await client.login({ email: "totp@example.com", password: PASSWORD });
    const enrolment = await client.startTotp();
    const totp = OTPAuth.URI.parse(enrolment.uri) as OTPAuth.TOTP;
    const { recoveryCodes } = await client.confirmTotp({ code: totp.generate() });
    expect(recoveryCodes).toHaveLength(10);

    const fresh = new FormsvcClient({ baseUrl: `${server.url}/api/v1`, fetch: browserLikeFetch() });
    const refused = (await fresh
      .login({ email: "totp@example.com", password: PASSWORD })
      .catch((e) => e)) as FormsvcError;
    expect([refused.status, refused.code, refused.challenge]).toEqual([
      401,
      "SECOND_FACTOR_REQUIRED",
      expect.stringMatching(/^fsc_/),
    ]);
    const account = await fresh.loginSecondFactor({ challenge: refused.challenge!, code: recoveryCodes[0]! });
    expect(account.email).toBe("totp@example.com");
    expect((await fresh.me()).email).toBe("totp@example.com");
  });
});
