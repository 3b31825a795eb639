import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { FieldRule } from "../../src/modules/forms/model";
import { launchBrowser, screenshot, type TestBrowser } from "../helpers/browser";
import { seedForm, seedOwner, startTestServer, type TestServer } from "../helpers/harness";
import { until } from "../helpers/receiver";
import { fieldsOf, storedRows } from "./site";

let server: TestServer;
let browser: TestBrowser;
const OWNER = "resume-browser@example.com";
const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };

beforeAll(async () => {
  [server, browser] = await Promise.all([startTestServer(), launchBrowser()]);
  await seedOwner(server, OWNER);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

// A three-step application with a question only for "Other".
const FIELDS = [
  { name: "name", type: "text", label: "Your name", required: true },
  { name: "work", type: "page", label: "Your work" },
  { name: "role", type: "radio", label: "Role", options: ["Engineer", "Other"], required: true },
  { name: "other", type: "text", label: "Which role", required: true, showIf: { field: "role", equals: "Other" } },
  { name: "last", type: "page", label: "Last" },
  { name: "message", type: "textarea", label: "Message", required: true },
] satisfies FieldRule[];

type Page = import("playwright-core").Page;
const field = (page: Page, label: string) => page.getByLabel(new RegExp(`^\\s*${label}( \\*)?\\s*$`));
const saved = (formId: string) =>
  server.query<{ id: string; data: string }>("SELECT id, data FROM partials WHERE form_id = ?", formId);

describe("save and resume, with JavaScript", () => {
  test("Next saves each step and shows the link; the link, in another browser, brings the answers back; Send stores one submission and the partial goes", async () => {
    const formId = (await seedForm(server, OWNER, { name: "Apply", fields: FIELDS, partialSubmissions: true })).id;
    const first = await browser.newPage(PHONE);
    let link: string;
    try {
      const { page } = first;
      await page.goto(`${server.url}/f/${formId}`);
      await field(page, "Your name").fill("Ada");
      expect(await page.locator("#resume").isVisible()).toBe(false);
      await page.getByRole("button", { name: "Next" }).click();
      await page.getByText("Step 2 of 3").waitFor();
      await page.locator("#resume a").waitFor();
      link = (await page.locator("#resume a").getAttribute("href"))!;
      expect(link).toStartWith(`${server.url}/f/${formId}/resume?token=prt_`);
      const rows = await until(
        () => saved(formId),
        (r) => r.length === 1,
      );
      // The whole form as it stands (a blank textarea too), as a post of it would send it.
      expect(JSON.parse(rows[0]!.data)).toEqual({ name: "Ada", message: "" });
      await page.getByRole("radio", { name: "Other" }).check();
      await field(page, "Which role").fill("Poet");
      await page.getByRole("button", { name: "Next" }).click();
      await page.getByText("Step 3 of 3").waitFor();
      // The same partial, its values replaced; the link stays the same.
      const after = await until(
        () => saved(formId),
        (r) => r.length === 1 && JSON.parse(r[0]!.data).other === "Poet",
      );
      expect([after[0]!.id, JSON.parse(after[0]!.data)]).toEqual([
        rows[0]!.id,
        { name: "Ada", role: "Other", other: "Poet", message: "" },
      ]);
      expect(await page.locator("#resume a").getAttribute("href")).toBe(link);
      await screenshot(page, "resume-saved-step3");
      expect(first.errors).toEqual([]);
    } finally {
      await first.close();
    }

    // Another day, another browser: the link.
    const second = await browser.newPage(PHONE);
    try {
      const { page } = second;
      await page.goto(link);
      await page.getByText("Welcome back").waitFor();
      expect(await field(page, "Your name").inputValue()).toBe("Ada");
      await page.getByRole("button", { name: "Next" }).click();
      await page.getByText("Step 2 of 3").waitFor();
      expect(await page.getByRole("radio", { name: "Other" }).isChecked()).toBe(true);
      expect(await field(page, "Which role").inputValue()).toBe("Poet");
      await page.getByRole("button", { name: "Next" }).click();
      await field(page, "Message").fill("Hello");
      await page.getByRole("button", { name: "Send" }).click();
      await page.waitForURL(/\/thanks/);
      expect((await storedRows(server, formId)).map((r) => fieldsOf(r.data))).toEqual([
        { name: "Ada", role: "Other", other: "Poet", message: "Hello" },
      ]);
      expect(await saved(formId)).toEqual([]);
      expect(second.errors).toEqual([]);
    } finally {
      await second.close();
    }
  });
});

describe("save and resume, without JavaScript", () => {
  test("Save and continue later answers the link and takes an address for it; the link's page sends", async () => {
    const formId = (await seedForm(server, OWNER, { name: "Apply", fields: FIELDS, partialSubmissions: true })).id;
    const { page, errors, close } = await browser.newPage({ ...PHONE, javaScriptEnabled: false });
    try {
      await page.goto(`${server.url}/f/${formId}`);
      await field(page, "Your name").fill("Bo");
      // Required fields left empty do not stop a save.
      await page.getByRole("button", { name: "Save and continue later" }).click();
      await page.getByRole("heading", { name: "Your answers are saved" }).waitFor();
      const link = (await page.getByRole("link", { name: "Continue now" }).getAttribute("href"))!;
      expect(link).toStartWith(`${server.url}/f/${formId}/resume?token=`);
      await field(page, "Email me the link").fill("bo@example.com");
      await screenshot(page, "resume-saved-no-script");
      await page.getByRole("button", { name: "Email me the link" }).click();
      await page.getByText("We emailed the link to bo@example.com.").waitFor();
      expect(
        await server.query("SELECT recipient FROM outbox WHERE kind = 'resume_link' AND form_id = ?", formId),
      ).toEqual([{ recipient: "bo@example.com" }]);

      await page.goto(link);
      expect(await field(page, "Your name").inputValue()).toBe("Bo");
      await page.getByRole("radio", { name: "Engineer" }).check();
      await field(page, "Message").fill("Hi");
      await page.getByRole("button", { name: "Send" }).click();
      await page.waitForURL(/\/thanks/);
      expect((await storedRows(server, formId)).map((r) => fieldsOf(r.data))).toEqual([
        { name: "Bo", role: "Engineer", message: "Hi" },
      ]);
      expect(await saved(formId)).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  });
});
