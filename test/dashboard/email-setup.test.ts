import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { launchBrowser, type TestBrowser } from "../helpers/browser";
import { logIn, PASSWORD, saveScreenshot, setPassword, watchConsole } from "../helpers/dashboard";
import { seedOwner, startTestServer, type TestServer } from "../helpers/harness";
import { startSmtpSink, type SmtpSink } from "../helpers/smtp-sink";

const EMAIL = "mailer@example.com";
let browser: TestBrowser;
let bare: TestServer;
let mailing: TestServer;
let sink: SmtpSink;
let bareKey: string;
let mailingKey: string;

beforeAll(async () => {
  sink = await startSmtpSink();
  [browser, bare, mailing] = await Promise.all([
    launchBrowser(),
    startTestServer(),
    startTestServer({ config: { smtpUrl: sink.url } }),
  ]);
  for (const server of [bare, mailing]) await setPassword(server.db, EMAIL);
  bareKey = (await seedOwner(bare, EMAIL)).key;
  mailingKey = (await seedOwner(mailing, EMAIL)).key;
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await Promise.all([bare?.close(), mailing?.close()]);
  await sink?.close();
});

/** Creates a form with the forms page's "New form" dialog, as a person would; resolves on its id. */
async function createInDashboard(page: Page, name: string): Promise<string> {
  await page.getByRole("button", { name: "New form" }).first().click();
  await page.getByLabel("Name").fill(name);
  await page.getByRole("button", { name: "Create form" }).click();
  await page.waitForURL(/#\/forms\/frm_[^/]+\/embed$/);
  return /#\/forms\/(frm_[^/]+)\/embed$/.exec(page.url())![1]!;
}

const emailSection = (page: Page) =>
  page.locator("fieldset").filter({ has: page.locator("legend", { hasText: "Email" }) });

describe("with no SMTP server set", () => {
  test("a form created in the dashboard has owner notifications on, and its email settings say that emails are only queued and what to set", async () => {
    const opened = await browser.newPage({ locale: "en-GB", viewport: { width: 1200, height: 900 } });
    const { page } = opened;
    const console = watchConsole(page);
    try {
      await logIn(page, bare.url, EMAIL, PASSWORD, "#/forms");
      const formId = await createInDashboard(page, "Feedback");
      const form = (await bare.json(`/api/v1/forms/${formId}`, { key: bareKey })).body;
      expect(form.emailSettings).toEqual({
        enabled: true,
        developerNotificationsEnabled: true,
        attachPdf: false,
        attachFilesUpTo: 0,
      });

      await page.goto(`${bare.url}/dashboard#/forms/${formId}/settings`);
      const note = emailSection(page).getByTestId("no-smtp");
      await note.waitFor();
      expect(await note.textContent()).toContain("No SMTP server is set");
      expect(await note.textContent()).toContain("recipient confirmations");
      expect(await note.locator("code").first().textContent()).toBe("FORMSVC_SMTP_URL");
      await emailSection(page).scrollIntoViewIfNeeded();
      await saveScreenshot(page, "settings-no-smtp", false);
      expect(console.unexpected("/api/v1/auth/me")).toEqual([]);
      expect(opened.blocked).toEqual([]);
    } finally {
      await opened.close();
    }
  });

  test('"Forgot your password?" says the link is queued, not sent, and what the operator sets', async () => {
    const opened = await browser.newPage({ locale: "en-GB", viewport: { width: 1200, height: 900 } });
    const { page } = opened;
    try {
      await page.goto(`${bare.url}/dashboard#/forgot`);
      await page.getByLabel("Email").fill(EMAIL);
      const answered = page.waitForResponse((r) => r.url().endsWith("/api/v1/auth/reset"));
      await page.getByRole("button", { name: "Send the link" }).click();
      const answer = await (await answered).json();
      expect(answer.smtpConfigured).toBe(false);
      expect(answer.message).toContain("not sent");
      const note = page.getByTestId("no-smtp");
      await note.waitFor();
      expect(await note.textContent()).toContain("password reset links are queued but not sent");
      expect(await note.textContent()).toContain("FORMSVC_SMTP_URL");
      expect(await page.getByText("Check your inbox").count()).toBe(0);
      await saveScreenshot(page, "forgot-no-smtp");
    } finally {
      await opened.close();
    }
  });
});

describe("with an SMTP server set", () => {
  test("the pages that send email show no notice, and a form created in the dashboard emails its owner", async () => {
    const opened = await browser.newPage({ locale: "en-GB", viewport: { width: 1200, height: 900 } });
    const { page } = opened;
    try {
      await logIn(page, mailing.url, EMAIL, PASSWORD, "#/forms");
      const me = await page.evaluate(async () => (await fetch("/api/v1/auth/me")).json());
      expect(me.smtpConfigured).toBe(true);
      const formId = await createInDashboard(page, "Feedback");
      await page.goto(`${mailing.url}/dashboard#/forms/${formId}/settings`);
      await emailSection(page).waitFor();
      expect(await page.getByTestId("no-smtp").count()).toBe(0);

      const sent = await mailing.submit(mailingKey, formId, { email: "ada@example.com", message: "Hello" });
      expect(sent.status).toBe(200);
      const [mail] = await sink.waitFor(1);
      expect(mail!.to).toMatchObject({ text: EMAIL });
      expect(mail!.subject).toBe("New submission: Feedback");

      await page.getByRole("button", { name: "Log out" }).click();
      await page.getByRole("button", { name: "Log in" }).waitFor();
      await page.goto(`${mailing.url}/dashboard#/forgot`);
      await page.getByLabel("Email").fill(EMAIL);
      await page.getByRole("button", { name: "Send the link" }).click();
      await page.getByText("Check your inbox").waitFor();
      expect(await page.getByTestId("no-smtp").count()).toBe(0);
    } finally {
      await opened.close();
    }
  });
});
