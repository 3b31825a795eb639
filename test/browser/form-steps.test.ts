import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { FieldRule } from "../../src/modules/forms/model";
import { launchBrowser, screenshot, type TestBrowser } from "../helpers/browser";
import { seedForm, seedOwner, startTestServer, type TestServer } from "../helpers/harness";
import { fieldsOf, storedRows } from "./site";

let server: TestServer;
let browser: TestBrowser;
const OWNER = "steps-browser@example.com";
const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };

beforeAll(async () => {
  [server, browser] = await Promise.all([startTestServer(), launchBrowser()]);
  await seedOwner(server, OWNER);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

// Three steps; how to reach you decides which of email and phone is asked, and a ticked box asks one more.
const FIELDS = [
  { name: "name", type: "text", label: "Your name", required: true },
  { name: "contact", type: "radio", label: "Reach me by", options: ["email", "phone"], required: true },
  { name: "details", type: "page", label: "Your details" },
  { name: "email", type: "email", label: "Email", required: true, showIf: { field: "contact", equals: "email" } },
  { name: "phone", type: "tel", label: "Phone", required: true, showIf: { field: "contact", equals: "phone" } },
  { name: "news", type: "checkbox", label: "Send me news", showIf: { field: "email", notEmpty: true } },
  { name: "topics", type: "text", label: "Which topics", required: true, showIf: { field: "news", equals: "true" } },
  { name: "last", type: "page", label: "Anything else" },
  { name: "message", type: "textarea", label: "Message" },
] satisfies FieldRule[];

type Page = import("playwright-core").Page;
// A field by its label as written, the required mark after it or not.
const field = (page: Page, label: string) => page.getByLabel(new RegExp(`^\\s*${label}( \\*)?\\s*$`));
const visible = (page: Page, label: string) => field(page, label).isVisible();

describe("a form with steps and conditions, with JavaScript", () => {
  test("shows one step at a time, checks each before the next, shows and hides conditional fields live, and sends only what applies", async () => {
    const formId = (await seedForm(server, OWNER, { name: "Steps", fields: FIELDS })).id;
    const { page, blocked, errors, close } = await browser.newPage(PHONE);
    try {
      await page.goto(`${server.url}/f/${formId}`);
      // The details step has no field that applies until a way to reach you is chosen: not counted yet.
      await page.getByText("Step 1 of 2").waitFor();
      expect(await visible(page, "Your name")).toBe(true);
      expect(await page.getByRole("heading", { name: "Your details" }).isVisible()).toBe(false);
      expect(await page.getByRole("button", { name: "Send" }).isVisible()).toBe(false);
      expect(await page.getByRole("button", { name: "Back" }).isVisible()).toBe(false);
      expect(await page.getByText("Only if").count()).toBeGreaterThan(0);
      expect(await page.getByText("Only if").first().isVisible()).toBe(false);

      // Next with the step's required fields empty stays, and the browser says which.
      await page.getByRole("button", { name: "Next" }).click();
      expect(await page.getByText("Step 1 of 2").isVisible()).toBe(true);
      expect(await field(page, "Your name").evaluate((el: HTMLInputElement) => el.validationMessage)).not.toBe("");
      await field(page, "Your name").fill("Ada");
      // Enter in a field is Next, not Send: the step is checked, and nothing is posted.
      await field(page, "Your name").press("Enter");
      expect(await page.getByText("Step 1 of 2").isVisible()).toBe(true);
      expect(page.url()).toBe(`${server.url}/f/${formId}`);
      await page.getByRole("button", { name: "Next" }).click();
      expect(await page.getByText("Step 1 of 2").isVisible()).toBe(true); // the radio is required too
      await page.getByRole("radio", { name: "phone" }).check();
      expect(await page.getByText("Step 1 of 3").isVisible()).toBe(true);
      await field(page, "Your name").press("Enter"); // the step is complete: Enter goes on

      await page.getByText("Step 2 of 3").waitFor();
      expect(await page.getByRole("heading", { name: "Your details" }).isVisible()).toBe(true);
      expect(await visible(page, "Phone")).toBe(true);
      expect(await visible(page, "Email")).toBe(false);
      expect(await visible(page, "Send me news")).toBe(false);
      await screenshot(page, "steps-phone-step2");

      // Back keeps what was typed; choosing email swaps the fields live, and the chain follows.
      await page.getByRole("button", { name: "Back" }).click();
      await page.getByText("Step 1 of 3").waitFor();
      expect(await field(page, "Your name").inputValue()).toBe("Ada");
      await page.getByRole("radio", { name: "email" }).check();
      await page.getByRole("button", { name: "Next" }).click();
      await page.getByText("Step 2 of 3").waitFor();
      expect(await visible(page, "Phone")).toBe(false);
      expect(await visible(page, "Email")).toBe(true);
      expect(await visible(page, "Send me news")).toBe(false);
      await field(page, "Email").fill("ada@example.com");
      expect(await visible(page, "Send me news")).toBe(true);
      await field(page, "Send me news").check();
      expect(await visible(page, "Which topics")).toBe(true);
      await page.getByRole("button", { name: "Next" }).click();
      expect(await page.getByText("Step 2 of 3").isVisible()).toBe(true); // topics is required now
      await field(page, "Send me news").uncheck();
      expect(await visible(page, "Which topics")).toBe(false);
      await page.getByRole("button", { name: "Next" }).click();

      await page.getByText("Step 3 of 3").waitFor();
      expect(await page.getByRole("button", { name: "Next" }).isVisible()).toBe(false);
      await field(page, "Message").fill("Hello");
      await page.getByRole("button", { name: "Send" }).click();
      await page.waitForURL(/\/thanks/);
      expect((await storedRows(server, formId)).map((r) => fieldsOf(r.data))).toEqual([
        { name: "Ada", contact: "email", email: "ada@example.com", news: false, message: "Hello" },
      ]);
      expect(errors).toEqual([]);
      expect(blocked).toEqual([]);
    } finally {
      await close();
    }
  });

  test("a post the server refuses comes back on the step holding the problem", async () => {
    // maxLength the browser does not check on a value set by script: the server refuses it.
    const fields = [
      { name: "a", type: "text", label: "First" },
      { name: "p", type: "page", label: "Second step" },
      { name: "b", type: "text", label: "Second", maxLength: 3 },
    ] satisfies FieldRule[];
    const formId = (await seedForm(server, OWNER, { name: "Refused", fields })).id;
    const { page, close } = await browser.newPage(PHONE);
    try {
      await page.goto(`${server.url}/f/${formId}`);
      await field(page, "Second").evaluate((el: HTMLInputElement) => (el.value = "toolong"));
      await page.evaluate(() => document.querySelector("form")!.submit());
      await page.getByText("Step 2 of 2").waitFor();
      expect(await page.getByText("must be at most 3 characters").first().isVisible()).toBe(true);
      expect(await storedRows(server, formId)).toEqual([]);
    } finally {
      await close();
    }
  });

  test("a 10-step form works on a phone (390×844), step by step to the end", async () => {
    const fields: FieldRule[] = [];
    for (let i = 1; i <= 10; i++) {
      if (i > 1) fields.push({ name: `step${i}`, type: "page", label: `Part ${i}` });
      fields.push({ name: `q${i}`, type: "text", label: `Question ${i}`, required: true });
      fields.push({
        name: `more${i}`,
        type: "textarea",
        label: `More on ${i}`,
        showIf: { field: `q${i}`, equals: "yes" },
      });
    }
    const formId = (await seedForm(server, OWNER, { name: "Ten steps", fields })).id;
    const { page, errors, close } = await browser.newPage(PHONE);
    try {
      await page.goto(`${server.url}/f/${formId}`);
      for (let i = 1; i <= 10; i++) {
        await page.getByText(`Step ${i} of 10`).waitFor();
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
        expect(await page.locator("progress").evaluate((el: HTMLProgressElement) => [el.value, el.max])).toEqual([
          i,
          10,
        ]);
        await field(page, `Question ${i}`).fill(i % 2 ? "yes" : "no");
        if (i % 2) await field(page, `More on ${i}`).fill(`note ${i}`);
        if (i === 1 || i === 10) await screenshot(page, `steps-ten-phone-${i}`);
        await page.getByRole("button", { name: i < 10 ? "Next" : "Send" }).click();
      }
      await page.waitForURL(/\/thanks/);
      const [row] = await storedRows(server, formId);
      expect(Object.keys(fieldsOf(row!.data)).length).toBe(15);
      expect(fieldsOf(row!.data)).toMatchObject({ q1: "yes", more1: "note 1", q10: "no" });
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  });
});

describe("the same form without JavaScript", () => {
  test("shows every step on one page under its heading, conditional fields too, and the server drops what does not apply", async () => {
    const formId = (await seedForm(server, OWNER, { name: "No script", fields: FIELDS })).id;
    const { page, errors, close } = await browser.newPage({ ...PHONE, javaScriptEnabled: false });
    try {
      await page.goto(`${server.url}/f/${formId}`);
      for (const heading of ["Your details", "Anything else"])
        expect(await page.getByRole("heading", { name: heading }).isVisible()).toBe(true);
      for (const label of ["Your name", "Email", "Phone", "Send me news", "Which topics", "Message"])
        expect([label, await visible(page, label)]).toEqual([label, true]);
      expect(await page.getByText("Step 1 of").count()).toBe(0);
      // Each conditional field says when it applies, since nothing hides it.
      expect(await page.getByText("Only if “Reach me by” is “email”").isVisible()).toBe(true);
      expect(await page.getByText("Only if “Send me news” is ticked").isVisible()).toBe(true);
      await screenshot(page, "steps-no-script");
      await field(page, "Your name").fill("Bo");
      await page.getByRole("radio", { name: "phone" }).check();
      await field(page, "Phone").fill("+44 20");
      // Typed into fields that do not apply: they are not stored, and not required.
      await field(page, "Send me news").check();
      await page.getByRole("button", { name: "Send" }).click();
      await page.waitForURL(/\/thanks/);
      expect((await storedRows(server, formId)).map((r) => fieldsOf(r.data))).toEqual([
        { name: "Bo", contact: "phone", phone: "+44 20", message: "" },
      ]);
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  });
});
