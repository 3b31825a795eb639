import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { launchBrowser, type TestBrowser } from "../helpers/browser";
import { logIn, PASSWORD, saveScreenshot, setPassword, watchConsole } from "../helpers/dashboard";
import { seedOwner, startTestServer, type TestServer } from "../helpers/harness";

const EMAIL = "reader@example.com";
let browser: TestBrowser;
let server: TestServer;
let owner: { key: string; formId: string };

beforeAll(async () => {
  [browser, server] = await Promise.all([launchBrowser(), startTestServer()]);
  await setPassword(server.db, EMAIL);
  owner = await seedOwner(server, EMAIL, {
    name: "Contact",
    fields: [{ name: "message", type: "text", label: "Your question" }],
    allowExtraFields: true,
  });
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe("the dashboard", () => {
  test("the account page sets the time zone emails write times in, offering the browser's own", async () => {
    const opened = await browser.newPage({
      locale: "en-GB",
      timezoneId: "Asia/Tokyo",
      viewport: { width: 390, height: 800 },
    });
    const { page } = opened;
    const console = watchConsole(page);
    try {
      await logIn(page, server.url, EMAIL, PASSWORD, "#/forms");
      await page.getByRole("link", { name: "Account" }).click();
      await page.getByRole("heading", { name: "Your account" }).waitFor();
      expect(await page.getByLabel("Time zone").inputValue()).toBe("UTC");
      await page.getByRole("button", { name: "Use this browser's (Asia/Tokyo)" }).click();
      await page.getByRole("button", { name: "Save" }).click();
      await page.getByText("Saved: emails now write times in Asia/Tokyo.").waitFor();
      await saveScreenshot(page, "account-phone");
      const me = await server.query("SELECT time_zone FROM owners WHERE email = ?", EMAIL);
      expect(me).toEqual([{ time_zone: "Asia/Tokyo" }]);
      expect(console.unexpected("/api/v1/auth/me")).toEqual([]);
    } finally {
      await opened.close();
    }
  });

  test("shows a submission's fields by their labels, else their names made readable", async () => {
    await server.submit(owner.key, owner.formId, { message: "How much?", inquiry_type: "sales" });
    const [row] = await server.query("SELECT id FROM submissions");
    const opened = await browser.newPage({ locale: "en-GB", viewport: { width: 1200, height: 900 } });
    const { page } = opened;
    try {
      await logIn(page, server.url, EMAIL, PASSWORD, `#/forms/${owner.formId}/submissions/${row.id}`);
      const fields = page.getByTestId("submission-fields");
      await fields.getByText("Your question").waitFor();
      expect(await fields.locator("dt").allTextContents()).toEqual(["Your question", "Inquiry type"]);
      await saveScreenshot(page, "submission-labels-desktop");
      await page.locator(".account-link").click();
      await page.getByRole("heading", { name: "Your account" }).waitFor();
      await saveScreenshot(page, "account-desktop");
    } finally {
      await opened.close();
    }
  });
});
