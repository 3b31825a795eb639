import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { launchBrowser, screenshot, type TestBrowser } from "../helpers/browser";
import { seedOwner, startTestServer, type TestServer } from "../helpers/harness";

let server: TestServer;
let browser: TestBrowser;
let summaries: string[];

beforeAll(async () => {
  [server, browser] = await Promise.all([startTestServer(), launchBrowser()]);
  const doc = await server.json("/api/v1/openapi.json");
  summaries = Object.values<Record<string, { summary?: string }>>(doc.body.paths).flatMap((ops) =>
    Object.values(ops).map((op) => op.summary ?? ""),
  );
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe("/docs in a browser that cannot reach the internet", () => {
  test("draws every operation of the OpenAPI document from this server's own assets", async () => {
    const { page, blocked, errors, close } = await browser.newPage();
    try {
      const res = await page.goto(`${server.url}/docs`);
      expect(res?.status()).toBe(200);
      expect(summaries).toEqual(expect.arrayContaining(["Submit to a form", "List submissions"]));
      expect(summaries).not.toContain("");
      for (const summary of summaries) {
        await page.locator(".opblock-summary-description", { hasText: summary }).first().waitFor({ state: "visible" });
      }
      await page.locator(".info .title", { hasText: "formsvc" }).waitFor({ state: "visible" });
      await screenshot(page, "docs");

      expect(blocked).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  });

  test("sends Try it out to this server with the key given in Authorize", async () => {
    const { key, formId } = await seedOwner(server, "docs@example.com", { name: "Docs page form" });
    const { page, blocked, errors, close } = await browser.newPage();
    try {
      await page.goto(`${server.url}/docs`);
      await page.getByRole("button", { name: "Authorize" }).click();
      await page.locator(".auth-container input").first().fill(key);
      await page.locator(".auth-container button.authorize").first().click();
      await page.locator("button.close-modal").click();

      await page.locator(".opblock-summary-description", { hasText: "Get a form" }).click();
      await page.getByRole("button", { name: "Try it out" }).click();
      await page.locator('input[placeholder="formId"]').fill(formId);
      const answer = page.waitForResponse((res) => res.url() === `${server.url}/api/v1/forms/${formId}`);
      await page.getByRole("button", { name: "Execute" }).click();
      expect((await answer).status()).toBe(200);
      await page
        .locator(".live-responses-table .response-col_description", { hasText: "Docs page form" })
        .waitFor({ state: "visible" });

      expect(blocked).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  });

  test("shows where the JSON document is without JavaScript", async () => {
    const { page, blocked, close } = await browser.newPage({ javaScriptEnabled: false });
    try {
      await page.goto(`${server.url}/docs`);
      const link = page.locator('a[href="/api/v1/openapi.json"]');
      await link.waitFor({ state: "visible" });
      expect(await link.textContent()).toBe("/api/v1/openapi.json");
      expect(await page.locator(".opblock").count()).toBe(0);
      expect(blocked).toEqual([]);
    } finally {
      await close();
    }
  });
});
