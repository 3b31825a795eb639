import { afterAll, beforeAll, expect, test } from "bun:test";
import { withPassword } from "../helpers/accounts";
import { launchBrowser, screenshot, type TestBrowser } from "../helpers/browser";
import { startTestServer } from "../helpers/harness";
import { freePort, startSmtpSink } from "../helpers/smtp-sink";

// A file of its own, with its own browser: beside the first-run test (a real serve process read
// through its stderr), this one's waits hung past the page's answer.
let browser: TestBrowser;
beforeAll(async () => void (browser = await launchBrowser()));
afterAll(() => browser.close());

test("the login page's 'Forgot your password?' mails a link whose page sets a new password", async () => {
  const smtp = await startSmtpSink();
  const port = await freePort();
  const server = await startTestServer({
    config: { port, publicUrl: `http://127.0.0.1:${port}`, smtpUrl: smtp.url, rateLimit: 10_000 },
  });
  try {
    await withPassword(server, "ada@example.com");
    const { page, close } = await browser.newPage({ locale: "en-GB" });
    await page.goto(`${server.url}/dashboard`);
    await page.getByRole("link", { name: "Forgot your password?" }).click();
    await page.getByLabel("Email").fill("ada@example.com");
    await page.getByRole("button", { name: "Send the link" }).click();
    await page.getByRole("status").filter({ hasText: "on its way" }).waitFor();
    const [mail] = await smtp.waitFor(1);
    const link = /(http:\/\/\S+\/dashboard\/reset\?token=fsr_\S+)/.exec(mail!.text ?? "")![1]!;

    await page.goto(link);
    await page.getByRole("heading", { name: "Choose a new password" }).waitFor();
    await page.getByLabel("New password").fill("a brand new passphrase here");
    await screenshot(page, "password-reset");
    await page.getByRole("button", { name: "Set the new password" }).click();
    await page.getByRole("heading", { name: "Log in" }).waitFor();
    await page.getByLabel("Email").fill("ada@example.com");
    await page.getByLabel("Password").fill("a brand new passphrase here");
    await page.getByRole("button", { name: "Log in" }).click();
    await page.getByRole("heading", { name: "Forms" }).first().waitFor();
    // Logged in with the new password: the session is the owner's.
    expect((await page.request.get(`${server.url}/api/v1/auth/me`)).status()).toBe(200);
    await close();
  } finally {
    await server.close();
    await smtp.close();
  }
});
