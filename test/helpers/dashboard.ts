import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import type { Clock } from "../../src/lib/clock";
import type { FieldRule } from "../../src/modules/forms/model";
import { seedForm, seedOwner, type TestServer } from "./harness";

/** A clock at real time, that seeding can send into the past for a while (the browser's "today" is real time). */
export function movableClock(): Clock & { at(t: number | null): void } {
  let pinned: number | null = null;
  return { now: () => pinned ?? Date.now(), at: (t) => void (pinned = t) };
}

const AGENTS = [
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1",
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 14.1; rv:132.0) Gecko/20100101 Firefox/132.0",
  "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36",
  "Mozilla/5.0 (iPad; CPU OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1",
];
// Addresses in the United Kingdom, the United States, Germany, France and Japan (geoip-country's data).
const ADDRESSES = ["81.2.69.142", "8.8.8.8", "5.9.0.1", "2.2.2.2", "1.0.16.1"];
const NAMES = [
  "Ada Lovelace",
  "Grace Hopper",
  "Alan Turing",
  "Katherine Johnson",
  "Edsger Dijkstra",
  "Barbara Liskov",
  "Donald Knuth",
  "Frances Allen",
];
const MESSAGES = [
  "Hello! Could you tell me more about your pricing for teams?",
  "The form on your site works nicely, thanks.",
  "I would like to book a demo next week.",
  "Is there an API for exports?",
  "Please call me back about the order.",
];

/**
 * An owner with two forms: "Contact" with `count` submissions spread over the last 40 days (several
 * browsers, devices and countries; the server needs trustProxy for the countries), and an empty
 * "Waitlist". Submissions go through the real submit endpoint, each at its own moment of the clock.
 */
export async function seedDashboard(
  server: TestServer,
  clock: ReturnType<typeof movableClock>,
  count = 60,
  email = "owner@example.com",
) {
  const { key, formId, ownerId } = await seedOwner(server, email, {
    name: "Contact",
    formType: "contact",
    description: "The contact form on the home page",
  });
  const waitlist = await seedForm(server, email, { name: "Waitlist", formType: "waitlist", usersJoinedEnabled: true });
  const now = Date.now();
  for (let i = 0; i < count; i++) {
    // Older ones thinner, recent ones denser; the same every run.
    const daysAgo = Math.floor(((((i * 7919) % 1000) / 1000) * 40 * ((i % 3) + 1)) / 3);
    clock.at(now - daysAgo * 86_400_000 - ((i * 3607) % 36_000) * 1000);
    const name = NAMES[i % NAMES.length]!;
    const res = await server.request("/api/v1/forms/submit", {
      method: "POST",
      key,
      headers: {
        "content-type": "application/json",
        "user-agent": AGENTS[i % AGENTS.length]!,
        "x-forwarded-for": ADDRESSES[(i * 3) % ADDRESSES.length]!,
      },
      body: JSON.stringify({
        formId,
        data: {
          name,
          email: `${name.split(" ")[0]!.toLowerCase()}${i}@example.com`,
          message: MESSAGES[i % MESSAGES.length],
        },
      }),
    });
    if (res.status !== 200) throw new Error(`seeding a submission: ${res.status} ${await res.text()}`);
  }
  clock.at(null);
  return { key, formId, ownerId, waitlistId: waitlist.id, email };
}

const MAIN = join(import.meta.dir, "../../src/main.ts");
export const SCREENSHOTS = join(import.meta.dir, "../../test-artifacts/screenshots");

/** A password good enough for the accounts rules (12 characters or more). */
export const PASSWORD = "correct horse battery staple";

/** `formsvc owners set-password EMAIL --password-stdin`, as an operator runs it (`command`: the CLI to run, default this checkout's). */
export async function setPassword(
  db: string,
  email: string,
  password = PASSWORD,
  command: string[] = [process.execPath, MAIN],
) {
  const proc = Bun.spawn([...command, "owners", "set-password", email, "--password-stdin"], {
    env: { ...(process.env as Record<string, string>), FORMSVC_DB: db, FORMSVC_LOG_LEVEL: "silent" },
    stdin: new TextEncoder().encode(`${password}\n`),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`owners set-password exited ${code}: ${stderr}`);
}

/** Saves a full-page PNG under test-artifacts/screenshots/ (git-ignored; CI keeps the folder). */
export async function saveScreenshot(page: Page, name: string, fullPage = true): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const path = join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path, fullPage });
  return path;
}

/**
 * Console errors and uncaught exceptions of a page, with the address each came from, so a test can
 * allow exactly the failures it expects (the 401 of GET /auth/me before login is how the app learns
 * that nobody is logged in; Chromium logs every 4xx answer as a console error).
 */
export function watchConsole(page: Page) {
  const seen: { text: string; url: string }[] = [];
  page.on("console", (msg) => msg.type() === "error" && seen.push({ text: msg.text(), url: msg.location().url }));
  page.on("pageerror", (e) => seen.push({ text: `uncaught: ${e.message}`, url: "" }));
  return {
    /** Everything but the 401s of the given API paths (e.g. "/api/v1/auth/me"). */
    unexpected(...allowed401: string[]) {
      return seen
        .filter(
          (e) =>
            !(
              /status of 401/.test(e.text) &&
              allowed401.some((p) => new URL(e.url || "http://x/").pathname.startsWith(p))
            ),
        )
        .map((e) => `${e.text} (${e.url})`);
    },
  };
}

/** Opens the dashboard and logs in through its form; resolves on the forms list. */
export async function logIn(page: Page, base: string, email: string, password = PASSWORD, hash = "") {
  for (let attempt = 1; ; attempt++) {
    await page.goto(`${base}/dashboard${hash}`);
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(password);
    await page.getByRole("button", { name: "Log in" }).click();
    try {
      await page.getByRole("button", { name: "Log out" }).waitFor({ timeout: attempt === 1 ? 5_000 : 10_000 });
      return;
    } catch (e) {
      // Once in a long run, the page's login request never reached the in-process server (which
      // answered other requests meanwhile), after other browser tests in the same process; seen in
      // no other setting. A second login from a fresh load is what a person would do; twice is a failure.
      if (attempt === 2) throw e;
    }
  }
}

/** Fills the settings page's field editor, empty at first, with `rules`, as a person would: one "Add a field" each, then its controls. */
export async function fillFieldEditor(page: Page, rules: FieldRule[]): Promise<void> {
  const control = (i: number, prop: string) => page.locator(`.settings [name="fields.${i}.${prop}"]`);
  for (const [i, rule] of rules.entries()) {
    await page.getByRole("button", { name: "Add a field" }).click();
    await control(i, "type").selectOption(rule.type);
    await control(i, "name").fill(rule.name);
    if (rule.label !== undefined) await control(i, "label").fill(rule.label);
    if (rule.required) await control(i, "required").check();
    if (rule.placeholder !== undefined) await control(i, "placeholder").fill(rule.placeholder);
    if (rule.options) await control(i, "options").fill(rule.options.join("\n"));
    if (rule.multiple) await control(i, "multiple").check();
    for (const k of ["minLength", "maxLength", "min", "max"] as const)
      if (rule[k] !== undefined) await control(i, k).fill(String(rule[k]));
    const cond = rule.showIf;
    if (cond) {
      await control(i, "showIf.field").selectOption(cond.field);
      const test = cond.in ? "in" : cond.notEmpty ? "notEmpty" : "equals";
      await control(i, "showIf.test").selectOption(test);
      if (test !== "notEmpty") await control(i, "showIf.value").fill(cond.in ? cond.in.join("\n") : cond.equals!);
    }
  }
}

/** A section of the settings page, by its title ("Email"), with its own Save. */
export const settingsSection = (page: Page, title: string) =>
  page.locator("form.settings-section").filter({ has: page.locator("legend", { hasText: title }) });

/** Clicks a settings section's Save and resolves on the PATCH's answer (the status, and the body sent). */
export async function saveSection(page: Page, title: string): Promise<{ status: number; sent: unknown }> {
  const answered = page.waitForResponse((r) => r.request().method() === "PATCH" && /\/forms\/[^/]+$/.test(r.url()));
  await page.getByRole("button", { name: `Save ${title} settings` }).click();
  const res = await answered;
  return { status: res.status(), sent: res.request().postDataJSON() };
}

/** Saves every settings section with unsaved edits, top to bottom, each expected to succeed. */
export async function saveUnsavedSections(page: Page): Promise<void> {
  for (const title of await page.locator("fieldset[data-unsaved] > legend").allInnerTexts()) {
    const name = title.replace("Unsaved changes", "").trim();
    const { status } = await saveSection(page, name);
    if (status !== 200) throw new Error(`saving the ${name} settings answered ${status}`);
  }
}
