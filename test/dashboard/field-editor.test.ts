import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { dropinSnippet } from "../../src/dashboard/app/snippet";
import { launchBrowser, type TestBrowser } from "../helpers/browser";
import {
  fillFieldEditor,
  logIn,
  PASSWORD,
  saveScreenshot,
  saveSection,
  SCREENSHOTS,
  setPassword,
  watchConsole,
} from "../helpers/dashboard";
import { seedOwner, startTestServer, type TestServer } from "../helpers/harness";

let server: TestServer;
let browser: TestBrowser;
let key: string;
let formId: string;
const EMAIL = "editor@example.com";

beforeAll(async () => {
  [server, browser] = await Promise.all([startTestServer(), launchBrowser()]);
  ({ key, formId } = await seedOwner(server, EMAIL, { name: "Contact", formType: "contact" }));
  await setPassword(server.db, EMAIL);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const save = async (page: import("playwright-core").Page) =>
  expect((await saveSection(page, "Fields")).status).toBe(200);
const savedFields = async () => (await server.json(`/api/v1/forms/${formId}`, { key })).body.fields;

describe("the settings page's field editor, and the Embed page's drop-in card", () => {
  test("adds, reorders and removes fields, saves them through the API, and the Embed page previews and copies the form", async () => {
    const opened = await browser.newPage({ locale: "en-GB", viewport: { width: 1200, height: 900 } });
    const { page } = opened;
    const console = watchConsole(page);
    try {
      await logIn(page, server.url, EMAIL, PASSWORD, `#/forms/${formId}/settings`);
      await page.getByRole("button", { name: "Save Fields settings" }).waitFor();
      await fillFieldEditor(page, [
        { name: "email", type: "email", label: "Email", required: true, placeholder: "you@example.com" },
        { name: "scratch", type: "text" },
        { name: "topic", type: "radio", label: "Topic", options: ["sales", "support"], required: true },
        { name: "message", type: "textarea", label: "Message", maxLength: 500 },
      ]);
      // The message up above the topic, and the scratch field gone.
      await page.getByRole("button", { name: "Move message up" }).click();
      await page.getByRole("button", { name: "Remove scratch" }).click();
      await saveScreenshot(page, "settings-field-editor");
      await page.setViewportSize({ width: 390, height: 800 });
      await page.locator(".field-editor").screenshot({ path: `${SCREENSHOTS}/settings-field-editor-phone.png` });
      await page.setViewportSize({ width: 1200, height: 900 });
      await save(page);
      expect(await savedFields()).toEqual([
        { name: "email", type: "email", label: "Email", required: true, placeholder: "you@example.com" },
        { name: "message", type: "textarea", label: "Message", maxLength: 500 },
        { name: "topic", type: "radio", label: "Topic", options: ["sales", "support"], required: true },
      ]);

      // Reordering after a save sends the new order, and removing every field takes any fields again.
      await page.getByRole("button", { name: "Move email down" }).click();
      await save(page);
      expect((await savedFields()).map((f: { name: string }) => f.name)).toEqual(["message", "email", "topic"]);

      await page
        .getByRole("tab", { name: "Embed" })
        .or(page.getByRole("link", { name: "Embed" }))
        .first()
        .click();
      const address = `${server.url}/f/${formId}`;
      await page.getByTestId("dropin-address").getByText(address).waitFor();
      // The preview is the hosted page itself, framed.
      const preview = page.frameLocator(`iframe[title="Preview of the hosted page of Contact"]`);
      await preview.getByRole("heading", { name: "Contact" }).waitFor();
      await preview.getByRole("textbox", { name: "Email" }).waitFor();
      await saveScreenshot(page, "embed-dropin");
      // The snippet is the form's: its address and fields.
      const form = (await server.json(`/api/v1/forms/${formId}`, { key })).body;
      const expected = dropinSnippet({
        server: server.url,
        formId,
        formType: "contact",
        fields: form.fields,
        honeypotField: "_gotcha",
      });
      expect(await page.getByTestId("dropin-snippet").textContent()).toBe(expected);
      expect(expected).toContain(`action="${address}"`);
      expect(expected).toContain('<input type="radio" name="topic" value="sales" required>');

      // Removing every field: no fields list, no preview.
      await page
        .getByRole("tab", { name: "Settings" })
        .or(page.getByRole("link", { name: "Settings" }))
        .first()
        .click();
      for (const name of ["message", "email", "topic"])
        await page.getByRole("button", { name: `Remove ${name}` }).click();
      await save(page);
      expect(await savedFields()).toBeNull();

      expect(console.unexpected("/api/v1/auth/me")).toEqual([]);
      expect(opened.blocked).toEqual([]);
    } finally {
      await opened.close();
    }
  });
});
