import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { PASSWORD } from "../helpers/accounts";
import { launchBrowser, screenshot, type TestBrowser } from "../helpers/browser";
import { spawnServe, tempDir } from "../helpers/harness";

let browser: TestBrowser;
beforeAll(async () => void (browser = await launchBrowser()));
afterAll(() => browser.close());

// The README's first steps, as a newcomer takes them: start, open the printed link, set email and
// password, create a form, paste its snippet into a page of their own site, send it, see it in the
// dashboard. The seconds it took are printed (docs/development.md: the README's newcomer figure).
test("the README's first steps: from the printed setup link to the first submission in the dashboard", async () => {
  const started = performance.now();
  const { dir, cleanup } = tempDir();
  const serve = await spawnServe(join(dir, "formsvc.db"));
  let site: ReturnType<typeof Bun.serve> | undefined;
  try {
    const reader = serve.proc.stderr.getReader();
    let err = "";
    while (!/setup\?token=\S+/.test(err)) err += new TextDecoder().decode((await reader.read()).value);
    const link = /(http:\/\/\S+\/dashboard\/setup\?token=fsu_\S+)/.exec(err)![1]!;
    await reader.cancel();

    const { page, errors, close } = await browser.newPage({ locale: "en-GB" });
    await page.goto(link);
    await page.getByLabel("Email").fill("ada@example.com");
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Set up and log in" }).click();
    await page.getByRole("heading", { name: "Forms" }).first().waitFor();

    await page.getByRole("button", { name: "New form" }).first().click();
    await page.getByLabel("Name").fill("Contact");
    await page.getByRole("button", { name: "Create form" }).click();
    await page.waitForURL(/#\/forms\/frm_[^/]+\/embed$/);
    const snippet = (await page.getByTestId("dropin-snippet").textContent())!;
    expect(snippet).toContain(`action="${serve.url}/f/frm_`);

    // The newcomer's own site, on another origin, with the snippet pasted in.
    site = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch: () =>
        new Response(`<!doctype html><title>My site</title>${snippet}`, { headers: { "content-type": "text/html" } }),
    });
    const visitor = await browser.newPage({ locale: "en-GB" });
    await visitor.page.goto(`http://127.0.0.1:${site.port}/`);
    const text = visitor.page.locator("form input:not([type=hidden]):not([tabindex='-1']), form textarea");
    for (let i = 0; i < (await text.count()); i++) {
      const control = text.nth(i);
      if (!(await control.isVisible())) continue;
      const type = await control.getAttribute("type");
      await control.fill(type === "email" ? "grace@example.com" : "Hello from my site");
    }
    await visitor.page.getByRole("button", { name: "Send" }).click();
    await visitor.page.getByRole("heading", { name: "Thank you!" }).waitFor();
    await visitor.close();

    await page.getByRole("link", { name: "Submissions" }).click();
    await page.locator(".submissions-table tbody tr", { hasText: "grace@example.com" }).waitFor();
    // The form's count over the tabs follows: it was read again when the tab changed.
    await page.locator(".page-title", { hasText: "1 submission" }).waitFor();
    await screenshot(page, "newcomer-first-submission");
    expect(errors).toEqual([]);
    await close();
    console.log(
      `newcomer path: ${((performance.now() - started) / 1000).toFixed(1)} s from start to the first submission seen`,
    );
  } finally {
    await site?.stop();
    serve.proc.kill();
    await serve.proc.exited;
    cleanup();
  }
});
