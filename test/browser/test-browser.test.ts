import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../helpers/harness";

const HELPER = join(import.meta.dir, "../helpers/browser.ts");
const LOCKED = JSON.parse(readFileSync(join(import.meta.dir, "../../package-lock.json"), "utf8")).packages[
  "node_modules/@sparticuz/chromium"
].version as string;

describe("the test browser", () => {
  test("is the Chromium of the locked @sparticuz/chromium, whatever another version left in the temp folder", () => {
    // What @sparticuz/chromium extracts to a temp folder's root and then reuses as found: a browser and
    // ANGLE's libraries. Here they are junk; another version's real ones crash the browser at launch.
    const tmp = tempDir();
    try {
      for (const name of ["chromium", "libGLESv2.so", "libEGL.so"])
        writeFileSync(join(tmp.dir, name), "#!/bin/sh\nexit 1\n", { mode: 0o755 });
      const script = `
        import { launchBrowser } from ${JSON.stringify(HELPER)};
        const browser = await launchBrowser();
        const { page, close } = await browser.newPage();
        await page.goto("data:text/html,<p>hi</p>");
        console.log(JSON.stringify({ ua: await page.evaluate(() => navigator.userAgent), text: await page.textContent("p") }));
        await close();
        await browser.close();`;
      const res = Bun.spawnSync([process.execPath, "-e", script], {
        env: { ...process.env, TMPDIR: tmp.dir },
        stdout: "pipe",
        stderr: "pipe",
      });
      expect(res.stderr.toString()).toBe("");
      const out = JSON.parse(res.stdout.toString());
      expect(out.text).toBe("hi");
      // @sparticuz/chromium's major version is the Chromium major it ships.
      expect(out.ua).toContain(`HeadlessChrome/${LOCKED.split(".")[0]}.`);
      // Extracted into a folder of its own, named after the version; no staging folder left behind.
      expect(readdirSync(tmp.dir).sort()).toEqual([
        "chromium",
        `formsvc-chromium-${LOCKED}`,
        "libEGL.so",
        "libGLESv2.so",
      ]);
    } finally {
      tmp.cleanup();
    }
  });
});
