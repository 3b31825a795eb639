import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createLogger } from "../../src/lib/log";
import { launchBrowser, screenshot, type TestBrowser } from "../helpers/browser";
import { seedForm, startTestServer, type TestServer } from "../helpers/harness";
import { example, fieldsOf, SITE_THANKS, startSite, storedRows, type Site } from "./site";

// A form copied from a Formspree site with only its host changed: examples/dropin.html as shipped,
// on another loopback origin than formsvc, against a form with every setting at its default.
const OWNER = "dropin-site@example.com";

let server: TestServer;
let browser: TestBrowser;
let site: Site;
const logged: { method: string; path: string; status: number }[] = [];

beforeAll(async () => {
  const log = createLogger("info", (line) => {
    const entry = JSON.parse(line);
    if (entry.msg === "request") logged.push({ method: entry.method, path: entry.path, status: entry.status });
  });
  [server, browser] = await Promise.all([startTestServer({ log }), launchBrowser()]);
  site = startSite();
});
afterAll(async () => {
  await browser?.close();
  site?.stop();
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
}

/** Serves examples/`file` for a new form with default settings at `path` on the site; returns the form's id and the page's URL. */
async function servedForm(file: string, path: string, { inForm = "", inHead = "" }: Served = {}) {
  const formId = (await seedForm(server, OWNER)).id;
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
          page.waitForURL(`${server.url}/f/${formId}/thanks?back=${encodeURIComponent(back(url))}`),
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
