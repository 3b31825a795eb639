import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { PASSWORD } from "../helpers/accounts";
import { launchBrowser, screenshot, type TestBrowser } from "../helpers/browser";
import { logIn } from "../helpers/dashboard";
import { runCliAsync, spawnServe, tempDir } from "../helpers/harness";
import { freePort, startSmtpSink, type SmtpSink } from "../helpers/smtp-sink";

// A real `serve` process: the link in the email is built on FORMSVC_PUBLIC_URL, so its port is chosen first.
let browser: TestBrowser;
let smtp: SmtpSink;
beforeAll(async () => {
  browser = await launchBrowser();
  smtp = await startSmtpSink();
});
afterAll(async () => {
  await browser.close();
  await smtp.close();
});

const NEW_PASSWORD = "a new passphrase, long enough";

test("a forgotten password is reset from the login page through the emailed link, once, and the new one logs in", async () => {
  const { dir, cleanup } = tempDir();
  const db = join(dir, "formsvc.db");
  const set = await runCliAsync(["owners", "set-password", "ada@example.com", "--password-stdin"], {
    db,
    stdin: `${PASSWORD}\n`,
  });
  expect(set.code).toBe(0);
  const port = await freePort();
  const serve = await spawnServe(
    db,
    { FORMSVC_SMTP_URL: smtp.url, FORMSVC_PUBLIC_URL: `http://127.0.0.1:${port}` },
    port,
  );
  try {
    const { page, errors, close } = await browser.newPage({ locale: "en-GB" });
    await page.goto(`${serve.url}/dashboard#/login`);
    await page.getByRole("link", { name: "Forgot your password?" }).click();
    // The login page has an Email field too: fill the forgot page's, once it is there.
    await page.getByRole("heading", { name: "Forgot your password?" }).waitFor();
    await page.getByLabel("Email").fill("ada@example.com");
    await page.getByRole("button", { name: "Send the link" }).click();
    await page.getByRole("status").waitFor();
    const [mail] = await smtp.waitFor(1);
    expect(mail!.to).toMatchObject({ text: "ada@example.com" });
    const link = /(http:\/\/127\.0\.0\.1:\d+\/dashboard\/reset\?token=\S+)/.exec(mail!.text ?? "")![1]!;

    await page.goto(link);
    await page.getByRole("heading", { name: "Choose a new password" }).waitFor();
    await page.getByLabel("New password").fill(NEW_PASSWORD);
    await screenshot(page, "password-reset");
    await page.getByRole("button", { name: "Set the new password" }).click();
    await page.getByText("Your password is set.").waitFor();
    await logIn(page, serve.url, "ada@example.com", NEW_PASSWORD);
    // Before a login the dashboard asks who is logged in: the browser logs those 401s, and nothing else.
    expect(errors.filter((e) => !e.includes("status of 401"))).toEqual([]);

    // The link a second time: refused in words.
    await page.goto(link);
    await page.getByLabel("New password").fill("yet another passphrase here");
    await page.getByRole("button", { name: "Set the new password" }).click();
    await page.getByRole("alert").waitFor();
    await close();

    const login = (password: string) =>
      fetch(`${serve.url}/api/v1/auth/login`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: serve.url },
        body: JSON.stringify({ email: "ada@example.com", password }),
      });
    expect((await login(PASSWORD)).status).toBe(401);
    expect((await login(NEW_PASSWORD)).status).toBe(200);
  } finally {
    serve.proc.kill();
    await serve.proc.exited;
    cleanup();
  }
});
