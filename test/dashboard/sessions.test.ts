import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { launchBrowser, type TestBrowser } from "../helpers/browser";
import { logIn, PASSWORD, saveScreenshot, setPassword, watchConsole } from "../helpers/dashboard";
import { seedOwner, startTestServer, type TestServer } from "../helpers/harness";
import { login } from "../helpers/accounts";

const EMAIL = "traveller@example.com";
const PHONE =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Version/17.0 Mobile/15E148 Safari/604.1";
const LAPTOP = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";
let browser: TestBrowser;
let server: TestServer;

beforeAll(async () => {
  [browser, server] = await Promise.all([launchBrowser(), startTestServer()]);
  await setPassword(server.db, EMAIL);
  await seedOwner(server, EMAIL);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const me = async (cookie: string) => (await server.request("/api/v1/auth/me", { headers: { cookie } })).status;

describe("the account page's sessions", () => {
  for (const width of [390, 1280]) {
    test(`at ${width} px: lists where one is logged in, this device marked, and ends one, then all others`, async () => {
      await server.exec("DELETE FROM sessions");
      const others = [
        (await login(server, EMAIL, PASSWORD, { headers: { "user-agent": LAPTOP } })).cookie!,
        (await login(server, EMAIL, PASSWORD, { headers: { "user-agent": "curl/8.5.0" } })).cookie!,
      ];
      const opened = await browser.newPage({ userAgent: PHONE, viewport: { width, height: 900 }, locale: "en-GB" });
      const { page } = opened;
      const console = watchConsole(page);
      try {
        await logIn(page, server.url, EMAIL, PASSWORD, "#/account");
        const table = page.locator(".sessions-table");
        await table.getByText("This device").waitFor();
        const rows = table.locator("tbody tr");
        expect(await rows.count()).toBe(3);
        expect(await rows.nth(0).locator("td").first().innerText()).toMatch(/^Safari on iOS\s*This device$/);
        expect(await rows.nth(1).locator("td").first().innerText()).toBe("curl/8.5.0");
        expect(await rows.nth(2).locator("td").first().innerText()).toBe("Firefox on Linux");
        expect(await rows.nth(2).locator('td[data-label="Address"]').innerText()).toBe("127.0.0.1");
        await saveScreenshot(page, `account-sessions-${width}`);

        await page.getByRole("button", { name: /^End the session of Firefox on Linux/ }).click();
        await page.getByText("Ended: that device is logged out.").waitFor();
        await table.getByText("Firefox on Linux").waitFor({ state: "detached" });
        expect(await me(others[0]!)).toBe(401);
        expect(await me(others[1]!)).toBe(200);

        await page.getByRole("button", { name: "End all other sessions" }).click();
        await page.getByText("Ended 1 other session: only this device is logged in.").waitFor();
        expect(await me(others[1]!)).toBe(401);
        await table.getByText("curl/8.5.0").waitFor({ state: "detached" });
        expect(await rows.count()).toBe(1);
        await page.getByRole("button", { name: "End all other sessions" }).waitFor({ state: "detached" });
        expect(console.unexpected("/api/v1/auth/me")).toEqual([]);
      } finally {
        await opened.close();
      }
    });
  }
});
