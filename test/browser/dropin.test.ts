import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createLogger } from "../../src/lib/log";
import { launchBrowser, screenshot, type OfflinePage, type TestBrowser } from "../helpers/browser";
import { seedForm, startTestServer, type TestServer } from "../helpers/harness";
import { example, fieldsOf, SITE_THANKS, startSite, storedRows, type Site } from "./site";

// A form copied from a Formspree site with only its host changed: examples/dropin.html as shipped,
// on another loopback origin than formsvc, against a form with every setting at its default.
const OWNER = "dropin-site@example.com";

let server: TestServer;
let browser: TestBrowser;
let site: Site;
const logged: { method: string; route: string; status: number }[] = [];

beforeAll(async () => {
  const log = createLogger("info", (line) => {
    const entry = JSON.parse(line);
    if (entry.msg === "request") logged.push({ method: entry.method, route: entry.route, status: entry.status });
  });
  [server, browser] = await Promise.all([startTestServer({ log }), launchBrowser()]);
  site = startSite();
});
afterAll(async () => {
  await browser?.close();
  await site?.stop();
  await server?.close();
});

// Chrome's default referrer policy (strict-origin-when-cross-origin) sends another origin only the
// page's origin; a page that asks for more sends its whole address.
const FULL_REFERRER = '<meta name="referrer" content="no-referrer-when-downgrade">';
const HOME = "<!doctype html><title>Home</title><h1>Welcome to the site</h1>";

interface Served {
  /** Put first in the form (a control field). */
  inForm?: string;
  /** Put at the end of the page's head. */
  inHead?: string;
  /** The form's settings besides the defaults. */
  settings?: Parameters<typeof seedForm>[2];
}

/** Serves examples/`file` for a new form with default settings at `path` on the site; returns the form's id and the page's URL. */
async function servedForm(file: string, path: string, { inForm = "", inHead = "", settings }: Served = {}) {
  const formId = (await seedForm(server, OWNER, settings)).id;
  const action = `action="${server.url}/f/${formId}">`;
  const html = example(file, { "https://forms.example.com": server.url, "frm_…": formId });
  expect([html.includes(action), html.includes("</head>")]).toEqual([true, true]);
  return {
    formId,
    url: site.serve(path, html.replace(action, `${action}\n    ${inForm}`).replace("</head>", `  ${inHead}\n</head>`)),
  };
}

describe("the plain HTML form of examples/dropin.html, from another origin", () => {
  const backCases = [
    { policy: "the default referrer policy", inHead: "", back: (_url: string) => `${site.origin}/` },
    { policy: "a page asking for its full referrer", inHead: FULL_REFERRER, back: (url: string) => url },
  ];
  for (const [i, { policy, inHead, back }] of backCases.entries())
    test(`with ${policy}, lands on formsvc's thank-you page, whose link goes back where the browser said it came from, and is stored once`, async () => {
      site.serve("/", HOME);
      const { formId, url } = await servedForm("dropin.html", `/contact/dropin-${i}.html`, { inHead });
      const { page, blocked, errors, close } = await browser.newPage({}, "proxy");
      try {
        await page.goto(url);
        await page.getByRole("textbox", { name: "Email" }).fill("ada@example.com");
        await page.getByRole("textbox", { name: "Message" }).fill("Hello from a copied form");
        if (i === 0) await screenshot(page, "dropin-filled");

        await Promise.all([
          // The back link comes signed (`sig`), so that no other page can put one there.
          page.waitForURL(
            (at) =>
              at.href.startsWith(`${server.url}/f/${formId}/thanks?`) &&
              at.searchParams.get("back") === back(url) &&
              at.searchParams.has("sig"),
          ),
          page.getByRole("button", { name: "Send" }).click(),
        ]);
        await page.getByRole("heading", { name: "Thank you!" }).waitFor();
        if (i === 0) await screenshot(page, "dropin-thanks");
        expect((await storedRows(server, formId)).map((r) => ({ status: r.status, data: fieldsOf(r.data) }))).toEqual([
          { status: "inbox", data: { email: "ada@example.com", message: "Hello from a copied form" } },
        ]);

        await Promise.all([
          page.waitForURL(back(url)),
          page.getByRole("link", { name: "Go back to the site" }).click(),
        ]);
        await page.getByRole("heading", { name: i === 0 ? "Welcome to the site" : "Contact us" }).waitFor();
        expect(blocked).toEqual([]);
        expect(errors).toEqual([]);
      } finally {
        await close();
      }
    });

  // The page is at /contact/…: a relative _next is resolved against what the browser sent as Referer.
  const nextCases = [
    {
      label: "an absolute _next",
      next: () => `${site.origin}/contact/thanks.html`,
      inHead: "",
      lands: "/contact/thanks.html",
    },
    { label: "a root-relative _next", next: () => "/contact/thanks.html", inHead: "", lands: "/contact/thanks.html" },
    {
      label: "a relative _next, with the default referrer policy",
      next: () => "thanks.html",
      inHead: "",
      lands: "/thanks.html",
    },
    {
      label: "a relative _next, from a page asking for its full referrer",
      next: () => "thanks.html",
      inHead: FULL_REFERRER,
      lands: "/contact/thanks.html",
    },
  ];
  for (const [i, { label, next, inHead, lands }] of nextCases.entries())
    test(`with ${label}, lands on ${lands} of the site and is stored once`, async () => {
      site.serve("/contact/thanks.html", SITE_THANKS);
      const { formId, url } = await servedForm("dropin.html", `/contact/next-${i}.html`, {
        inForm: `<input type="hidden" name="_next" value="${next()}">`,
        inHead,
      });
      const { page, blocked, errors, close } = await browser.newPage({}, "proxy");
      try {
        await page.goto(url);
        await page.getByRole("textbox", { name: "Email" }).fill("grace@example.com");
        await page.getByRole("textbox", { name: "Message" }).fill(`Sent with ${label}`);
        await Promise.all([page.waitForURL(site.origin + lands), page.getByRole("button", { name: "Send" }).click()]);
        await page.getByRole("heading", { name: "Thank you, we will be in touch" }).waitFor();
        expect((await storedRows(server, formId)).map((r) => fieldsOf(r.data))).toEqual([
          { email: "grace@example.com", message: `Sent with ${label}` },
        ]);
        expect(blocked).toEqual([]);
        expect(errors).toEqual([]);
      } finally {
        await close();
      }
    });
});

describe("the same form sent with fetch() as Formspree's snippet does (examples/dropin-fetch.html), from another origin", () => {
  // The page knows nothing of these rules: the server is the one to refuse.
  const settings = {
    fields: [
      { name: "email", type: "email", label: "Email", required: true },
      { name: "message", type: "textarea", label: "Message", required: true, minLength: 20 },
    ],
  } satisfies Served["settings"];

  /** Sends the filled form and returns the request the page made and formsvc's answer, with the server's log lines for it. */
  async function send(page: OfflinePage["page"], formId: string) {
    const before = logged.length;
    const [answer] = await Promise.all([
      page.waitForResponse((r) => r.url() === `${server.url}/f/${formId}` && r.request().method() !== "OPTIONS"),
      page.getByRole("button", { name: "Send" }).click(),
    ]);
    // The server logs a request once its answer is sent: its line may come after the page has the answer.
    for (let i = 0; i < 200 && !logged.slice(before).some((r) => r.method === "POST"); i++) await Bun.sleep(10);
    return { request: answer.request(), answer, log: logged.slice(before).filter((r) => r.route.startsWith("/f/")) };
  }

  test("is a simple cross-origin request (no preflight) answered {ok: true}, and the page shows its thanks; stored once", async () => {
    const { formId, url } = await servedForm("dropin-fetch.html", "/contact/fetch.html", { settings });
    const { page, blocked, errors, close } = await browser.newPage({}, "proxy");
    try {
      await page.goto(url);
      await page.getByRole("textbox", { name: "Email" }).fill("ada@example.com");
      await page.getByRole("textbox", { name: "Message" }).fill("Hello from a page with fetch()");
      const { request, answer, log } = await send(page, formId);
      await page.getByRole("status").getByText("Thanks for your message!").waitFor();
      await screenshot(page, "dropin-fetch-sent");

      // What the browser sent: Formspree's Accept header, a FormData body, the page's origin; nothing asking for a preflight.
      const headers = await request.allHeaders();
      expect({
        method: request.method(),
        accept: headers.accept,
        contentType: headers["content-type"]?.split(";")[0],
        origin: headers.origin,
      }).toEqual({
        method: "POST",
        accept: "application/json",
        contentType: "multipart/form-data",
        origin: site.origin,
      });
      expect(log.map((r) => `${r.method} ${r.status}`)).toEqual(["POST 200"]);
      const stored = await server.query<{ id: string }>("SELECT id FROM submissions WHERE form_id = ?", formId);
      const { next, ...answered } = await answer.json();
      expect([answer.status(), answered]).toEqual([200, { ok: true, success: true, submissionId: stored[0]!.id }]);
      // The thank-you page, its back link signed (`sig`).
      const thanks = `${server.url}/f/${formId}/thanks?back=${encodeURIComponent(`${site.origin}/`)}&sig=`;
      expect([next.startsWith(thanks), next.length > thanks.length]).toEqual([true, true]);
      expect((await storedRows(server, formId)).map((r) => fieldsOf(r.data))).toEqual([
        { email: "ada@example.com", message: "Hello from a page with fetch()" },
      ]);
      // The page stayed, and reset its form.
      expect([page.url(), await page.getByRole("textbox", { name: "Message" }).inputValue()]).toEqual([url, ""]);
      expect(blocked).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  });

  test("reads a validation failure from errors[] and shows every problem, nothing stored", async () => {
    const { formId, url } = await servedForm("dropin-fetch.html", "/contact/fetch-refused.html", { settings });
    const { page, blocked, errors, close } = await browser.newPage({}, "proxy");
    try {
      await page.goto(url);
      // Both pass the browser's own checks (type=email takes a domain without a dot; no minlength on the page).
      await page.getByRole("textbox", { name: "Email" }).fill("ada@localhost");
      await page.getByRole("textbox", { name: "Message" }).fill("Too short");
      const { answer, log } = await send(page, formId);
      await page.getByRole("status").getByText("Not sent:").waitFor();
      await screenshot(page, "dropin-fetch-refused");

      expect(answer.status()).toBe(400);
      expect((await answer.json()).errors).toEqual([
        { field: "email", code: "TYPE_EMAIL", message: expect.any(String) },
        { field: "message", code: "TOO_SHORT", message: expect.any(String) },
      ]);
      expect(await page.getByRole("status").textContent()).toBe(
        'Not sent: "Email" must be an email address; "Message" must be at least 20 characters',
      );
      expect(log.map((r) => `${r.method} ${r.status}`)).toEqual(["POST 400"]);
      expect(await storedRows(server, formId)).toEqual([]);
      expect(await page.getByRole("textbox", { name: "Message" }).inputValue()).toBe("Too short");
      expect(blocked).toEqual([]);
      expect(errors).toEqual([
        "console: Failed to load resource: the server responded with a status of 400 (Bad Request)",
      ]);
    } finally {
      await close();
    }
  });
});
