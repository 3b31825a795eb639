import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { launchBrowser, type OfflinePage, type TestBrowser } from "../helpers/browser";
import {
  fillFieldEditor,
  logIn,
  movableClock,
  PASSWORD,
  saveScreenshot,
  saveUnsavedSections,
  seedDashboard,
  setPassword,
  watchConsole,
} from "../helpers/dashboard";
import { startTestServer, type TestServer } from "../helpers/harness";
import { pdfText } from "../helpers/pdf-text";
import { CONTROLS } from "../../src/dashboard/app/setting-controls";
import type { FieldRule } from "../../src/modules/forms/model";
import { valueAt } from "../../src/lib/dotted-path";
import { WRITABLE_SETTINGS } from "../../src/modules/forms/settings";

// The dashboard in a real Chromium against a real server: every check reads what a person sees and
// compares it with what the API answers.

let server: TestServer;
let browser: TestBrowser;
let seed: Awaited<ReturnType<typeof seedDashboard>>;
const clock = movableClock();
const SUBMISSIONS = 60;

beforeAll(async () => {
  // Countries come from X-Forwarded-For in the seed; a high limit, since the seed alone sends 60 submits.
  [server, browser] = await Promise.all([
    startTestServer({ clock, config: { rateLimit: 100_000, trustProxy: true } }),
    launchBrowser(),
  ]);
  seed = await seedDashboard(server, clock, SUBMISSIONS);
  await setPassword(server.db, seed.email);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

type Opened = OfflinePage & { console: ReturnType<typeof watchConsole> };

/** A fresh browser context (no cookies), English dates, logged in as the seeded owner. */
async function loggedIn(options: Parameters<TestBrowser["newPage"]>[0] = {}, hash = ""): Promise<Opened> {
  const opened = await browser.newPage({ locale: "en-GB", ...options });
  const console = watchConsole(opened.page);
  await logIn(opened.page, server.url, seed.email, PASSWORD, hash);
  return { ...opened, console };
}

/** Closes the page after checking it logged no error (but the login page's own 401) and reached no other host. */
async function finish(opened: Opened, ...allowed401: string[]) {
  try {
    expect(opened.console.unexpected("/api/v1/auth/me", ...allowed401)).toEqual([]);
    expect(opened.blocked).toEqual([]);
  } finally {
    await opened.close();
  }
}

const api = <T = any>(path: string, init: RequestInit = {}) => server.json<T>(path, { ...init, key: seed.key });
const numberIn = async (page: Page, selector: string) =>
  Number((await page.locator(selector).first().innerText()).replace(/[^\d]/g, ""));

describe("the dashboard in a browser", () => {
  test("logs in with email and password and shows the forms with their counts and 30 days", async () => {
    const opened = await browser.newPage({ locale: "en-GB" });
    const console = watchConsole(opened.page);
    const { page } = opened;
    await page.goto(`${server.url}/dashboard`);
    await page.getByRole("heading", { name: "Log in" }).waitFor();
    // A wrong password is said in words, on the page.
    await page.getByLabel("Email").fill(seed.email);
    await page.getByLabel("Password").fill("not the password at all");
    await page.getByRole("button", { name: "Log in" }).click();
    await page.getByRole("alert").waitFor();
    expect((await page.getByRole("alert").innerText()).length).toBeGreaterThan(10);

    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Log in" }).click();
    await page.getByRole("heading", { name: "Forms", level: 1 }).waitFor();
    const month = (await api(`/api/v1/forms/${seed.formId}/analytics?period=month`)).body;
    const contact = page.getByRole("row").filter({ hasText: "Contact" });
    expect(await contact.getByRole("cell").nth(2).innerText()).toBe(String(SUBMISSIONS));
    await contact.getByRole("img", { name: `${month.totalSubmissions} submissions in the last 30 days` }).waitFor();
    expect(await contact.getByRole("cell").nth(1).innerText()).toBe("Contact");
    await page
      .getByRole("row")
      .filter({ hasText: "Waitlist" })
      .getByRole("img", { name: "0 submissions in the last 30 days" })
      .waitFor();
    expect(console.unexpected("/api/v1/auth/me", "/api/v1/auth/login")).toEqual([]);
    expect(opened.blocked).toEqual([]);
    await opened.close();
  });

  test("draws the daily chart, whose total equals the API's, for each period and a custom range", async () => {
    const opened = await loggedIn({}, `#/forms/${seed.formId}`);
    const { page } = opened;
    const chartDrawn = () =>
      page.evaluate(() => {
        const canvas = document.querySelector<HTMLCanvasElement>(".chart canvas");
        if (!canvas) return 0;
        const { data } = canvas.getContext("2d")!.getImageData(0, 0, canvas.width, canvas.height);
        let painted = 0;
        for (let i = 3; i < data.length; i += 4) if (data[i]! > 0) painted++;
        return painted;
      });
    for (const [label, query] of [
      ["30 days", "period=month"],
      ["7 days", "period=week"],
      ["365 days", "period=year"],
    ] as const) {
      await page.getByRole("link", { name: label, exact: true }).click();
      await page.waitForURL(new RegExp(query));
      const expected = (await api(`/api/v1/forms/${seed.formId}/analytics?${query}`)).body;
      await page.locator('[data-testid="total-submissions"]', { hasText: String(expected.totalSubmissions) }).waitFor();
      expect(await numberIn(page, '[data-testid="total-submissions"]')).toBe(expected.totalSubmissions);
      // The chart paints in an animation frame after the total shows: a busy machine may take a while.
      for (let i = 0; i < 100 && (await chartDrawn()) <= 100; i++) await Bun.sleep(50);
      expect(await chartDrawn()).toBeGreaterThan(100);
      // The table under the chart holds the same days and adds up to the same total.
      const rows = page.locator("details.details table tbody tr");
      expect(await rows.count()).toBe(expected.submissionsOverTime.length);
      const counts = await rows.locator("td:last-child").allTextContents();
      expect(counts.reduce((s, c) => s + Number(c.replace(/[^\d]/g, "")), 0)).toBe(expected.totalSubmissions);
      // The top country is the API's, in words.
      const topCountry = expected.topCountries[0];
      const top = page.getByRole("region", { name: "Countries" }).locator(".bar-number").first();
      expect(Number(await top.innerText())).toBe(topCountry.count);
      // The date pickers show the chart's first and last day.
      expect([
        await page.getByLabel("From").inputValue(),
        await page.getByLabel("to", { exact: true }).inputValue(),
      ]).toEqual([expected.submissionsOverTime[0].date, expected.submissionsOverTime.at(-1).date]);
    }
    const from = new Date(Date.now() - 20 * 86_400_000).toISOString().slice(0, 10);
    const to = new Date(Date.now() - 5 * 86_400_000).toISOString().slice(0, 10);
    await page.getByLabel("From").fill(from);
    await page.getByLabel("to", { exact: true }).fill(to);
    await page.getByRole("button", { name: "Show range" }).click();
    await page.waitForURL(new RegExp(`from=${from}&to=${to}`));
    const custom = (await api(`/api/v1/forms/${seed.formId}/analytics?startDate=${from}&endDate=${to}`)).body;
    await page.locator('[data-testid="total-submissions"]', { hasText: String(custom.totalSubmissions) }).waitFor();
    expect(await page.locator("details.details table tbody tr").count()).toBe(16);
    await finish(opened);
  });

  test("pages through the inbox with the API's cursors, newest first, and back", async () => {
    const opened = await loggedIn({}, `#/forms/${seed.formId}/submissions`);
    const { page } = opened;
    const emailsOnPage = async () => {
      await page.locator(".submissions-table tbody tr").first().waitFor();
      return page.locator(".submissions-table tbody td[data-label=From] .muted").allInnerTexts();
    };
    const pages: string[][] = [];
    let cursor: string | null = null;
    do {
      const body: any = (
        await api(
          `/api/v1/forms/${seed.formId}/submissions?limit=25${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
        )
      ).body;
      pages.push(body.submissions.map((s: any) => s.data.email));
      cursor = body.nextCursor;
    } while (cursor);
    expect(pages.map((p) => p.length)).toEqual([25, 25, 10]);

    expect(await emailsOnPage()).toEqual(pages[0]!);
    await page.getByRole("link", { name: "Older →" }).click();
    await page.locator(".submissions-table tbody tr td[data-label=From]", { hasText: pages[1]![0]! }).waitFor();
    expect(await emailsOnPage()).toEqual(pages[1]!);
    await page.getByRole("link", { name: "Older →" }).click();
    await page.locator(".submissions-table tbody tr td[data-label=From]", { hasText: pages[2]![0]! }).waitFor();
    expect(await emailsOnPage()).toEqual(pages[2]!);
    expect(await page.getByRole("link", { name: "Older →" }).count()).toBe(0);
    await page.getByRole("link", { name: "← Newer" }).click();
    await page.locator(".submissions-table tbody tr td[data-label=From]", { hasText: pages[1]![0]! }).waitFor();
    expect(await emailsOnPage()).toEqual(pages[1]!);

    // A row opens the whole submission and its _meta.
    await page.getByRole("button", { name: /\d{4}/ }).first().click();
    const dialog = page.getByRole("dialog");
    await dialog.waitFor();
    expect(await dialog.innerText()).toContain(pages[1]![0]!);
    expect(await dialog.innerText()).toContain("Operating system");
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });
    await finish(opened);
  });

  test("marks a submission as spam and back, and the API's counts follow", async () => {
    const opened = await loggedIn({}, `#/forms/${seed.formId}/submissions`);
    const { page } = opened;
    const first = (await api(`/api/v1/forms/${seed.formId}/submissions?limit=1`)).body.submissions[0];
    await page.locator(".submissions-table tbody tr").first().getByRole("button").click();
    await page.getByRole("dialog").getByRole("button", { name: "Mark as spam" }).click();
    await page.getByText("Moved to spam").waitFor();
    expect((await api(`/api/v1/forms/${seed.formId}`)).body.submissionCount).toBe(SUBMISSIONS - 1);
    const spam = (await api(`/api/v1/forms/${seed.formId}/submissions?status=spam`)).body.submissions;
    expect(spam.map((s: any) => s.id)).toEqual([first.id]);

    await page.getByRole("link", { name: "Spam", exact: true }).click();
    await page.locator(".submissions-table tbody td[data-label=From]", { hasText: first.data.email }).waitFor();
    await page.locator(".submissions-table tbody tr").first().getByRole("button").click();
    await page.getByRole("dialog").getByRole("button", { name: "Not spam" }).click();
    await page.getByText("Moved to the inbox").waitFor();
    await page.getByRole("heading", { name: "No spam" }).waitFor();
    expect((await api(`/api/v1/forms/${seed.formId}`)).body.submissionCount).toBe(SUBMISSIONS);
    await finish(opened);
  });

  test("downloads a submission's PDF from its page, holding its values", async () => {
    const first = (await api(`/api/v1/forms/${seed.formId}/submissions?limit=1`)).body.submissions[0];
    const opened = await loggedIn({}, `#/forms/${seed.formId}/submissions/${first.id}`);
    const { page } = opened;
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("link", { name: "Download PDF" }).click(),
    ]);
    expect(download.suggestedFilename()).toEndWith(`${first.id}.pdf`);
    const pdf = await pdfText(new Uint8Array(await Bun.file((await download.path())!).arrayBuffer()));
    expect(pdf.text).toContain(`Submission ${first.id}`);
    expect(pdf.text).toContain(String(first.data.email));
    await finish(opened);
  });

  test("creates a secret key, shows it once, and revokes it after a confirmation", async () => {
    const opened = await loggedIn({ permissions: ["clipboard-read", "clipboard-write"] }, "#/keys");
    const { page } = opened;
    await page.getByRole("button", { name: "New key" }).click();
    await page.getByLabel("Name").fill("deploy script");
    await page.getByRole("button", { name: "Create key" }).click();
    const shown = page.locator('[data-testid="new-key"]');
    await shown.waitFor();
    const secret = (await shown.innerText()).trim();
    expect(secret).toMatch(/^fsk_/);
    await page.getByRole("button", { name: "Copy" }).click();
    await page.getByRole("button", { name: "Copied" }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    // The key works, and once the dialog is closed it is nowhere on the page again.
    expect((await server.json("/api/v1/forms/list", { key: secret })).status).toBe(200);
    await page.getByRole("button", { name: "Done" }).click();
    const row = page.getByRole("row").filter({ hasText: "deploy script" });
    await row.waitFor();
    await page.reload();
    await row.waitFor();
    expect(await page.content()).not.toContain(secret);

    await row.getByRole("button", { name: /Revoke/ }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Revoke key" }).click();
    await page.getByText("Key revoked").waitFor();
    await row.waitFor({ state: "detached" });
    expect((await server.json("/api/v1/forms/list", { key: secret })).status).toBe(401);
    await finish(opened);
  });

  test("saves a changed setting, which GET /forms/{formId} then shows", async () => {
    const opened = await loggedIn({}, `#/forms/${seed.waitlistId}/settings`);
    const { page } = opened;
    await page.getByLabel("Name", { exact: true }).fill("Launch waitlist");
    await page.getByLabel("Allowed origins").fill("https://www.example.com\nhttps://example.org");
    await page.locator(`.settings [name="spamSettings.challenge"]`).selectOption("pow");
    await saveUnsavedSections(page);
    const form = (await api(`/api/v1/forms/${seed.waitlistId}`)).body;
    expect(form.name).toBe("Launch waitlist");
    expect(form.allowedOrigins).toEqual(["https://www.example.com", "https://example.org"]);
    expect(form.spamSettings.challenge).toBe("pow");
    await page.getByRole("heading", { name: "Launch waitlist", level: 1 }).waitFor();

    // A bad origin is refused on the page, in words, and nothing is sent.
    await page.getByLabel("Allowed origins").fill("www.example.com/contact");
    await page.getByRole("button", { name: "Save Who may post settings" }).click();
    await page.getByText("Not an origin: www.example.com/contact").waitFor();
    expect((await api(`/api/v1/forms/${seed.waitlistId}`)).body.allowedOrigins).toEqual([
      "https://www.example.com",
      "https://example.org",
    ]);
    await finish(opened);
  });

  test("changes every setting of the settings table on the settings page, saves, and the API then shows each", async () => {
    const form = (
      await api("/api/v1/forms", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: "Every setting" }),
      })
    ).body;
    const opened = await loggedIn({}, `#/forms/${form.id}/settings`);
    const { page } = opened;
    await page.getByRole("button", { name: "Save General settings" }).waitFor();
    const field = (name: string) => page.locator(`.settings [name="${name}"]`);
    // In the table's order, so a switch comes before what it shows (email before the autoresponse, type before double opt-in).
    for (const { key, row } of WRITABLE_SETTINGS) {
      const example = row.example;
      const control = CONTROLS[key];
      if (control.kind === "checkbox") await field(key).setChecked(example as boolean);
      else if (control.kind === "select") await field(key).selectOption(String(example));
      else if (control.kind === "lines")
        await field(key).fill((control.linesOf?.(example) ?? (example as string[])).join("\n"));
      else if (control.kind === "template") {
        const { subject, text } = example as { subject: string; text: string };
        await field(`${key}.on`).setChecked(true);
        await field(`${key}.subject`).fill(subject);
        await field(`${key}.text`).fill(text);
      } else if (control.kind === "optional-text" || control.kind === "colour") {
        await field(`${key}.on`).setChecked(example !== null);
        if (example !== null) await field(key).fill(String(example));
      } else if (control.kind === "days") {
        await field(`${key}.mode`)
          .and(page.locator(`[value="${example === null ? "forever" : "days"}"]`))
          .check();
        if (example !== null) await field(key).fill(String(example));
      } else if (control.kind === "files") {
        const files = example as { maxFiles: number; maxFileBytes: number; maxTotalBytes: number; types: string[] };
        await field(`${key}.on`).setChecked(true);
        await field(`${key}.maxFiles`).fill(String(files.maxFiles));
        await field(`${key}.maxFileBytes`).fill(String(files.maxFileBytes / 1048576));
        await field(`${key}.maxTotalBytes`).fill(String(files.maxTotalBytes / 1048576));
        await field(`${key}.types`).fill(files.types.join("\n"));
      } else if (control.kind === "fields") await fillFieldEditor(page, example as FieldRule[]);
      else if (control.kind === "time")
        // The control shows the browser's local time.
        await field(key).fill(
          await page.evaluate((iso) => {
            const d = new Date(iso);
            return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
          }, String(example)),
        );
      else await field(key).fill(String(example));
    }
    await saveScreenshot(page, "settings-every-setting");
    await saveUnsavedSections(page);
    const saved = (await api(`/api/v1/forms/${form.id}`)).body;
    for (const { key, row } of WRITABLE_SETTINGS) expect([key, valueAt(saved, key)]).toEqual([key, row.example]);
    await finish(opened);
  });

  test("creates a form whose snippet, pasted into a page on another loopback origin, submits", async () => {
    const opened = await loggedIn();
    const { page } = opened;
    await page.getByRole("button", { name: "New form" }).click();
    await page.getByLabel("Name").fill("Site contact");
    await page.getByLabel("Type").selectOption("contact");
    await page.getByRole("button", { name: "Create form" }).click();
    await page.getByRole("heading", { name: "Put this form on your website" }).waitFor();
    await page.getByRole("button", { name: "Create a publishable key" }).click();
    // The key itself, not the fpk_… the snippet shows until the key has come back.
    await page.locator('[data-testid="snippet"]', { hasText: /apiKey=fpk_[A-Za-z0-9_-]{43}/ }).waitFor();

    // Another origin: the same loopback address on another port, serving the snippet as a static page.
    let thanked = false;
    const site = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch(req) {
        if (new URL(req.url).pathname === "/thanks.html") {
          thanked = true;
          return new Response("<!doctype html><title>Thanks</title><h1>Thank you</h1>", {
            headers: { "content-type": "text/html" },
          });
        }
        return new Response(
          `<!doctype html><html lang="en"><head><title>Contact</title></head><body>${pasted}</body></html>`,
          { headers: { "content-type": "text/html" } },
        );
      },
    });
    let pasted = "";
    try {
      await page.getByLabel("Thank-you page").fill(`http://127.0.0.1:${site.port}/thanks.html`);
      pasted = await page.locator('[data-testid="snippet"]').innerText();
      expect(pasted).toContain(`action="${server.url}/api/v1/forms/submit?apiKey=fpk_`);
      expect(pasted).toContain('name="_gotcha"');
      const formId = /name="formId" value="([^"]+)"/.exec(pasted)![1]!;

      const visitor = await browser.newPage({ locale: "en-GB" });
      try {
        await visitor.page.goto(`http://127.0.0.1:${site.port}/`);
        // The honeypot is off screen and out of reach for people.
        expect(await visitor.page.locator('input[name="_gotcha"]').isVisible()).toBe(true);
        const box = await visitor.page.locator('input[name="_gotcha"]').boundingBox();
        expect(box!.x).toBeLessThan(0);
        await visitor.page.getByLabel("Name").fill("Ada Lovelace");
        await visitor.page.getByLabel("Email").fill("ada@example.com");
        await visitor.page.getByLabel("Message").fill("Sent from a static page");
        await visitor.page.getByRole("button", { name: "Send" }).click();
        await visitor.page.getByRole("heading", { name: "Thank you" }).waitFor();
        expect(visitor.blocked).toEqual([]);
      } finally {
        await visitor.close();
      }
      expect(thanked).toBe(true);
      const stored = (await api(`/api/v1/forms/${formId}/submissions`)).body.submissions;
      expect(stored.map((s: any) => [s.data.name, s.data.email, s.data.message])).toEqual([
        ["Ada Lovelace", "ada@example.com", "Sent from a static page"],
      ]);
      expect(stored[0].data._gotcha).toBeUndefined();
    } finally {
      await site.stop(true);
    }
    await finish(opened);
  });

  test("sends a user whose session ended to the login page, and back to the same place after logging in", async () => {
    const opened = await loggedIn({}, `#/forms/${seed.formId}/submissions`);
    const { page, context } = opened;
    await page.locator(".submissions-table tbody tr").first().waitFor();
    // The spam filter's panel asks after the rows: once it is shown, nothing of this page is still asking
    // (an ended session would otherwise send it to the login page before "Older →" is clicked).
    await page.getByText("Spam filter: learned from").waitFor();
    // The session ends behind the page's back (as it would after its idle time).
    const out = await context.request.post(`${server.url}/api/v1/auth/logout`, { headers: { origin: server.url } });
    expect(out.status()).toBe(204);
    await page.getByRole("link", { name: "Older →" }).click();
    await page.getByRole("heading", { name: "Log in" }).waitFor();
    await page.getByText("Your session has ended").waitFor();
    const wanted = new URL(page.url()).hash;
    expect(decodeURIComponent(wanted)).toContain(`#/login?next=#/forms/${seed.formId}/submissions?cursor=`);

    await page.getByLabel("Email").fill(seed.email);
    await page.getByLabel("Password").fill(PASSWORD);
    // As logIn (helpers/dashboard.ts) does: a login POST that never left the browser is asked once more.
    for (let attempt = 1; ; attempt++) {
      await page.getByRole("button", { name: "Log in" }).click();
      try {
        await page.getByRole("link", { name: "← First page" }).waitFor({ timeout: attempt === 1 ? 5_000 : 10_000 });
        break;
      } catch (e) {
        if (attempt === 2) throw e;
      }
    }
    expect(new URL(page.url()).hash).toStartWith(`#/forms/${seed.formId}/submissions?cursor=`);
    // The submissions page asks for the next page and for the spam filter's panel: either may meet the ended session.
    await finish(opened, "/api/v1/forms/", "/api/v1/spam-filter");
  });

  test("can be used with the keyboard alone: headings take focus, every control has a name, dialogs keep and return focus", async () => {
    const opened = await loggedIn({}, `#/forms/${seed.formId}/submissions`);
    const { page } = opened;
    await page.locator(".submissions-table tbody tr").first().waitFor();
    // The page's loads done: a row rendered again after the dialog opened would take its opener away.
    await page.waitForLoadState("networkidle");
    // Arriving on a page puts focus on its heading, so a screen reader says where the user is.
    expect(await page.evaluate(() => document.activeElement?.tagName)).toBe("H1");
    const unnamed = await page.evaluate(() =>
      [...document.querySelectorAll("a, button, input, select, textarea")]
        .filter(
          (el) =>
            !(el as HTMLElement).innerText?.trim() &&
            !el.getAttribute("aria-label") &&
            !(el as HTMLInputElement).labels?.length,
        )
        .map((el) => el.outerHTML.slice(0, 80)),
    );
    expect(unnamed).toEqual([]);
    // Tab from the heading reaches the folders, the search and the filters, then the first row's button; Enter opens it.
    for (
      let i = 0;
      i < 20 && !(await page.evaluate(() => document.activeElement?.classList.contains("link-button")));
      i++
    )
      await page.keyboard.press("Tab");
    const opener = await page.evaluate(() => document.activeElement?.textContent);
    await page.keyboard.press("Enter");
    const dialog = page.getByRole("dialog");
    await dialog.waitFor();
    expect(await page.evaluate(() => !!document.activeElement?.closest("dialog"))).toBe(true);
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });
    // On a loaded machine the focus may come back a frame after the dialog is gone: wait for it (bounded), then check.
    await page
      .waitForFunction((text) => document.activeElement?.textContent === text, opener, { timeout: 3000 })
      .catch(() => {});
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe(opener);
    // Back up the page: the first stop is the skip link, which leads to the page's heading.
    for (
      let i = 0;
      i < 40 && (await page.evaluate(() => document.activeElement?.textContent)) !== "Skip to content";
      i++
    )
      await page.keyboard.press("Shift+Tab");
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Skip to content");
    expect(await page.locator(".skip-link").isVisible()).toBe(true);
    await page.keyboard.press("Enter");
    expect(await page.evaluate(() => document.activeElement?.tagName)).toBe("H1");
    await finish(opened);
  });

  test("saves a screenshot of every page, light and dark, desktop and phone", async () => {
    const pages: [string, string][] = [
      ["forms", "#/forms"],
      ["analytics", `#/forms/${seed.formId}`],
      ["submissions", `#/forms/${seed.formId}/submissions`],
      ["settings", `#/forms/${seed.formId}/settings`],
      ["embed", `#/forms/${seed.formId}/embed`],
      ["keys", "#/keys"],
      ["empty-form", `#/forms/${seed.waitlistId}`],
      ["empty-analytics", `#/forms/${seed.waitlistId}/analytics`],
    ];
    for (const scheme of ["light", "dark"] as const) {
      for (const [device, viewport] of [
        ["desktop", { width: 1280, height: 900 }],
        ["phone", { width: 390, height: 844 }],
      ] as const) {
        const opened = await browser.newPage({
          locale: "en-GB",
          colorScheme: scheme,
          viewport,
          isMobile: device === "phone",
          hasTouch: device === "phone",
        });
        const console = watchConsole(opened.page);
        const { page } = opened;
        await page.goto(`${server.url}/dashboard`);
        await page.getByRole("heading", { name: "Log in" }).waitFor();
        await saveScreenshot(page, `login-${device}-${scheme}`);
        await logIn(page, server.url, seed.email);
        for (const [name, hash] of pages) {
          await page.goto(`${server.url}/dashboard${hash}`);
          await page.locator("main h1").waitFor();
          await page.waitForLoadState("networkidle");
          // Every section still loading (a page may load several at once, the team's among them) is done.
          await page.waitForFunction(() => !document.querySelector(".loading .spinner"));
          expect(
            await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth),
            `${name} fits ${device} width`,
          ).toBe(true);
          await saveScreenshot(page, `${name}-${device}-${scheme}`);
        }
        await page.goto(`${server.url}/dashboard#/forms/${seed.formId}/submissions`);
        await page.locator(".submissions-table tbody tr").first().getByRole("button").click();
        await page.getByRole("dialog").waitFor();
        // The viewport: a modal covers what is on screen, not the whole page.
        await saveScreenshot(page, `submission-${device}-${scheme}`, false);
        expect(console.unexpected("/api/v1/auth/me")).toEqual([]);
        expect(opened.blocked).toEqual([]);
        await opened.close();
      }
    }
  }, 120_000);
});
