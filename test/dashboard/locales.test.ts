import { afterAll, beforeAll, expect, test } from "bun:test";
import { launchBrowser, type TestBrowser } from "../helpers/browser";
import {
  logIn,
  movableClock,
  PASSWORD,
  saveScreenshot,
  seedDashboard,
  setPassword,
  watchConsole,
} from "../helpers/dashboard";
import { startTestServer, type TestServer } from "../helpers/harness";

// The dashboard under the language tags browsers really report: one Intl refuses (a headless
// Chromium under LANG=C), a script and a region, a right-to-left one, and none at all.

let server: TestServer;
let browser: TestBrowser;
let seed: Awaited<ReturnType<typeof seedDashboard>>;
const clock = movableClock();

beforeAll(async () => {
  [server, browser] = await Promise.all([
    startTestServer({ clock, config: { rateLimit: 100_000, trustProxy: true } }),
    launchBrowser(),
  ]);
  seed = await seedDashboard(server, clock, 8);
  await setPassword(server.db, seed.email);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

// What the browser itself reports, past any override on the navigator object.
const reported = () => Object.getOwnPropertyDescriptor(Navigator.prototype, "language")!.get!.call(navigator) as string;

for (const [name, tag] of [
  ["en-US@posix", "en-US@posix"],
  ["zh-Hant-TW", "zh-Hant-TW"],
  ["ar", "ar"],
  ["none", ""],
] as const) {
  test(`the setup page, the forms and a form's analytics render under the language ${name}`, async () => {
    // Chromium takes any tag as the context's locale; a browser reporting none is made with a script.
    const opened = await browser.newPage(tag ? { locale: tag } : {});
    if (!tag)
      await opened.context.addInitScript(() => {
        Object.defineProperty(Navigator.prototype, "language", { configurable: true, get: () => "" });
        Object.defineProperty(Navigator.prototype, "languages", { configurable: true, get: () => [] });
      });
    const console = watchConsole(opened.page);
    const { page } = opened;
    try {
      await page.goto(`${server.url}/dashboard/setup`);
      expect(await page.evaluate(reported)).toBe(tag);
      await page.getByRole("heading", { name: "Set up formsvc" }).waitFor();

      await logIn(page, server.url, seed.email, PASSWORD);
      const contact = page.getByRole("row").filter({ hasText: "Contact" });
      await contact.getByRole("img", { name: /submissions in the last 30 days/ }).waitFor();

      await page.goto(`${server.url}/dashboard#/forms/${seed.formId}`);
      await page.locator(".chart canvas").waitFor();
      expect(await page.locator('[data-testid="total-submissions"]').innerText()).not.toBe("");
      await saveScreenshot(page, `analytics-language-${name.replace(/\W/g, "-")}`);
      expect(console.unexpected("/api/v1/auth/me")).toEqual([]);
      expect(opened.blocked).toEqual([]);
    } finally {
      await opened.close();
    }
  });
}
