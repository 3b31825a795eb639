import { beforeAll, describe, expect, test } from "bun:test";
import { FormsvcClient, FormsvcError, type FetchLike } from "../../src/client";
import { PASSWORD, withPassword } from "../helpers/accounts";
import { useServer } from "../helpers/fixture";

const server = useServer({ config: { rateLimit: 100_000 } });
server.seed("session@example.com");

beforeAll(() => withPassword(server, "session@example.com"));

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
});
