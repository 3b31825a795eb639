import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { launchBrowser, type TestBrowser } from "../helpers/browser";
import { logIn, PASSWORD, saveScreenshot, setPassword, watchConsole } from "../helpers/dashboard";
import { seedOwner, startTestServer, type TestServer } from "../helpers/harness";

let server: TestServer;
let browser: TestBrowser;
let formId: string;
const EMAIL = "partials-folder@example.com";

beforeAll(async () => {
  [server, browser] = await Promise.all([startTestServer(), launchBrowser()]);
  ({ formId } = await seedOwner(server, EMAIL, {
    name: "Application",
    partialSubmissions: true,
    fields: [
      { name: "name", type: "text", label: "Your name", required: true },
      { name: "email", type: "email" },
      { name: "message", type: "textarea", required: true },
    ],
  }));
  await setPassword(server.db, EMAIL);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe("the inbox's Partial folder", () => {
  test("lists what visitors saved halfway, apart from the inbox, which stays empty", async () => {
    const saved = await server.json(`/f/${formId}/partial`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify({ name: "Ada", email: "ada@example.com" }),
    });
    expect(saved.status).toBe(200);
    const { page, close } = await browser.newPage({ locale: "en-GB", viewport: { width: 1200, height: 900 } });
    const console = watchConsole(page);
    try {
      await logIn(page, server.url, EMAIL, PASSWORD, `#/forms/${formId}/submissions`);
      await page.getByRole("link", { name: "Partial", exact: true }).click();
      await page.getByText("Your name: Ada · Email: ada@example.com").waitFor();
      expect(await page.getByRole("cell", { name: "ada@example.com", exact: true }).isVisible()).toBe(true);
      await saveScreenshot(page, "inbox-partial-folder");
      await page.getByRole("link", { name: "Inbox", exact: true }).click();
      await page.getByText("Your name: Ada").waitFor({ state: "detached" });
      expect(console.unexpected("/api/v1/auth/me")).toEqual([]);
    } finally {
      await close();
    }
  });
});
