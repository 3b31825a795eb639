import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { launchBrowser, type OfflinePage, type TestBrowser } from "../helpers/browser";
import {
  logIn,
  PASSWORD,
  saveScreenshot,
  saveSection,
  setPassword,
  settingsSection,
  watchConsole,
} from "../helpers/dashboard";
import { seedForm, seedOwner, startTestServer, type TestServer } from "../helpers/harness";

// The settings page in sections, in a real Chromium against a real server: each section saves its own
// settings, says when it holds unsaved edits, and shows the server's refusal where it belongs.

let server: TestServer;
let browser: TestBrowser;
let key: string;
const EMAIL = "sections@example.com";

beforeAll(async () => {
  [server, browser] = await Promise.all([startTestServer(), launchBrowser()]);
  ({ key } = await seedOwner(server, EMAIL, { name: "Unused" }));
  await setPassword(server.db, EMAIL);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const getForm = async (id: string) => (await server.json(`/api/v1/forms/${id}`, { key })).body;

/** A fresh form of the owner, and a browser logged in on its settings page. */
async function openSettings(
  form: Parameters<typeof seedForm>[2] = {},
  options: Parameters<TestBrowser["newPage"]>[0] = {},
) {
  const { id } = await seedForm(server, EMAIL, { name: "Contact", formType: "contact", ...form });
  const opened = await browser.newPage({ locale: "en-GB", ...options });
  const console = watchConsole(opened.page);
  await logIn(opened.page, server.url, EMAIL, PASSWORD, `#/forms/${id}/settings`);
  await opened.page.getByRole("button", { name: "Save General settings" }).waitFor();
  return { ...opened, id, console };
}

/** Closes the page after checking it logged no error but the 400s a test asked for, and reached no other host. */
async function finish(opened: OfflinePage & { console: ReturnType<typeof watchConsole> }, refusals = 0) {
  try {
    const unexpected = opened.console.unexpected("/api/v1/auth/me");
    expect(unexpected.filter((e) => !/status of 400/.test(e))).toEqual([]);
    expect(unexpected.length).toBe(refusals);
    expect(opened.blocked).toEqual([]);
  } finally {
    await opened.close();
  }
}

const marked = (page: Page, title: string) => settingsSection(page, title).getByText("Unsaved changes");

describe("the settings page in sections", () => {
  test("saving one section sends only its settings: the others keep their unsaved edits, and the API its values", async () => {
    const opened = await openSettings();
    const { page, id } = opened;
    await page.getByLabel("Name", { exact: true }).fill("Renamed");
    await page.getByLabel("Allowed origins").fill("https://www.example.com");
    await marked(page, "General").waitFor();
    await marked(page, "Who may post").waitFor();
    expect(await marked(page, "Email").count()).toBe(0);

    const { status, sent } = await saveSection(page, "General");
    expect(status).toBe(200);
    expect(sent).toEqual({ name: "Renamed" });
    const form = await getForm(id);
    expect(form.name).toBe("Renamed");
    expect(form.allowedOrigins).toEqual([]);

    // General says it is saved; Who may post still holds its edit, marked, and saves on its own.
    await settingsSection(page, "General").getByRole("status").getByText("Saved").waitFor();
    expect(await marked(page, "General").count()).toBe(0);
    await marked(page, "Who may post").waitFor();
    expect(await page.getByLabel("Allowed origins").inputValue()).toBe("https://www.example.com");
    expect(await page.getByRole("navigation", { name: "Settings sections" }).getByRole("link").allInnerTexts()).toEqual(
      ["General", "Fields", "Email", "Who may post", "Spam defences", "Keeping submissions"],
    );
    await page.getByRole("link", { name: "Who may post (unsaved changes)" }).waitFor();

    expect(await saveSection(page, "Who may post")).toEqual({
      status: 200,
      sent: { allowedOrigins: ["https://www.example.com"] },
    });
    expect((await getForm(id)).allowedOrigins).toEqual(["https://www.example.com"]);
    expect(await page.locator("fieldset[data-unsaved]").count()).toBe(0);
    await finish(opened);
  });

  test("leaving with unsaved edits asks first, by the dashboard's own links and by the browser; a section link does not", async () => {
    const opened = await openSettings();
    const { page, id } = opened;
    await page.getByLabel("Blocked words").fill("casino");
    await marked(page, "Spam defences").waitFor();

    // The section links move within the page, asking nothing (a dialog would fail the click's wait).
    let asked: string[] = [];
    page.on("dialog", (d) => void asked.push(`${d.type()}: ${d.message()}`));
    await page.getByRole("navigation", { name: "Settings sections" }).getByRole("link", { name: "Email" }).click();
    await page.waitForURL(/section=email/);
    expect(asked).toEqual([]);
    page.removeAllListeners("dialog");

    // Another tab: the question names the section; staying keeps the page and the edit.
    const dismissed = new Promise<void>((resolve) =>
      page.once("dialog", (d) => {
        asked.push(`${d.type()}: ${d.message()}`);
        void d.dismiss().then(resolve);
      }),
    );
    await page.getByRole("navigation", { name: "Form" }).getByRole("link", { name: "Submissions" }).click();
    await dismissed;
    await page.waitForFunction(() => location.hash.endsWith("/settings?section=email"));
    expect(asked).toEqual(["confirm: Unsaved changes in Spam defences will be lost. Leave this page?"]);
    expect(await page.getByLabel("Blocked words").inputValue()).toBe("casino");
    expect(page.url()).toContain(`#/forms/${id}/settings`);

    // Leaving the dashboard (reload, close, another address) asks the browser's own question.
    asked = [];
    const question = page.waitForEvent("dialog");
    await page.close({ runBeforeUnload: true });
    const dialog = await question;
    expect(dialog.type()).toBe("beforeunload");
    await dialog.accept();
    expect((await getForm(id)).spamSettings.blockedWords).toEqual([]);
    await opened.close();
  });

  test("leaving after saving asks nothing, and accepting the question leaves", async () => {
    const opened = await openSettings();
    const { page } = opened;
    await page.getByLabel("Blocked words").fill("casino");
    const tab = (name: string) => page.getByRole("navigation", { name: "Form" }).getByRole("link", { name });
    const asked: string[] = [];
    const accepted = new Promise<void>((resolve) =>
      page.once("dialog", (d) => {
        asked.push(d.type());
        void d.accept().then(resolve);
      }),
    );
    await tab("Embed").click();
    await accepted;
    await page.locator('.tabs a[aria-current="page"]', { hasText: "Embed" }).waitFor();
    expect(asked).toEqual(["confirm"]);

    // A question now would be dismissed, and the page would stay on Settings.
    page.on("dialog", (d) => {
      asked.push(d.type());
      void d.dismiss();
    });
    await tab("Settings").click();
    await page.getByLabel("Blocked words").fill("casino");
    expect((await saveSection(page, "Spam defences")).status).toBe(200);
    await tab("Embed").click();
    await page.locator('.tabs a[aria-current="page"]', { hasText: "Embed" }).waitFor();
    expect(asked).toEqual(["confirm"]);
    await finish(opened);
  });

  test("a 400 is shown at the setting it names, or at its section, and nothing is changed", async () => {
    const opened = await openSettings({ formType: "waitlist", doubleOptIn: true });
    const { page, id } = opened;
    // The browser takes any absolute URL; the server takes only http(s).
    await page.getByLabel("After a drop-in submit, go to").fill("ftp://files.example/thanks");
    expect((await saveSection(page, "Who may post")).status).toBe(400);
    const at = page.locator(".field", { has: page.locator('[name="successUrl"]') }).locator(".field-error");
    await at.getByText("successUrl:").waitFor();
    expect(await page.locator('[name="successUrl"]').getAttribute("aria-invalid")).toBe("true");
    expect(await settingsSection(page, "Who may post").getByRole("alert").count()).toBe(1);
    await marked(page, "Who may post").waitFor();
    expect((await getForm(id)).successUrl).toBeNull();

    // A rule between settings of two sections: said by the section that was saved.
    await page.locator(`[name="formType"]`).selectOption("contact");
    expect((await saveSection(page, "General")).status).toBe(400);
    const note = settingsSection(page, "General").locator(".note-error");
    await note.getByText("Double opt-in is for waitlist forms").waitFor();
    expect((await getForm(id)).formType).toBe("waitlist");
    expect(await settingsSection(page, "Email").locator(".note-error").count()).toBe(0);
    await finish(opened, 2);
  });

  for (const [width, height, scheme] of [
    [390, 844, "light"],
    [390, 844, "dark"],
    [1280, 900, "light"],
    [1280, 900, "dark"],
  ] as const)
    test(`fits a ${width}-pixel screen in ${scheme} mode, with an unsaved section and a refusal showing`, async () => {
      const opened = await openSettings({}, { viewport: { width, height }, colorScheme: scheme });
      const { page } = opened;
      await page.getByLabel("Name", { exact: true }).fill("Contact form");
      await saveScreenshot(page, `settings-sections-${width}-${scheme}-top`, false);
      await page.getByLabel("After a drop-in submit, go to").fill("ftp://files.example/thanks");
      expect((await saveSection(page, "Who may post")).status).toBe(400);
      await page.locator(".field-error").waitFor();
      // Nothing sticks out sideways; on a wide screen the section links stay at the top while the page scrolls.
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      await saveScreenshot(page, `settings-sections-${width}-${scheme}`, false);
      await page
        .getByRole("navigation", { name: "Settings sections" })
        .getByRole("link", { name: "Who may post" })
        .click();
      await page.waitForURL(/section=who-may-post/);
      const nav = await page.getByRole("navigation", { name: "Settings sections" }).boundingBox();
      const section = await settingsSection(page, "Who may post").boundingBox();
      if (width > 760) {
        expect(nav?.y).toBe(0);
        expect(section!.y).toBeGreaterThanOrEqual(nav!.height);
      } else expect(nav!.y).toBeLessThan(0);
      await saveScreenshot(page, `settings-sections-${width}-${scheme}-scrolled`, false);
      await finish(opened, 1);
    });
});
