import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { PASSWORD, withPassword } from "../helpers/accounts";
import { launchBrowser, screenshot, type TestBrowser } from "../helpers/browser";
import { spawnServe, startTestServer, tempDir } from "../helpers/harness";
import { freePort, startSmtpSink } from "../helpers/smtp-sink";

let browser: TestBrowser;
beforeAll(async () => void (browser = await launchBrowser()));
afterAll(() => browser.close());

test("the setup link a real serve prints sets the first owner in the browser and logs them in, once", async () => {
  const { dir, cleanup } = tempDir();
  const serve = await spawnServe(join(dir, "formsvc.db"));
  try {
    const reader = serve.proc.stderr.getReader();
    let err = "";
    while (!/setup\?token=\S+/.test(err)) err += new TextDecoder().decode((await reader.read()).value);
    expect(err).toContain(`formsvc dashboard: ${serve.url}/dashboard`);
    const link = /(http:\/\/\S+\/dashboard\/setup\?token=fsu_\S+)/.exec(err)![1]!;

    const { page, errors, close } = await browser.newPage({ locale: "en-GB" });
    await page.goto(link);
    await page.getByRole("heading", { name: "Set up formsvc" }).waitFor();
    await page.getByLabel("Email").fill("ada@example.com");
    await page.getByLabel("Password").fill(PASSWORD);
    await screenshot(page, "first-run-setup");
    await page.getByRole("button", { name: "Set up and log in" }).click();
    await page.getByRole("heading", { name: "Forms" }).first().waitFor();
    await page.waitForURL((u) => u.search === ""); // the token has left the address bar
    expect(errors).toEqual([]);

    // The same link a second time: refused in words, nothing changed.
    await page.goto(link);
    await page.getByLabel("Email").fill("eve@example.com");
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Set up and log in" }).click();
    await page.getByRole("alert").waitFor();
    expect(await page.getByRole("alert").innerText()).toContain("already set up");
    await close();
    const home = await fetch(serve.url + "/", { redirect: "manual" });
    expect(home.headers.get("location")).toBe("/dashboard");
  } finally {
    serve.proc.kill();
    await serve.proc.exited;
    cleanup();
  }
});

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
    await page.getByRole("status").or(page.getByRole("alert")).waitFor();
    expect(await page.locator("main").innerText()).toContain("on its way");
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
    await close();
  } finally {
    await server.close();
    await smtp.close();
  }
});
