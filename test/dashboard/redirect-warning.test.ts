import { afterAll, beforeAll, expect, test } from "bun:test";
import { launchBrowser, type TestBrowser } from "../helpers/browser";
import { logIn, PASSWORD, setPassword, watchConsole } from "../helpers/dashboard";
import { seedOwner, startTestServer, type TestServer } from "../helpers/harness";

// The owner sees, on the form's page in the dashboard, the redirect target a page sent that was not allowed.
let server: TestServer;
let browser: TestBrowser;

beforeAll(async () => {
  [server, browser] = await Promise.all([startTestServer({ config: { rateLimit: 100_000 } }), launchBrowser()]);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

test("a form whose page sent a _next elsewhere shows the dropped target on its page, on every tab", async () => {
  const owner = await seedOwner(server, "warned@example.com", { name: "Contact", publicEndpoint: true });
  await setPassword(server.db, "warned@example.com");
  const res = await fetch(`${server.url}/f/${owner.formId}`, {
    method: "POST",
    body: new URLSearchParams({ message: "hi", _next: "https://www.site.example/thanks" }),
    headers: { origin: "http://localhost:8080" },
    redirect: "manual",
  });
  expect(res.status).toBe(303);
  const opened = await browser.newPage({ locale: "en-GB" });
  const console = watchConsole(opened.page);
  try {
    await logIn(opened.page, server.url, "warned@example.com", PASSWORD);
    for (const tab of ["settings", "submissions"]) {
      await opened.page.goto(`${server.url}/dashboard#/forms/${owner.formId}/${tab}`);
      const note = opened.page.locator(".note-warning", { hasText: "redirect address" });
      await note.waitFor();
      expect(await note.locator("code").allTextContents()).toEqual(["https://www.site.example/thanks"]);
    }
    expect(console.unexpected("/api/v1/auth/me")).toEqual([]);
    expect(opened.blocked).toEqual([]);
  } finally {
    await opened.close();
  }
}, 60_000);
