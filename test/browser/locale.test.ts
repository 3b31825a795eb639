import { afterAll, beforeAll, expect, test } from "bun:test";
import type { FieldRule } from "../../src/modules/forms/model";
import { launchBrowser, screenshot, type TestBrowser } from "../helpers/browser";
import { seedForm, seedOwner, startTestServer, type TestServer } from "../helpers/harness";

let server: TestServer;
let browser: TestBrowser;
const OWNER = "locale-browser@example.com";

beforeAll(async () => {
  [server, browser] = await Promise.all([startTestServer(), launchBrowser()]);
  await seedOwner(server, OWNER);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const FIELDS = [
  { name: "name", type: "text", label: "Your name", required: true, minLength: 2 },
  { name: "contact", type: "radio", label: "Reach me by", options: ["email", "phone"], required: true },
  { name: "details", type: "page", label: "Your details" },
  { name: "email", type: "email", label: "Email", required: true, showIf: { field: "contact", equals: "email" } },
  { name: "size", type: "select", label: "Size", options: ["S", "M"] },
] satisfies FieldRule[];

for (const [locale, words] of [
  ["de", { step: "Schritt 1 von 2", next: "Weiter", back: "Zurück", send: "Absenden", problem: "ist ein Pflichtfeld" }],
  ["ja", { step: "ステップ 1 / 2", next: "次へ", back: "戻る", send: "送信", problem: "は必須です" }],
] as const)
  test(`a ${locale} form's steps, buttons and refusals are in its language`, async () => {
    const formId = (await seedForm(server, OWNER, { name: "Kontakt", fields: FIELDS, locale })).id;
    const { page, errors, close } = await browser.newPage({ locale: "en-US" });
    try {
      await page.goto(`${server.url}/f/${formId}`);
      // The page's script takes its words from the page: one script, every language.
      await page.getByText(words.step).waitFor();
      expect(await page.getByRole("button", { name: words.next }).isVisible()).toBe(true);
      await screenshot(page, `locale-${locale}-page`);
      await page.getByLabel(/Your name/).fill("Ada");
      await page.getByRole("radio", { name: "email" }).check();
      await page.getByRole("button", { name: words.next }).click();
      expect(await page.getByRole("button", { name: words.back }).isVisible()).toBe(true);
      expect(errors).toEqual([]); // the script ran, the policy refused nothing
      // Without the email the browser holds the post back; the server is asked by turning the check off.
      await page.evaluate(() => (document.querySelector("form")!.noValidate = true));
      await page.locator("form").evaluate((f: HTMLFormElement) => f.submit());
      await page.getByRole("alert").getByText(words.problem).waitFor();
      await screenshot(page, `locale-${locale}-refused`);
      expect(await page.getByRole("button", { name: words.send }).count()).toBe(1);
    } finally {
      await close();
    }
  });

test("the proof-of-work widget on a German form says its words in German", async () => {
  const formId = (
    await seedForm(server, OWNER, { name: "Kontakt", fields: FIELDS.slice(0, 1), locale: "de", challenge: "pow" })
  ).id;
  const { page, errors, blocked, close } = await browser.newPage({ locale: "en-US" });
  try {
    await page.goto(`${server.url}/f/${formId}`);
    await page.getByText("Ich bin kein Roboter").waitFor();
    await screenshot(page, "locale-de-pow");
    expect(errors).toEqual([]);
    expect(blocked).toEqual([]);
  } finally {
    await close();
  }
});
