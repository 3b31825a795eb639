import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { launchBrowser, type TestBrowser } from "../helpers/browser";
import { logIn, PASSWORD, saveScreenshot, setPassword, watchConsole } from "../helpers/dashboard";
import { seedOwner, startTestServer, tempDir, type TestServer } from "../helpers/harness";
import { OPERATOR } from "../../src/lib/principal";
import { DEFAULT_FILES } from "../../src/modules/files/model";

// A 16×16 red PNG: a thumbnail the browser decodes.
const PNG = Buffer.from(
  "89504e470d0a1a0a0000000d4948445200000010000000100802000000909168360000001749444154789c63f8cfc04012224df5a886510d434a030090f9ff01f9e1fa780000000049454e44ae426082",
  "hex",
);
const PDF = Buffer.from("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n");
const EMAIL = "files-dashboard@example.com";

const own = tempDir();
let server: TestServer;
let browser: TestBrowser;
let formId: string;
let submissionId: string;

beforeAll(async () => {
  [server, browser] = await Promise.all([
    startTestServer({ dir: own.dir, config: { files: join(own.dir, "files") } }),
    launchBrowser(),
  ]);
  const owner = await seedOwner(server, EMAIL, { name: "Jobs", formType: "application" });
  formId = owner.formId;
  await server.services.forms.updateForm(OPERATOR, formId, { files: DEFAULT_FILES });
  await setPassword(server.db, EMAIL);
  const form = new FormData();
  form.append("formId", formId);
  form.append("name", "Ada");
  form.append("cv", new Blob([new Uint8Array(PDF)]), "Lebenslauf Ada.pdf");
  form.append("photo", new Blob([new Uint8Array(PNG)]), "me.png");
  const sent = await server.json("/api/v1/forms/submit", { method: "POST", key: owner.key, body: form });
  expect(sent.status).toBe(200);
  submissionId = sent.body.submissionId;
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
  own.cleanup();
});

describe("a submission's files in the dashboard", () => {
  const views = [
    {
      name: "its own page",
      path: () => `#/forms/${formId}/submissions/${submissionId}`,
      shot: "submission-files-page",
    },
    { name: "the list's dialog", path: () => `#/forms/${formId}/submissions`, shot: "submission-files-dialog" },
  ];
  for (const view of views) {
    test(`${view.name} shows each file's name, type and size, a download by the session, and an image's thumbnail`, async () => {
      const opened = await browser.newPage({ locale: "en-GB", viewport: { width: 1200, height: 900 } });
      const { page } = opened;
      const console = watchConsole(page);
      try {
        await logIn(page, server.url, EMAIL, PASSWORD, view.path());
        if (view.name === "the list's dialog") await page.getByText("Ada").first().click();
        const files = page.getByTestId("submission-files");
        await files.waitFor();
        const items = files.locator("li");
        expect(await items.count()).toBe(2);
        expect(await items.nth(0).textContent()).toContain(
          `Lebenslauf Ada.pdfcv · application/pdf · ${PDF.byteLength} B`,
        );
        expect(await items.nth(1).textContent()).toContain("me.pngphoto · image/png");
        // The thumbnail is the download route's image, loaded with the session cookie (the CSP allows 'self').
        const thumb = files.locator("img");
        expect(await thumb.count()).toBe(1);
        await page.waitForFunction(
          () =>
            (document.querySelector('[data-testid="submission-files"] img') as HTMLImageElement | null)
              ?.naturalWidth === 16,
        );
        // The link downloads the bytes as the file's name.
        const [download] = await Promise.all([
          page.waitForEvent("download"),
          files.getByRole("link", { name: "Lebenslauf Ada.pdf" }).click(),
        ]);
        expect(download.suggestedFilename()).toBe("Lebenslauf Ada.pdf");
        const saved = await download.path();
        expect(Buffer.from(await Bun.file(saved!).arrayBuffer()).equals(PDF)).toBe(true);
        // Fields show a file by its name, not as JSON.
        expect(await page.getByTestId("submission-fields").textContent()).toContain("CvLebenslauf Ada.pdf");
        await saveScreenshot(page, view.shot, false);
        expect(console.unexpected("/api/v1/auth/me")).toEqual([]);
        expect(opened.blocked).toEqual([]);
      } finally {
        await opened.close();
      }
    });
  }
});
