import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { FieldRule } from "../../src/modules/forms/model";
import { launchBrowser, screenshot, type OfflinePage, type TestBrowser } from "../helpers/browser";
import { seedForm, seedOwner, startTestServer, type TestServer } from "../helpers/harness";
import { fieldsOf, storedRows } from "./site";

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

describe("the hosted page sent in Chromium, without script", () => {
  /** Fills every field of FIELDS but the email, as a person would. */
  async function fillAllButEmail(page: OfflinePage["page"]) {
    await page.getByLabel("Your name").fill("Ada Lovelace");
    await page.getByRole("group", { name: "Topic" }).getByRole("radio", { name: "Support" }).check();
    await page.getByLabel("Size").selectOption("M");
    await page.getByLabel("Message").fill("Hello from the hosted page");
    await page.getByLabel("Keep me posted").check();
  }
  const SENT = { name: "Ada Lovelace", topic: "Support", size: "M", message: "Hello from the hosted page" };

  test("lands on the thank-you page, which links back to the form, and is stored once with typed values", async () => {
    const formId = (await seedForm(server, OWNER, { name: "Hosted contact", fields: FIELDS })).id;
    const { page, blocked, errors, close } = await browser.newPage(PHONE);
    try {
      const url = `${server.url}/f/${formId}`;
      await page.goto(url);
      await fillAllButEmail(page);
      await page.getByLabel("Email").fill("ada@example.com");
      await screenshot(page, "hosted-page-filled");
      await Promise.all([
        page.waitForURL((at) => at.href.startsWith(`${url}/thanks?back=${encodeURIComponent(url)}&sig=`)),
        page.getByRole("button", { name: "Send" }).click(),
      ]);
      await page.getByRole("heading", { name: "Thank you!" }).waitFor();
      await screenshot(page, "hosted-page-thanks");
      expect(await page.getByRole("link", { name: "Go back to the site" }).getAttribute("href")).toBe(url);
      expect((await storedRows(server, formId)).map((r) => ({ status: r.status, data: fieldsOf(r.data) }))).toEqual([
        { status: "inbox", data: { ...SENT, email: "ada@example.com", agree: true } },
      ]);
      expect(errors).toEqual([]);
      expect(blocked).toEqual([]);
    } finally {
      await close();
    }
  });

  test("with an email the browser accepts and the server refuses, comes back as a 400 with the error beside the field and the other values kept", async () => {
    const formId = (await seedForm(server, OWNER, { name: "Hosted refusal", fields: FIELDS })).id;
    const { page, blocked, errors, close } = await browser.newPage(PHONE);
    try {
      await page.goto(`${server.url}/f/${formId}`);
      await fillAllButEmail(page);
      // No dot in the domain: valid for <input type=email>, so the browser sends it; not for the field's rule.
      const email = page.getByLabel("Email");
      await email.fill("ada@localhost");
      expect(await email.evaluate((el: HTMLInputElement) => el.checkValidity())).toBe(true);
      const [answer] = await Promise.all([
        page.waitForResponse((r) => r.url() === `${server.url}/f/${formId}` && r.request().method() === "POST"),
        page.getByRole("button", { name: "Send" }).click(),
      ]);
      expect(answer.status()).toBe(400);
      await page.getByRole("alert").getByText("Please check this").waitFor();
      await screenshot(page, "hosted-page-refused");

      // The error is tied to the field: marked invalid, described by the message shown beside it.
      expect(await email.getAttribute("aria-invalid")).toBe("true");
      const describedBy = (await email.getAttribute("aria-describedby"))!;
      expect(await page.locator(`[id="${describedBy}"]`).textContent()).toBe('"Email" must be an email address');
      expect(await page.locator("[aria-invalid]").count()).toBe(1);
      // Everything the visitor typed is still there.
      expect({
        email: await email.inputValue(),
        name: await page.getByLabel("Your name").inputValue(),
        topic: await page.getByRole("radio", { name: "Support" }).isChecked(),
        size: await page.getByLabel("Size").inputValue(),
        message: await page.getByLabel("Message").inputValue(),
        agree: await page.getByLabel("Keep me posted").isChecked(),
      }).toEqual({ ...SENT, email: "ada@localhost", topic: true, agree: true });
      expect(await storedRows(server, formId)).toEqual([]);

      // Corrected and sent again, it is stored once.
      await email.fill("ada@example.com");
      await Promise.all([
        page.waitForURL((u) => u.pathname === `/f/${formId}/thanks`),
        page.getByRole("button", { name: "Send" }).click(),
      ]);
      expect((await storedRows(server, formId)).map((r) => fieldsOf(r.data))).toEqual([
        { ...SENT, email: "ada@example.com", agree: true },
      ]);
      // The 400 page itself is the one error Chrome reports; the policy refused nothing.
      expect(errors).toEqual([
        "console: Failed to load resource: the server responded with a status of 400 (Bad Request)",
      ]);
      expect(blocked).toEqual([]);
    } finally {
      await close();
    }
  });

  for (const [colorScheme, viewport] of [
    ["light", PHONE],
    ["dark", { viewport: { width: 1200, height: 800 } }],
  ] as const)
    test(`wears the owner's colour on the form, its thank-you page and its error page, with its name (${colorScheme})`, async () => {
      const formId = (await seedForm(server, OWNER, { name: "Teal contact", fields: FIELDS, accentColor: "#0f766e" }))
        .id;
      const { page, blocked, errors, close } = await browser.newPage({ ...viewport, colorScheme });
      try {
        const url = `${server.url}/f/${formId}`;
        await page.goto(url);
        await page.getByRole("heading", { name: "Teal contact" }).waitFor();
        const button = page.getByRole("button", { name: "Send" });
        // Light mode takes the colour as it is; dark mode lightens it, as it does formsvc's blue.
        const expected = colorScheme === "light" ? "rgb(15, 118, 110)" : /^(rgb|color)\(/;
        const background = await button.evaluate((b) => getComputedStyle(b).backgroundColor);
        expect(background).toMatch(expected);

        await fillAllButEmail(page);
        await page.getByLabel("Email").fill("ada@example.com");
        await button.click();
        await page.getByRole("heading", { name: "Thank you!" }).waitFor();
        const name = page.locator(".form-name");
        expect(await name.innerText()).toBe("Teal contact");
        expect(await name.evaluate((p) => getComputedStyle(p).borderLeftColor)).toMatch(expected);
        await screenshot(page, `hosted-page-thanks-accent-${colorScheme}`);

        // A post the hosted page cannot show again (a body it cannot read) gets the error page.
        const res = await fetch(url, {
          method: "POST",
          headers: { "content-type": "text/plain", accept: "text/html" },
          body: "name=Ada",
        });
        const html = await res.text();
        expect(res.status).toBe(415);
        expect(html).toContain('<p class="form-name">Teal contact</p>');
        expect(html).toContain('href="/f/assets/accent/0f766e.css"');
        // The same page as a browser shows it: a page of one's own posting a body formsvc cannot read.
        const site = Bun.serve({
          port: 0,
          hostname: "127.0.0.1",
          fetch: () =>
            new Response(
              `<!doctype html><form method="post" enctype="text/plain" action="${url}"><button>Post</button></form>`,
              { headers: { "content-type": "text/html" } },
            ),
        });
        try {
          await page.goto(`http://127.0.0.1:${site.port}/`);
          await page.getByRole("button", { name: "Post" }).click();
          await page.getByRole("heading", { name: "Your form was not sent" }).waitFor();
          expect(await page.locator(".form-name").innerText()).toBe("Teal contact");
          await screenshot(page, `hosted-page-error-accent-${colorScheme}`);
        } finally {
          await site.stop();
        }
        // The browser logs the refused post's 415 itself; nothing else may fail.
        expect(errors.filter((e) => !e.includes("status of 415"))).toEqual([]);
        expect(blocked).toEqual([]);
      } finally {
        await close();
      }
    });

  test("serves a colour's stylesheet for any six hex digits, cached for good, and nothing else", async () => {
    const css = await fetch(`${server.url}/f/assets/accent/0f766e.css`);
    expect(css.status).toBe(200);
    expect(css.headers.get("content-type")).toContain("text/css");
    expect(css.headers.get("cache-control")).toContain("immutable");
    const text = await css.text();
    expect(text).toContain("--accent: #0f766e");
    expect(text).toContain("--accent-text: #fff"); // a dark colour takes white text
    expect(await (await fetch(`${server.url}/f/assets/accent/fde047.css`)).text()).toContain("--accent-text: #0d1320");
    for (const bad of ["0F766E.css", "0f766.css", "zzzzzz.css", "0f766e.js", "..%2f..%2fetc"]) {
      const res = await fetch(`${server.url}/f/assets/accent/${bad}`);
      expect([bad, res.status]).toEqual([bad, 404]);
    }
  });
});

describe("a submitter's edit in Chromium", () => {
  test("the thank-you page's link opens the answers, and sending them changes the submission and lands on the thank-you page again", async () => {
    const formId = (await seedForm(server, OWNER, { name: "Editable", fields: FIELDS, editableDays: 7 })).id;
    const { page, blocked, errors, close } = await browser.newPage(PHONE);
    try {
      await page.goto(`${server.url}/f/${formId}`);
      await page.getByLabel("Your name").fill("Ada");
      await page.getByLabel("Email").fill("ada@example.com");
      await page.getByLabel("Message").fill("Teh typo");
      await page.getByRole("button", { name: "Send" }).click();
      await page.getByRole("heading", { name: "Thank you!" }).waitFor();
      await page.getByRole("link", { name: "change your answers" }).click();
      await page.getByText("You are changing the answers you sent").waitFor();
      expect(await page.getByLabel("Message").inputValue()).toBe("Teh typo");
      await page.getByLabel("Message").fill("The typo");
      await page.getByRole("button", { name: "Send" }).click();
      await page.getByRole("heading", { name: "Thank you!" }).waitFor();
      const [row] = await server.query("SELECT data FROM submissions WHERE form_id = ?", formId);
      expect(JSON.parse(row.data).message).toBe("The typo");
      const revisions =
        "SELECT revision FROM submission_revisions WHERE submission_id IN (SELECT id FROM submissions WHERE form_id = ?)";
      expect(await server.query(revisions, formId)).toEqual([{ revision: 1 }]);
      expect(errors).toEqual([]);
      expect(blocked).toEqual([]);
    } finally {
      await close();
    }
  });
});
