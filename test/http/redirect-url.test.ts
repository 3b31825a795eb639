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
  test("whose host is no host name or address is dropped on every body type: stored, answered as a post without it", async () => {
    const before = await count();
    const urls = [
      'https://a"b.example/thanks',
      "https://a<b>.example/",
      "https://a_b.example/",
      "https://user:secret@example.com/",
    ];
    for (const url of urls) {
      for (const [type, make] of Object.entries(BODY_TYPES)) {
        const res = await post(make(url));
        const body = await res.json();
        expect([url, type, res.status, res.headers.get("location"), body.success, body.redirect]).toEqual([
          url,
          type,
          200,
          null,
          true,
          undefined,
        ]);
      }
    }
    expect(await count()).toBe(before + urls.length * 3);
    const { warnings } = (await server.json(`/api/v1/forms/${owner.formId}`, { key: owner.key })).body;
    expect(warnings.map((w: { target: string }) => w.target)).toEqual(urls.toReversed());
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
