import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { gzipSync } from "node:zlib";
import { seedForm, seedOwner, startTestServer, type TestServer } from "../helpers/harness";

let server: TestServer;
const OWNER = "page-logic@example.com";

beforeAll(async () => {
  server = await startTestServer();
  await seedOwner(server, OWNER);
});
afterAll(() => server.close());

const page = async (formId: string) => (await fetch(`${server.url}/f/${formId}`)).text();
// The page's own stylesheets and scripts, as it links them (the proof-of-work widget, loaded only for a form that asks for one, is not the page's).
const assets = (html: string) =>
  [...html.matchAll(/<(?:link rel="stylesheet"[^>]* href|script[^>]* src)="(\/f\/assets\/[^"]+)"/g)].map((m) => m[1]!);

describe("the hosted page's weight", () => {
  test("a form with steps and conditions links its script and stylesheet, together at most 30 KB gzipped", async () => {
    const { id } = await seedForm(server, OWNER, {
      name: "Heavy?",
      accentColor: "#0f766e",
      fields: [
        { name: "a", type: "text" },
        { name: "p", type: "page", label: "Two" },
        { name: "b", type: "text", showIf: { field: "a", notEmpty: true } },
      ],
    });
    const linked = assets(await page(id));
    expect(linked).toContain("/f/assets/page.js");
    expect(linked).toContain("/f/assets/page.css");
    let bytes = 0;
    for (const path of linked) {
      const res = await fetch(`${server.url}${path}`);
      expect([path, res.status]).toEqual([path, 200]);
      bytes += gzipSync(new Uint8Array(await res.arrayBuffer())).length;
    }
    expect(bytes).toBeLessThanOrEqual(30 * 1024);
  });

  test("a form without steps or conditions gets no script at all", async () => {
    const { id } = await seedForm(server, OWNER, { name: "Plain", fields: [{ name: "a", type: "text" }] });
    const html = await page(id);
    expect(html).not.toContain("<script");
    expect(html).not.toContain("data-logic");
  });

  test("without script, a conditional field is not marked required for the browser (the server checks it when it applies)", async () => {
    const { id } = await seedForm(server, OWNER, {
      name: "Cond",
      fields: [
        { name: "a", type: "text", required: true },
        { name: "b", type: "text", required: true, showIf: { field: "a", equals: "x" } },
      ],
    });
    const html = await page(id);
    expect(html).toMatch(/<input type="text" id="f0" name="a" required>/);
    expect(html).toMatch(/<input type="text" id="f1" name="b" data-required>/);
    expect(html).toContain(`data-show-if="{&quot;field&quot;:&quot;a&quot;,&quot;equals&quot;:&quot;x&quot;}"`);
  });
});
