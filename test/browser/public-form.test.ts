import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Request as PageRequest } from "playwright-core";
import { createLogger } from "../../src/lib/log";
import { launchBrowser, screenshot, type OfflinePage, type TestBrowser } from "../helpers/browser";
import { seedForm, seedKey, startTestServer, type TestServer } from "../helpers/harness";
import { example, fieldsOf as fields, startSite, storedRows, type Site } from "./site";

const EXAMPLES = join(import.meta.dir, "../../examples");
const OWNER = "site@example.com";

interface LoggedRequest {
  method: string;
  route: string;
  status: number;
}

let server: TestServer;
let browser: TestBrowser;
let site: Site;
// The page's origin, another one than formsvc's: every request to formsvc is a cross-origin one.
let siteOrigin: string;
const logged: LoggedRequest[] = [];

beforeAll(async () => {
  const log = createLogger("info", (line) => {
    const entry = JSON.parse(line);
    if (entry.msg === "request") logged.push({ method: entry.method, route: entry.route, status: entry.status });
  });
  [server, browser] = await Promise.all([startTestServer({ log }), launchBrowser()]);
  site = startSite();
  siteOrigin = site.origin;
});
afterAll(async () => {
  await browser?.close();
  await site?.stop();
  await server?.close();
});

/** A form that takes submissions from the site's origin only, and a publishable key bound to it. */
async function publicForm(name: string, settings: { challenge?: string } = {}) {
  const formId = (
    await seedForm(server, OWNER, { name, formType: "contact", allowedOrigins: [siteOrigin], ...settings })
  ).id;
  const key = (await seedKey(server, OWNER, { name, publishable: true, forms: [formId] })).key;
  return { formId, key };
}

/** Serves an example file at `path` on the site, its placeholders replaced by this server, site, form and key. */
function serveExample(file: string, path: string, form: { formId: string; key: string }): string {
  const html = example(file, { "https://forms.example.com": server.url, "frm_…": form.formId, "fpk_…": form.key });
  // The no-JavaScript page's redirectUrl: a page of the site.
  return site.serve(path, html.replaceAll("https://www.example.com", siteOrigin));
}

const rows = (formId: string) => storedRows(server, formId);
const submissionCount = async (formId: string) => (await server.services.forms.requireForm(formId)).submissionCount;

/** The requests a page makes to formsvc, in order (recorded as they are sent); `answered()` lists them with their answers' statuses. */
function formsvcTraffic(page: OfflinePage["page"]) {
  const sent: PageRequest[] = [];
  page.on("request", (request) => {
    if (new URL(request.url()).origin === server.url) sent.push(request);
  });
  return {
    sent,
    answered: () =>
      Promise.all(
        sent.map(async (r) => ({
          method: r.method(),
          path: new URL(r.url()).pathname,
          status: (await r.response())?.status() ?? 0,
        })),
      ),
  };
}

describe("the guide's snippets", () => {
  test("are lines of the example files these tests load, so neither can change without the other", () => {
    const readme = readFileSync(join(import.meta.dir, "../../docs/guide.md"), "utf8");
    const section = readme.slice(
      readme.indexOf("## Put a form on your website"),
      readme.indexOf("\n## ", readme.indexOf("## Put a form on your website") + 1),
    );
    const lines = (text: string) =>
      text
        .split("\n")
        .map((line) => line.trim())
        .join("\n");
    const snippets = [...section.matchAll(/```html\n([\s\S]*?)```/g)].map((m) => lines(m[1]!).trim());
    const files = [
      { file: "dropin.html", first: '<form method="post" action="https://forms.example.com/f/frm_…">' },
      {
        file: "contact.html",
        first: '<form method="post" action="https://forms.example.com/api/v1/forms/submit?apiKey=fpk_…">',
      },
      {
        file: "contact-fetch.html",
        first: "<!-- The ALTCHA proof-of-work widget, served by formsvc itself (no CDN). -->",
      },
    ];
    expect(snippets.map((s) => s.split("\n")[0])).toEqual(files.map((f) => f.first));
    for (const [i, { file }] of files.entries())
      expect([file, lines(readFileSync(join(EXAMPLES, file), "utf8")).includes(snippets[i]!)]).toEqual([file, true]);
  });
});

describe("the no-JavaScript form of examples/contact.html, from another origin", () => {
  test("posts with the publishable key in its action, lands on the thank-you page, and is stored once with its fields", async () => {
    const form = await publicForm("No-JS contact");
    const url = serveExample("contact.html", "/contact.html", form);
    const { page, blocked, errors, close } = await browser.newPage({}, "proxy");
    try {
      await page.goto(url);
      await page.getByRole("textbox", { name: "Name" }).fill("Ada Lovelace");
      await page.getByRole("textbox", { name: "Email" }).fill("ada@example.com");
      await page.getByRole("textbox", { name: "Message" }).fill("Hello from a static page");
      await page.getByRole("checkbox", { name: "Sales" }).check();
      await page.getByRole("checkbox", { name: "Support" }).check();
      await screenshot(page, "public-form-nojs-filled");

      await Promise.all([
        page.waitForURL(`${siteOrigin}/thanks.html`),
        page.getByRole("button", { name: "Send" }).click(),
      ]);
      await page.getByRole("heading", { name: "Thank you, we will be in touch" }).waitFor();
      await screenshot(page, "public-form-nojs-thanks");

      const stored = await rows(form.formId);
      expect(stored.map((r) => ({ status: r.status, data: fields(r.data) }))).toEqual([
        {
          status: "inbox",
          data: {
            name: "Ada Lovelace",
            email: "ada@example.com",
            message: "Hello from a static page",
            topics: ["sales", "support"],
          },
        },
      ]);
      expect(stored[0]!.data._meta.referrer).toBe(siteOrigin);
      expect(await submissionCount(form.formId)).toBe(1);
      expect(blocked).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  });

  test("hides the honeypot from people: off screen, not in the accessibility tree, not in the Tab order", async () => {
    const url = serveExample("contact.html", "/contact-honeypot.html", await publicForm("Honeypot look"));
    const { page, close } = await browser.newPage({}, "proxy");
    try {
      await page.goto(url);
      expect(await page.getByRole("textbox").evaluateAll((els) => els.map((el) => el.getAttribute("name")))).toEqual([
        "name",
        "email",
        "message",
      ]);
      const honeypot = page.locator('input[name="_gotcha"]');
      const box = (await honeypot.boundingBox())!;
      expect(box.x + box.width).toBeLessThanOrEqual(0);
      expect(await honeypot.getAttribute("autocomplete")).toBe("off");

      const reached: string[] = [];
      await page.getByRole("textbox", { name: "Name" }).focus();
      for (let i = 0; i < 8; i++) {
        reached.push(
          await page.evaluate(
            () => document.activeElement?.getAttribute("name") ?? document.activeElement?.textContent ?? "",
          ),
        );
        await page.keyboard.press("Tab");
      }
      expect(reached.slice(0, 6)).toEqual(["name", "email", "message", "topics", "topics", "Send"]);
      expect(reached).not.toContain("_gotcha");
    } finally {
      await close();
    }
  });

  test("a bot that fills the honeypot is sent to the same thank-you page, and its submission goes to the spam folder", async () => {
    const form = await publicForm("No-JS spam");
    const url = serveExample("contact.html", "/contact-bot.html", form);
    const { page, blocked, close } = await browser.newPage({}, "proxy");
    try {
      await page.goto(url);
      await page.getByRole("textbox", { name: "Name" }).fill("Buy now");
      await page.getByRole("textbox", { name: "Email" }).fill("bot@spam.example");
      await page.getByRole("textbox", { name: "Message" }).fill("cheap pills");
      await page
        .locator('input[name="_gotcha"]')
        .evaluate((el: HTMLInputElement) => (el.value = "http://spam.example"));
      await Promise.all([
        page.waitForURL(`${siteOrigin}/thanks.html`),
        page.getByRole("button", { name: "Send" }).click(),
      ]);

      expect((await rows(form.formId)).map((r) => ({ status: r.status, data: fields(r.data) }))).toEqual([
        { status: "spam", data: { name: "Buy now", email: "bot@spam.example", message: "cheap pills" } },
      ]);
      expect(await submissionCount(form.formId)).toBe(0);
      expect(blocked).toEqual([]);
    } finally {
      await close();
    }
  });
});

describe("the fetch() form with the ALTCHA widget of examples/contact-fetch.html, from another origin", () => {
  const fill = async (page: OfflinePage["page"], message: string) => {
    await page.getByRole("textbox", { name: "Name" }).fill("Grace Hopper");
    await page.getByRole("textbox", { name: "Email" }).fill("grace@example.com");
    await page.getByRole("textbox", { name: "Message" }).fill(message);
  };
  /** The widget's payload once it has solved a challenge (it starts when a field gets focus). */
  const solvedPayload = (page: OfflinePage["page"], not = "") =>
    page
      .waitForFunction((previous) => {
        const value = (document.querySelector('input[name="altcha"]') as HTMLInputElement | null)?.value;
        return value && value !== previous ? value : null;
      }, not)
      .then((handle) => handle.jsonValue() as Promise<string>);

  test("fetches its challenge from formsvc, solves it, passes the real CORS preflight, and is stored exactly once", async () => {
    const form = await publicForm("Fetch contact", { challenge: "pow" });
    const url = serveExample("contact-fetch.html", "/contact-fetch.html", form);
    const { page, blocked, errors, close } = await browser.newPage({}, "proxy");
    const traffic = formsvcTraffic(page);
    const loggedBefore = logged.length;
    try {
      await page.goto(url);
      await fill(page, "Hello with a proof of work");
      const payload = await solvedPayload(page);
      await screenshot(page, "public-form-fetch-solved");

      const sent = page.waitForRequest((r) => r.url() === `${server.url}/api/v1/forms/submit` && r.method() === "POST");
      await page.getByRole("button", { name: "Send" }).click();
      const request = await sent;
      await page.getByRole("status").getByText("Thank you! Your message has been sent.").waitFor();
      await screenshot(page, "public-form-fetch-sent");

      // The widget fetched the challenge from formsvc with the key in the URL; the page posted once.
      expect(await traffic.answered()).toEqual([
        { method: "GET", path: "/widget/altcha.js", status: 200 },
        { method: "GET", path: `/api/v1/forms/${form.formId}/challenge`, status: 200 },
        { method: "POST", path: "/api/v1/forms/submit", status: 200 },
      ]);
      // The browser asked formsvc itself before the POST (Playwright does not stand in for it here).
      // The server logs a request once its answer is sent: the POST's line may follow the page's update.
      for (let i = 0; i < 200 && !logged.slice(loggedBefore).some((r) => r.method === "POST"); i++) await Bun.sleep(10);
      const fromPage = logged.slice(loggedBefore);
      expect(fromPage.filter((r) => r.method === "OPTIONS")).toEqual([
        { method: "OPTIONS", route: expect.any(String), status: 204 },
      ]);
      expect(fromPage.findIndex((r) => r.method === "OPTIONS")).toBeLessThan(
        fromPage.findIndex((r) => r.method === "POST"),
      );

      const stored = await rows(form.formId);
      expect(stored.map((r) => ({ status: r.status, data: fields(r.data) }))).toEqual([
        {
          status: "inbox",
          data: { name: "Grace Hopper", email: "grace@example.com", message: "Hello with a proof of work" },
        },
      ]);
      expect(await submissionCount(form.formId)).toBe(1);
      // The form was reset, the widget with it: the next message needs a new proof of work.
      expect(await page.getByRole("textbox", { name: "Message" }).inputValue()).toBe("");
      expect(await page.locator('input[name="altcha"]').inputValue()).toBe("");

      // The same request again: with its Idempotency-Key it is the first answer (a retry after a lost
      // answer stores nothing new); with a new key its proof of work is refused as used.
      const headers = request.headers();
      const idempotencyKey = headers["idempotency-key"]!;
      expect(idempotencyKey).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      const body = request.postDataBuffer()!;
      expect(body.toString()).toContain(payload);
      const replay = (key: string) =>
        server.json("/api/v1/forms/submit", {
          method: "POST",
          headers: {
            "content-type": headers["content-type"]!,
            "x-api-key": form.key,
            "idempotency-key": key,
            origin: siteOrigin,
          },
          body: new Uint8Array(body),
        });
      const id = (await server.query<{ id: string }>("SELECT id FROM submissions WHERE form_id = ?", form.formId))[0]!
        .id;
      const retried = await replay(idempotencyKey);
      expect([retried.status, retried.body]).toEqual([200, { success: true, submissionId: id }]);
      const reused = await replay(crypto.randomUUID());
      expect([reused.status, reused.body.code, reused.body.error]).toEqual([
        400,
        "CHALLENGE_FAILED",
        expect.stringContaining("already used"),
      ]);
      expect(await rows(form.formId)).toHaveLength(1);

      expect(blocked).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  });

  test("shows the server's error when its proof of work was used by someone else, sends it once, and succeeds after a new solve", async () => {
    const form = await publicForm("Fetch refused", { challenge: "pow" });
    const url = serveExample("contact-fetch.html", "/contact-fetch-used.html", form);
    const { page, blocked, close } = await browser.newPage({}, "proxy");
    const traffic = formsvcTraffic(page);
    try {
      await page.goto(url);
      await fill(page, "Second try");
      const payload = await solvedPayload(page);
      // A script that copied the page's payload spends it first.
      const thief = await server.json("/api/v1/forms/submit", {
        method: "POST",
        key: form.key,
        headers: { "content-type": "application/json", origin: siteOrigin },
        body: JSON.stringify({ formId: form.formId, data: { message: "copied" }, altcha: payload }),
      });
      expect(thief.status).toBe(200);

      await page.getByRole("button", { name: "Send" }).click();
      await page
        .getByRole("status")
        .getByText("Not sent: this proof of work was already used", { exact: false })
        .waitFor();
      await screenshot(page, "public-form-fetch-refused");
      const posts = async () => (await traffic.answered()).filter((t) => t.method === "POST").map((t) => t.status);
      expect(await posts()).toEqual([400]);

      // The page asked the widget for a new solution; the visitor presses Send again.
      await solvedPayload(page, payload);
      await page.getByRole("button", { name: "Send" }).click();
      await page.getByRole("status").getByText("Thank you! Your message has been sent.").waitFor();
      expect(await posts()).toEqual([400, 200]);
      expect((await traffic.answered()).filter((t) => t.path.endsWith("/challenge")).map((t) => t.status)).toEqual([
        200, 200,
      ]);
      expect((await rows(form.formId)).map((r) => fields(r.data).message)).toEqual(["copied", "Second try"]);
      expect(blocked).toEqual([]);
    } finally {
      await close();
    }
  });

  test("the network cut of these pages refuses and records any request for another host", async () => {
    const { page, blocked, close } = await browser.newPage({}, "proxy");
    try {
      await page.goto(serveExample("contact-fetch.html", "/contact-fetch-cut.html", await publicForm("Cut")));
      const outcomes = await page.evaluate(() =>
        Promise.all(
          ["http://example.com/x", "https://example.com/y"].map((u) =>
            fetch(u, { mode: "no-cors" }).then(
              () => "answered",
              () => "failed",
            ),
          ),
        ),
      );
      expect(outcomes[1]).toBe("failed");
      // The two requests race: compare them in any order.
      expect([...blocked].sort()).toEqual(["http://example.com/x", "https://example.com:443/"]);
    } finally {
      await close();
    }
  });
});
