import { afterAll, beforeAll, expect, test } from "bun:test";
import { launchBrowser, type TestBrowser } from "../helpers/browser";
import { logIn, PASSWORD, saveScreenshot, setPassword, watchConsole } from "../helpers/dashboard";
import { seedOwner, startTestServer, type TestServer } from "../helpers/harness";

// An untrained filter scores every message about the same: a "Spam score 50 %" on each told the owner nothing.

let server: TestServer;
let browser: TestBrowser;
let owner: Awaited<ReturnType<typeof seedOwner>>;

beforeAll(async () => {
  [server, browser] = await Promise.all([startTestServer({ config: { rateLimit: 100_000 } }), launchBrowser()]);
  owner = await seedOwner(server, "scores@example.com", { name: "Contact" });
  await setPassword(server.db, owner.ownerEmail);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const submit = async (message: string) => {
  const res = await server.submit(owner.key, owner.formId, { email: "ada@example.com", message });
  expect(res.status).toBe(200);
  return res.body.submissionId as string;
};
const mark = async (id: string, to: "spam" | "not-spam") =>
  expect((await server.send("POST", `/forms/${owner.formId}/submissions/${id}/${to}`, owner.key)).status).toBe(200);

test("the inbox and a submission show a spam score only once the filter files spam", async () => {
  const first = await submit("Hello, a question about your prices");
  expect((await server.send("GET", "/spam-filter", owner.key)).body.filing).toBe(false);

  const opened = await browser.newPage({ locale: "en-GB" });
  const console = watchConsole(opened.page);
  const { page } = opened;
  try {
    await logIn(page, server.url, owner.ownerEmail, PASSWORD, `#/forms/${owner.formId}/submissions`);
    const cell = page.locator(".submissions-table tbody tr td[data-label='Spam check']").first();
    // The filter's state is asked beside the page of submissions: read the column once it has come.
    await page.getByText("It files spam once it has learned from 20 of each").waitFor();
    expect(await cell.innerText()).toBe("learning");
    await page.goto(`${server.url}/dashboard/#/forms/${owner.formId}/submissions/${first}`);
    await page.getByText("shown once the filter has learned from 20 spam").waitFor();
    expect(await page.getByTestId("spam-score").innerText()).not.toContain("%");

    // Twenty of each, marked as the owner would: the filter files from now on, and its scores mean something.
    for (let i = 0; i < 20; i++) {
      await mark(await submit(`cheap pills casino bonus offer ${i}`), "spam");
      await mark(await submit(`Could you tell me about your opening hours, question ${i}`), "not-spam");
    }
    expect((await server.send("GET", "/spam-filter", owner.key)).body.filing).toBe(true);
    await submit("Another question about your prices");
    await page.goto(`${server.url}/dashboard/#/forms/${owner.formId}/submissions`);
    await page.reload();
    await page.getByText(/It files spam since/).waitFor();
    await expect(cell.innerText()).resolves.toMatch(/^\d{1,3}%$/);
    await saveScreenshot(page, "inbox-spam-score-filing");
    expect(console.unexpected("/api/v1/auth/me")).toEqual([]);
  } finally {
    await opened.close();
  }
}, 60_000);
