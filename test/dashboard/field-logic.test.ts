import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { FieldRule } from "../../src/modules/forms/model";
import { launchBrowser, type TestBrowser } from "../helpers/browser";
import {
  fillFieldEditor,
  logIn,
  PASSWORD,
  saveScreenshot,
  saveSection,
  setPassword,
  watchConsole,
} from "../helpers/dashboard";
import { seedOwner, startTestServer, type TestServer } from "../helpers/harness";

let server: TestServer;
let browser: TestBrowser;
let key: string;
let formId: string;
const EMAIL = "field-logic@example.com";

beforeAll(async () => {
  [server, browser] = await Promise.all([startTestServer(), launchBrowser()]);
  ({ key, formId } = await seedOwner(server, EMAIL, { name: "Survey", formType: "contact" }));
  await setPassword(server.db, EMAIL);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const savedForm = async () => (await server.json(`/api/v1/forms/${formId}`, { key })).body;

describe("the field editor's steps and conditions, and the one-response setting", () => {
  test("adds a step and conditions (is, is one of, is filled in), saves them, and shows them again after a reload", async () => {
    const { page, close } = await browser.newPage({ locale: "en-GB", viewport: { width: 1200, height: 900 } });
    const console = watchConsole(page);
    try {
      await logIn(page, server.url, EMAIL, PASSWORD, `#/forms/${formId}/settings`);
      await page.getByRole("button", { name: "Save Fields settings" }).waitFor();
      const fields: FieldRule[] = [
        { name: "contact", type: "radio", label: "Reach me by", options: ["email", "phone", "post"], required: true },
        { name: "email", type: "email", label: "Email", required: true, showIf: { field: "contact", equals: "email" } },
        { name: "details", type: "page", label: "More about you" },
        { name: "address", type: "textarea", showIf: { field: "contact", in: ["phone", "post"] } },
        { name: "note", type: "text", showIf: { field: "email", notEmpty: true } },
      ];
      await fillFieldEditor(page, fields);
      // A condition offers only earlier fields that hold a value: never the step itself, nor a later field.
      const offered = await page
        .locator('.settings [name="fields.4.showIf.field"] option')
        .evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
      expect(offered).toEqual(["", "contact", "email", "address"]);
      expect(await page.locator('.settings [name="fields.2.required"]').count()).toBe(0);
      expect(await page.locator('.settings [name="fields.2.showIf.field"]').count()).toBe(0);
      await saveScreenshot(page, "settings-field-logic");
      expect((await saveSection(page, "Fields")).status).toBe(200);
      expect((await savedForm()).fields).toEqual(fields);

      // Read back into the editor: changing one condition to "always shown" drops it.
      await page.reload();
      await page.locator('.settings [name="fields.3.showIf.test"]').waitFor();
      expect(await page.locator('.settings [name="fields.3.showIf.test"]').inputValue()).toBe("in");
      expect(await page.locator('.settings [name="fields.3.showIf.value"]').inputValue()).toBe("phone\npost");
      await page.locator('.settings [name="fields.4.showIf.field"]').selectOption("");
      expect((await saveSection(page, "Fields")).status).toBe(200);
      expect((await savedForm()).fields[4]).toEqual({ name: "note", type: "text" });
      expect(console.unexpected("/api/v1/auth/me")).toEqual([]);
    } finally {
      await close();
    }
  });

  test("the one-response setting is a checkbox whose help says it tells visitors whether an address has answered", async () => {
    const { page, close } = await browser.newPage({ locale: "en-GB", viewport: { width: 1200, height: 900 } });
    try {
      await logIn(page, server.url, EMAIL, PASSWORD, `#/forms/${formId}/settings`);
      const box = page.getByLabel("One response per email address");
      await box.waitFor();
      await page.getByText("which tells whoever tries whether that address has answered").waitFor();
      await box.check();
      expect((await saveSection(page, "Who may post")).status).toBe(200);
      expect((await savedForm()).oneResponsePerEmail).toBe(true);
    } finally {
      await close();
    }
  });
});
