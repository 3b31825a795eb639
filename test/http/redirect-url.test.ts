import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { seedOwner, startTestServer, type TestServer } from "../helpers/harness";

let server: TestServer;
let owner: Awaited<ReturnType<typeof seedOwner>>;

beforeAll(async () => {
  server = await startTestServer({ config: { rateLimit: 100_000 } });
  owner = await seedOwner(server, "owner@example.com");
});
afterAll(() => server.close());

const BODY_TYPES = {
  json: (redirectUrl: string) => ({
    type: "application/json",
    body: JSON.stringify({ formId: owner.formId, data: { name: "Ada" }, redirectUrl }),
  }),
  urlencoded: (redirectUrl: string) => ({
    type: "application/x-www-form-urlencoded",
    body: new URLSearchParams({ formId: owner.formId, redirectUrl, name: "Ada" }).toString(),
  }),
  multipart: (redirectUrl: string) => {
    const form = new FormData();
    for (const [k, v] of [
      ["formId", owner.formId],
      ["redirectUrl", redirectUrl],
      ["name", "Ada"],
    ])
      form.set(k!, v!);
    return { type: null, body: form };
  },
};

const post = ({ type, body }: { type: string | null; body: BodyInit }) =>
  server.request("/api/v1/forms/submit", {
    method: "POST",
    key: owner.key,
    headers: type ? { "content-type": type } : {},
    body,
    redirect: "manual",
  });
const count = async () => (await server.query<{ n: number }>("SELECT count(*) AS n FROM submissions"))[0]!.n;

describe("redirectUrl", () => {
  test("is refused with a 400 when its host is no host name or address, on every body type, storing nothing", async () => {
    const before = await count();
    for (const url of [
      'https://a"b.example/thanks',
      "https://a<b>.example/",
      "https://a_b.example/",
      "https://user:secret@example.com/",
    ]) {
      for (const [type, make] of Object.entries(BODY_TYPES)) {
        const res = await post(make(url));
        expect([url, type, res.status, (await res.json()).error]).toEqual([
          url,
          type,
          400,
          expect.stringContaining("redirectUrl must be an absolute http(s) URL"),
        ]);
      }
    }
    expect(await count()).toBe(before);
  });

  test("sends form posts 303 to its normalised form, a valid URI, and the JSON answer keeps it as sent", async () => {
    const url = "https://例え.jp/a|b?q=[1]#top";
    const location = "https://xn--r8jz45g.jp/a%7Cb?q=%5B1%5D#top";
    for (const type of ["urlencoded", "multipart"] as const) {
      const res = await post(BODY_TYPES[type](url));
      expect([type, res.status, res.headers.get("location")]).toEqual([type, 303, location]);
    }
    expect((await (await post(BODY_TYPES.json(url))).json()).redirect).toBe(url);
  });
});
