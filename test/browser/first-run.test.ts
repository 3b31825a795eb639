import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { PASSWORD } from "../helpers/accounts";
import { launchBrowser, screenshot, type TestBrowser } from "../helpers/browser";
import { spawnServe, tempDir } from "../helpers/harness";

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
    // Done reading the process's stderr: release it rather than leave a reader on it.
    await reader.cancel();

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
