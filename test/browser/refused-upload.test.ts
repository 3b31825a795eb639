import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { launchBrowser, screenshot, type TestBrowser } from "../helpers/browser";
import { seedForm, seedOwner, startTestServer, tempDir, type TestServer } from "../helpers/harness";
import { DEFAULT_FILES } from "../../src/modules/files/model";

const OWNER = "refused-upload@example.com";
const own = tempDir();
let server: TestServer;
let browser: TestBrowser;

beforeAll(async () => {
  [server, browser] = await Promise.all([
    startTestServer({ dir: own.dir, config: { maxUploadBytes: 1_000_000, files: join(own.dir, "files") } }),
    launchBrowser(),
  ]);
  await seedOwner(server, OWNER);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
  own.cleanup();
});

describe("an upload too large for formsvc, from a page in Chromium", () => {
  test("shows formsvc's error page (413), not a browser network error, and stores nothing", async () => {
    const form = await seedForm(server, OWNER, {
      name: "Applications",
      fields: [
        { name: "name", type: "text", label: "Your name" },
        { name: "cv", type: "file", label: "Your CV" },
      ],
      files: DEFAULT_FILES,
    });
    const { page, close } = await browser.newPage();
    try {
      await page.goto(`${server.url}/f/${form.id}`);
      await page.getByLabel("Your name").fill("Ada");
      // 8 MB: refused by its Content-Length as soon as it is asked, while Chromium is still sending it.
      await page.getByLabel("Your CV").setInputFiles({
        name: "cv.txt",
        mimeType: "text/plain",
        buffer: Buffer.alloc(8 * 1024 * 1024, "a"),
      });
      const answer = page.waitForResponse((res) => res.request().method() === "POST");
      await page.getByRole("button", { name: /send/i }).click();
      expect((await answer).status()).toBe(413);
      await page.getByText("What you sent is too large").waitFor();
      await screenshot(page, "refused-upload");
      expect(await server.query("SELECT id FROM submissions WHERE form_id = ?", form.id)).toEqual([]);
    } finally {
      await close();
    }
  }, 60_000);
});
