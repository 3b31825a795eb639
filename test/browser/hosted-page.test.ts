import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { FieldRule } from "../../src/modules/forms/model";
import { launchBrowser, screenshot, type TestBrowser } from "../helpers/browser";
import { seedForm, seedOwner, startTestServer, type TestServer } from "../helpers/harness";

let server: TestServer;
let browser: TestBrowser;
const OWNER = "hosted-browser@example.com";

beforeAll(async () => {
  [server, browser] = await Promise.all([startTestServer(), launchBrowser()]);
  await seedOwner(server, OWNER);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const FIELDS = [
  { name: "name", type: "text", label: "Your name", required: true },
  { name: "email", type: "email", label: "Email", required: true, placeholder: "you@example.com" },
  { name: "topic", type: "radio", label: "Topic", options: ["Sales", "Support"] },
  { name: "size", type: "select", label: "Size", options: ["S", "M", "L"] },
  { name: "message", type: "textarea", label: "Message" },
  { name: "agree", type: "checkbox", label: "Keep me posted" },
] satisfies FieldRule[];
const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };

describe("the hosted page in Chromium", () => {
  for (const colorScheme of ["light", "dark"] as const)
    test(`fits a phone in ${colorScheme} mode, styled from formsvc alone with nothing the policy refuses`, async () => {
      const formId = (
        await seedForm(server, OWNER, { name: "Contact us", description: "We answer within a day.", fields: FIELDS })
      ).id;
      const { page, blocked, errors, close } = await browser.newPage({ ...PHONE, colorScheme });
      try {
        await page.goto(`${server.url}/f/${formId}`);
        await page.getByRole("heading", { name: "Contact us" }).waitFor();
        // No horizontal scrolling on a phone; the stylesheet applied (the honeypot is off screen).
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
        expect(await page.locator(".hp").evaluate((el) => el.getBoundingClientRect().right)).toBeLessThan(0);
        const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
        expect(background).toBe(colorScheme === "dark" ? "rgb(17, 21, 28)" : "rgb(246, 247, 249)");
        await screenshot(page, `hosted-page-phone-${colorScheme}`);
        expect(errors).toEqual([]);
        expect(blocked).toEqual([]);
      } finally {
        await close();
      }
    });

  test("takes the keyboard in the fields' order, skipping the honeypot, with every control named", async () => {
    const formId = (await seedForm(server, OWNER, { name: "Keyboard", fields: FIELDS })).id;
    const { page, close } = await browser.newPage(PHONE);
    try {
      await page.goto(`${server.url}/f/${formId}`);
      const order: string[] = [];
      for (let i = 0; i < 7; i++) {
        await page.keyboard.press("Tab");
        order.push(
          await page.evaluate(() => {
            const el = document.activeElement as HTMLInputElement;
            return `${el.tagName.toLowerCase()} ${el.name || el.textContent}`;
          }),
        );
      }
      // One stop per radio group (arrows move within it), then on to the button; never the honeypot.
      expect(order).toEqual([
        "input name",
        "input email",
        "input topic",
        "select size",
        "textarea message",
        "input agree",
        "button Send",
      ]);
      for (const name of ["Your name", "Email", "Size", "Message", "Keep me posted"])
        await page.getByLabel(name).first().waitFor();
      await page.getByRole("group", { name: "Topic" }).getByRole("radio", { name: "Support" }).waitFor();
    } finally {
      await close();
    }
  });

  test("loads the ALTCHA widget from formsvc for a pow form, which solves the keyless challenge without a policy error", async () => {
    const formId = (await seedForm(server, OWNER, { name: "Pow", fields: FIELDS, challenge: "pow" })).id;
    const { page, blocked, errors, close } = await browser.newPage(PHONE);
    try {
      await page.goto(`${server.url}/f/${formId}`);
      await page.getByLabel("Your name").fill("Ada");
      const payload = await page.waitForFunction(
        () => (document.querySelector('input[name="altcha"]') as HTMLInputElement | null)?.value || null,
      );
      expect(String(await payload.jsonValue()).length).toBeGreaterThan(20);
      await screenshot(page, "hosted-page-pow-solved");
      expect(errors).toEqual([]);
      expect(blocked).toEqual([]);
    } finally {
      await close();
    }
  });
});
