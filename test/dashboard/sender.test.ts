import { afterAll, beforeAll, expect, test } from "bun:test";
import { launchBrowser, type TestBrowser } from "../helpers/browser";
import { logIn, PASSWORD, saveScreenshot, setPassword, watchConsole } from "../helpers/dashboard";
import { seedOwner, startTestServer, type TestServer } from "../helpers/harness";

// A page made for Formspree: the visitor's address in `_replyto`, the subject they typed in `_subject`.

let server: TestServer;
let browser: TestBrowser;
let owner: Awaited<ReturnType<typeof seedOwner>>;

beforeAll(async () => {
  [server, browser] = await Promise.all([startTestServer({ config: { rateLimit: 100_000 } }), launchBrowser()]);
  owner = await seedOwner(server, "owner@example.com", { name: "Contact" });
  await setPassword(server.db, owner.ownerEmail);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

test("the inbox shows the _replyto address as the sender, and the submission names _subject and _replyto for people", async () => {
  const body = new URLSearchParams({
    message: "Where is my order?",
    _replyto: "Ada@Example.com",
    _subject: "Order 42",
  });
  const res = await fetch(`${server.url}/f/${owner.formId}`, {
    method: "POST",
    body,
    headers: { accept: "application/json" },
  });
  expect(res.status).toBe(200);

  const opened = await browser.newPage({ locale: "en-GB" });
  const console = watchConsole(opened.page);
  const { page } = opened;
  try {
    await logIn(page, server.url, owner.ownerEmail, PASSWORD, `#/forms/${owner.formId}/submissions`);
    const row = page.locator(".submissions-table tbody tr").first();
    await row.waitFor();
    expect(await row.locator("td[data-label=From]").innerText()).toBe("ada@example.com");
    expect(await row.locator("td[data-label=Message]").innerText()).toBe("Where is my order? · Subject: Order 42");

    await row.getByRole("button").click();
    const fields = page.getByRole("dialog").getByTestId("submission-fields");
    await fields.waitFor();
    const shown = await fields
      .locator("div")
      .evaluateAll((rows) => rows.map((r) => [r.querySelector("dt")!.textContent, r.querySelector("dd")!.textContent]));
    expect(shown).toEqual([
      ["Message", "Where is my order?"],
      ["Reply to", "Ada@Example.com"],
      ["Subject", "Order 42"],
    ]);
    await saveScreenshot(page, "submission-replyto-subject");
    expect(console.unexpected("/api/v1/auth/me")).toEqual([]);
    expect(opened.blocked).toEqual([]);
  } finally {
    await opened.close();
  }
});
