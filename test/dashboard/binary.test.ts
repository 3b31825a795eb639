import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { buildBinary, buildVersion } from "../../build";
import { launchBrowser, type TestBrowser } from "../helpers/browser";
import { logIn, PASSWORD, saveScreenshot, setPassword, watchConsole } from "../helpers/dashboard";
import { testDatabase } from "../helpers/engine";
import { tempDir } from "../helpers/harness";
import { pdfText } from "../helpers/pdf-text";

// The dashboard as the compiled binary serves it: its bundle built by build.ts, no bundler and no
// node_modules at run time. The binary is built here, as `npm run build` builds dist/formsvc.

const EMAIL = "binary@example.com";
let dir: ReturnType<typeof tempDir>;
let bin: string;
let db: string;
let serve: Bun.Subprocess<"ignore", "pipe", "pipe"> | undefined;
let url: string;
let browser: TestBrowser;
let formId: string;
let key: string;

const run = (args: string[]) => {
  const res = Bun.spawnSync([bin, ...args], {
    env: { ...(process.env as Record<string, string>), FORMSVC_DB: db, FORMSVC_LOG_LEVEL: "silent" },
    stdout: "pipe",
    stderr: "pipe",
  });
  if (res.exitCode !== 0) throw new Error(`formsvc ${args.join(" ")}: ${res.stderr.toString()}`);
  return res.stdout.toString();
};

beforeAll(async () => {
  dir = tempDir();
  db = await testDatabase(dir.dir);
  [bin, browser] = await Promise.all([buildBinary(await buildVersion(), join(dir.dir, "formsvc")), launchBrowser()]);
  await setPassword(db, EMAIL, PASSWORD, [bin]);
  formId = JSON.parse(
    run(["forms", "create", "--owner", EMAIL, "--name", "Contact", "--type", "contact", "--json"]),
  ).id;
  key = JSON.parse(run(["keys", "create", "--owner", EMAIL, "--json"])).key;
  serve = Bun.spawn([bin, "serve", "--port", "0"], {
    env: { ...(process.env as Record<string, string>), FORMSVC_DB: db, FORMSVC_LOG_LEVEL: "warn" },
    cwd: dir.dir,
    stdout: "pipe",
    stderr: "pipe",
  });
  const reader = serve.stdout.getReader();
  let out = "";
  while (!/listening on (http:\/\/\S+)/.test(out)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`serve exited: ${out}`);
    out += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  url = /listening on (http:\/\/\S+)/.exec(out)![1]!;
  for (const message of ["one", "two", "three"]) {
    const res = await fetch(`${url}/api/v1/forms/submit`, {
      method: "POST",
      headers: { "x-api-key": key, "content-type": "application/json" },
      body: JSON.stringify({ formId, data: { email: `${message}@example.com`, message } }),
    });
    expect(res.status).toBe(200);
  }
}, 120_000);

afterAll(async () => {
  await browser?.close();
  if (serve) {
    serve.kill("SIGTERM");
    await serve.exited;
  }
  dir?.cleanup();
});

describe("the dashboard served by the compiled binary", () => {
  test("logs in, lists the form and draws its chart from the files inside the binary", async () => {
    const opened = await browser.newPage({ locale: "en-GB" });
    const console = watchConsole(opened.page);
    const { page } = opened;
    try {
      const assets: string[] = [];
      page.on(
        "response",
        (res) =>
          res.url().includes("/dashboard/assets/") &&
          assets.push(`${res.status()} ${res.headers()["content-encoding"]}`),
      );
      await logIn(page, url, EMAIL);
      const row = page.getByRole("row").filter({ hasText: "Contact" });
      expect(await row.getByRole("cell").nth(2).innerText()).toBe("3");
      await row.getByRole("img", { name: "3 submissions in the last 30 days" }).waitFor();
      await row.getByRole("link", { name: "Contact" }).click();
      await page.locator('[data-testid="total-submissions"]', { hasText: "3" }).waitFor();
      await page.locator(".chart canvas").waitFor();
      expect(assets).toEqual(["200 gzip", "200 gzip"]);
      await saveScreenshot(page, "binary-analytics-desktop-light");
      expect(console.unexpected("/api/v1/auth/me")).toEqual([]);
      expect(opened.blocked).toEqual([]);
    } finally {
      await opened.close();
    }
  });

  test("writes a submission's PDF with the fonts inside the binary: Latin, Cyrillic, Greek and Japanese drawn, no box", async () => {
    const res = await fetch(`${url}/api/v1/forms/submit`, {
      method: "POST",
      headers: { "x-api-key": key, "content-type": "application/json" },
      body: JSON.stringify({ formId, data: { message: "Zoë · Ольга · Ελένη · 山田太郎です" } }),
    });
    const { submissionId } = (await res.json()) as { submissionId: string };
    const pdf = await fetch(`${url}/api/v1/forms/${formId}/submissions/${submissionId}/pdf`, {
      headers: { "x-api-key": key },
    });
    expect(pdf.headers.get("content-type")).toBe("application/pdf");
    const read = await pdfText(new Uint8Array(await pdf.arrayBuffer()));
    expect([read.notdef, read.blank]).toEqual([0, 0]);
    expect(read.text).toContain("Message\nZoë · Ольга · Ελένη · 山田太郎です\n");
  });
});
