import { beforeAll, describe, expect, test } from "bun:test";
import { FormsvcClient, FormsvcError } from "../../src/client";
import { login, session, withPassword } from "../helpers/accounts";
import { useServer } from "../helpers/fixture";

const server = useServer();
const owner = server.seed("owner@example.com", { name: "Personal form" });
const stranger = server.seed("stranger@example.com", { name: "Not yours" });
let client: FormsvcClient;
let shopId: string;
let personalId: string;

beforeAll(async () => {
  await withPassword(server, owner.ownerEmail);
  const headers = session(server, (await login(server, owner.ownerEmail)).cookie!);
  // The dashboard's way: a session instead of an API key.
  client = new FormsvcClient({
    baseUrl: `${server.url}/api/v1`,
    fetch: (url, init) => server.fetch(url, { ...init, headers: { ...(init.headers as object), ...headers } }),
  });
  shopId = (await client.createTeam({ name: "Shop" })).id;
  await client.createForm({ name: "Shop form", teamId: shopId });
  await client.createKey({ name: "shop site", teamId: shopId });
  personalId = (await client.getForm(owner.formId)).teamId;
});

const refusal = (call: Promise<unknown>) =>
  call.then(
    () => "answered",
    (e: unknown) => (e instanceof FormsvcError ? `${e.status} ${e.code}` : String(e)),
  );

describe("the client's reads of one team", () => {
  test("listForms lists the forms of the team named, and of every team of the caller without one", async () => {
    const names = async (teamId?: string) => (await client.listForms({ teamId })).forms.map((f) => f.name);
    expect(await names(shopId)).toEqual(["Shop form"]);
    expect(await names(personalId)).toEqual(["Personal form"]);
    expect(await names()).toEqual(["Shop form", "Personal form"]);
  });

  test("listKeys lists the keys of the team named, else of the session's personal team", async () => {
    expect((await client.listKeys({ teamId: shopId })).map((k) => k.name)).toEqual(["shop site"]);
    expect((await client.listKeys()).map((k) => k.id)).toEqual([owner.keyId]);
  });

  test("each refuses a team the caller is no member of, as another owner's data", async () => {
    const theirs = (await server.json(`/api/v1/forms/${stranger.formId}`, { key: stranger.key })).body.teamId;
    expect(await refusal(client.listForms({ teamId: theirs }))).toBe("403 FORBIDDEN");
    expect(await refusal(client.listKeys({ teamId: theirs }))).toBe("403 FORBIDDEN");
    expect(await refusal(client.spamFilter({ teamId: theirs }))).toBe("403 FORBIDDEN");
    expect(await refusal(client.spamFilter({ teamId: shopId }))).toBe("answered");
  });
});
