import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { launchBrowser, type TestBrowser } from "../helpers/browser";
import { logIn, PASSWORD, saveScreenshot, setPassword, watchConsole } from "../helpers/dashboard";
import { seedForm, seedOwner, startTestServer, type TestServer } from "../helpers/harness";

let server: TestServer;
let browser: TestBrowser;
let key: string;
let formId: string;
let submissionId: string;
const EMAIL = "notify@example.com";
const HOSTILE = `<b>Ada</b><img src=x onerror="parent.document.title='owned'">`;

beforeAll(async () => {
  [server, browser] = await Promise.all([startTestServer(), launchBrowser()]);
  ({ key, formId } = await seedOwner(server, EMAIL, {
    name: "Contact",
    formType: "contact",
    emailEnabled: true,
    developerNotifications: true,
  }));
  await setPassword(server.db, EMAIL);
  const sent = await server.submit(key, formId, { name: HOSTILE, email: "ada@example.com", message: "Hello\nthere" });
  expect(sent.status).toBe(200);
  submissionId = sent.body.submissionId;
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe("the notification preview on the settings page", () => {
  test("shows the template being edited rendered from the latest submission, its HTML escaped in a sandboxed frame, and where a tag is unbalanced", async () => {
    const opened = await browser.newPage({ locale: "en-GB", viewport: { width: 1200, height: 900 } });
    const { page } = opened;
    const console = watchConsole(page);
    try {
      await logIn(page, server.url, EMAIL, PASSWORD, `#/forms/${formId}/settings`);
      const preview = page.getByTestId("notification-preview");
      // formsvc's own email first, from the latest submission.
      await expect(preview.getByTestId("preview-subject").textContent()).resolves.toBe("New submission: Contact");
      await preview.getByText("Rendered from the latest submission").waitFor();

      await page.getByRole("checkbox", { name: /Write the notification myself/ }).check();
      await page.locator('input[name="notificationTemplate.subject"]').fill("New: {{name}}");
      await page
        .locator('textarea[name="notificationTemplate.text"]')
        .fill("{{#fields}}{{name}}: {{value}}\n{{/fields}}from {{form.name}}");
      await preview.getByTestId("preview-subject").getByText(`New: ${HOSTILE}`).waitFor();
      expect(await preview.getByTestId("preview-text").textContent()).toBe(
        `name: ${HOSTILE}\nemail: ada@example.com\nmessage: Hello\nthere\nfrom Contact`,
      );

      const frame = page.locator('iframe[title="Preview of the notification\'s HTML part"]');
      expect(await frame.getAttribute("sandbox")).toBe("");
      const html = page.frameLocator('iframe[title="Preview of the notification\'s HTML part"]');
      await html.getByText("from Contact").waitFor();
      // The value is text in the frame: no element was made of it, and no script of it ran.
      expect(await html.locator("img").count()).toBe(0);
      expect(await html.locator("body").textContent()).toContain(HOSTILE);
      expect(await page.title()).not.toBe("owned");
      await frame.scrollIntoViewIfNeeded();
      await saveScreenshot(page, "settings-notification-preview", false);

      // An unbalanced tag is named with its place, and the last good preview stays.
      await page.locator('input[name="notificationTemplate.subject"]').fill("New: {{name");
      await preview.getByText("Unclosed tag at 11").waitFor();
      expect(await preview.getByTestId("preview-subject").textContent()).toBe(`New: ${HOSTILE}`);
      // Nothing was saved by previewing.
      expect((await server.json(`/api/v1/forms/${formId}`, { key })).body.notificationTemplate).toBeNull();
      // Chromium logs the unbalanced tag's 400 as an error; that one was asked for.
      const refused = /status of 400.*\/notification-preview\)$/;
      expect(console.unexpected("/api/v1/auth/me").filter((e) => !refused.test(e))).toEqual([]);
      expect(opened.blocked).toEqual([]);
    } finally {
      await opened.close();
    }
  });
});

describe("the page of one submission", () => {
  test("opens from a digest's link, shows fields, sender and folder, and moves the submission to spam and back", async () => {
    const opened = await browser.newPage({ locale: "en-GB", viewport: { width: 1200, height: 900 } });
    const { page } = opened;
    const console = watchConsole(page);
    try {
      await logIn(page, server.url, EMAIL, PASSWORD, "#/forms");
      // The address a digest links to: a real path, which the app turns into its route.
      await page.goto(`${server.url}/dashboard/forms/${formId}/submissions/${submissionId}`);
      await page.getByRole("heading", { name: /^Submission of / }).waitFor();
      expect(new URL(page.url()).hash).toBe(`#/forms/${formId}/submissions/${submissionId}`);
      const fields = page.getByTestId("submission-fields");
      expect(await fields.getByText(HOSTILE).count()).toBe(1);
      await fields.getByText("ada@example.com").waitFor();
      await page.getByText(submissionId).waitFor();
      expect(await page.getByTestId("submission-status").textContent()).toBe("Inbox");
      await saveScreenshot(page, "submission-page");

      const folder = async () => (await server.send("GET", `/forms/${formId}/submissions/${submissionId}`, key)).body;
      await page.getByRole("button", { name: "Mark as spam" }).click();
      await page.getByTestId("submission-status").getByText("Spam").waitFor();
      expect((await folder()).status).toBe("spam");
      await page.getByRole("button", { name: "Not spam" }).click();
      await page.getByTestId("submission-status").getByText("Inbox").waitFor();
      expect((await folder()).status).toBe("inbox");
      expect(console.unexpected("/api/v1/auth/me")).toEqual([]);
      expect(opened.blocked).toEqual([]);
    } finally {
      await opened.close();
    }
  });

  test("the API answers one submission with its folder, and 404 for another form's", async () => {
    const other = await seedForm(server, EMAIL, { name: "Other" });
    const own = await server.send("GET", `/forms/${formId}/submissions/${submissionId}`, key);
    expect(own.status).toBe(200);
    expect(own.body).toMatchObject({ id: submissionId, formId, status: "inbox", data: { email: "ada@example.com" } });
    expect((await server.send("GET", `/forms/${other.id}/submissions/${submissionId}`, key)).status).toBe(404);
    expect((await server.send("GET", `/forms/${formId}/submissions/sub_none`, key)).status).toBe(404);
  });
});
