import { afterAll, beforeAll, expect, test } from "bun:test";
import { launchBrowser, type TestBrowser } from "../helpers/browser";
import { logIn, PASSWORD, setPassword, watchConsole } from "../helpers/dashboard";
import { seedOwner, startTestServer, type TestServer } from "../helpers/harness";

const EMAIL = "revisions-dashboard@example.com";
let server: TestServer;
let browser: TestBrowser;

beforeAll(async () => {
  [server, browser] = await Promise.all([startTestServer(), launchBrowser()]);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const post = async (path: string, values: Record<string, string>) => {
  const res = await fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { accept: "application/json", "content-type": "application/json" },
    body: JSON.stringify(values),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { submissionId: string; editUrl?: string };
};

test("a submission's page shows what its sender changed, the earlier values by label, newest first", async () => {
  const owner = await seedOwner(server, EMAIL, {
    name: "Feedback",
    fields: [
      { name: "name", type: "text", label: "Your name" },
      { name: "message", type: "textarea", label: "Your message" },
    ],
  });
  expect((await server.send("PATCH", `/forms/${owner.formId}`, owner.key, { editableDays: 7 })).status).toBe(200);
  await setPassword(server.db, EMAIL);
  const sent = await post(`/f/${owner.formId}`, { name: "Ada", message: "Teh typo" });
  const edit = new URL(sent.editUrl!).pathname + new URL(sent.editUrl!).search;
  await post(edit, { name: "Ada", message: "The typo" });
  await post(edit, { name: "Ada L.", message: "The typo" });

  const opened = await browser.newPage({ locale: "en-GB", viewport: { width: 1200, height: 900 } });
  const { page } = opened;
  const console = watchConsole(page);
  try {
    await logIn(page, server.url, EMAIL, PASSWORD, `#/forms/${owner.formId}/submissions/${sent.submissionId}`);
    const revisions = page.getByTestId("submission-revisions");
    await revisions.getByText("Changed by the sender").waitFor();
    const items = revisions.locator("li");
    expect(await items.count()).toBe(2);
    // Each shows only what it held that the next version changed.
    expect(await items.nth(0).locator("dt").allTextContents()).toEqual(["Your name"]);
    expect(await items.nth(0).locator("dd").allTextContents()).toEqual(["Ada"]);
    expect(await items.nth(1).locator("dt").allTextContents()).toEqual(["Your message"]);
    expect(await items.nth(1).locator("dd").allTextContents()).toEqual(["Teh typo"]);
    expect(console.unexpected("/api/v1/auth/me")).toEqual([]);
  } finally {
    await opened.close();
  }
});
