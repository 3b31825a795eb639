import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { joinTeam, login, session, withPassword } from "../helpers/accounts";
import { launchBrowser, type TestBrowser } from "../helpers/browser";
import { logIn, PASSWORD, saveScreenshot, watchConsole } from "../helpers/dashboard";
import { seedOwner, startTestServer, type Owner, type TestServer } from "../helpers/harness";

const OWNER = "olivia@example.com";
const VIEWER = "victor@example.com";

let server: TestServer;
let browser: TestBrowser;
let viewer: Owner;
let shop: { teamId: string; formId: string };

beforeAll(async () => {
  [server, browser] = await Promise.all([startTestServer(), launchBrowser()]);
  await seedOwner(server, OWNER, { name: "Contact", formType: "contact" });
  viewer = await seedOwner(server, VIEWER, { name: "Victor's own" });
  shop = await seedShop();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** A team "Shop" of Olivia's, Victor its viewer, with a form that has one submission. */
async function seedShop() {
  await withPassword(server, OWNER);
  await withPassword(server, VIEWER);
  const headers = { ...session(server, (await login(server, OWNER)).cookie!), "content-type": "application/json" };
  const post = async (path: string, body: unknown) => {
    const res = await server.json(`/api/v1${path}`, { method: "POST", headers, body: JSON.stringify(body) });
    expect(res.status, `POST ${path}`).toBeLessThan(300);
    return res.body;
  };
  const shop = await post("/teams", { name: "Shop" });
  // Joining is by an emailed invitation (its own tests); here Victor is made a member as the store keeps one.
  await joinTeam(server, shop.id, viewer.ownerId, "viewer");
  const form = await post("/forms", {
    name: "Shop orders",
    teamId: shop.id,
    emailSettings: { enabled: true, developerNotificationsEnabled: true },
  });
  const key = await post("/keys", { name: "shop site", teamId: shop.id });
  const sent = await server.submit(key.key, form.id, { name: "Ada", email: "ada@example.com", message: "Two, please" });
  expect(sent.status).toBe(200);
  return { teamId: shop.id as string, formId: form.id as string };
}

const VIEWS = [
  { width: 1280, height: 900, colorScheme: "light" },
  { width: 390, height: 844, colorScheme: "dark" },
  { width: 1280, height: 900, colorScheme: "dark" },
  { width: 390, height: 844, colorScheme: "light" },
] as const;

const open = (view: (typeof VIEWS)[number] = VIEWS[0]) =>
  browser.newPage({
    locale: "en-GB",
    colorScheme: view.colorScheme,
    viewport: { width: view.width, height: view.height },
    isMobile: view.width < 500,
    hasTouch: view.width < 500,
  });

const switchTeam = async (page: Page, name: string) => {
  await page.locator(".team-switch > summary").click();
  await page.getByRole("button", { name: new RegExp(`^${name}`) }).click();
};

const fitsWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

describe("the dashboard's teams", () => {
  test("an owner switches to a team, sees only its forms, makes one there and manages its members", async () => {
    const opened = await open();
    const { page } = opened;
    const console = watchConsole(page);
    try {
      await logIn(page, server.url, OWNER, PASSWORD, "#/forms");
      // The personal team first: its form, not the team's.
      await page.getByRole("link", { name: "Contact" }).waitFor();
      expect(await page.getByRole("link", { name: "Shop orders" }).count()).toBe(0);

      await page.locator(".team-switch > summary").click();
      expect(await page.locator(".team-option-name").allTextContents()).toEqual([`${OWNER} · personal`, "Shop"]);
      expect(await page.locator(".team-option .badge-role").allTextContents()).toEqual(["owner", "owner"]);
      await saveScreenshot(page, "team-switcher-desktop-light", false);
      await page.getByRole("button", { name: /^Shop/ }).click();
      await page.getByRole("link", { name: "Shop orders" }).waitFor();
      expect(await page.getByRole("link", { name: "Contact" }).count()).toBe(0);

      // Remembered: a new visit works in the same team.
      await page.reload();
      await page.getByRole("link", { name: "Shop orders" }).waitFor();
      expect(await page.locator(".team-switch-name").textContent()).toBe("Shop");

      // A new form is made in the team worked in.
      await page.getByRole("button", { name: "New form" }).click();
      await page.getByRole("dialog").getByText("It belongs to the team Shop.").waitFor();
      await page.getByLabel("Name").fill("Returns");
      await page.getByRole("button", { name: "Create form" }).click();
      await page.getByRole("heading", { name: "Returns" }).waitFor();
      expect(await server.query("SELECT team_id FROM forms WHERE name = ?", "Returns")).toEqual([
        { team_id: shop.teamId },
      ]);

      await page.getByRole("link", { name: "Team", exact: true }).click();
      await page.getByRole("heading", { name: "Shop" }).waitFor();
      const victorRole = page.getByLabel(`Role of ${VIEWER}`);
      expect(await victorRole.inputValue()).toBe("viewer");
      // The last owner cannot be demoted: her picker is off, and says why.
      expect(await page.getByLabel(`Role of ${OWNER}`).isDisabled()).toBe(true);
      await page.getByText("The last owner keeps the role").waitFor();

      await victorRole.selectOption("editor");
      await page.getByText(`${VIEWER} is now an editor`).waitFor();
      const role = () =>
        server.query("SELECT role FROM team_members WHERE team_id = ? AND owner_id = ?", shop.teamId, viewer.ownerId);
      expect(await role()).toEqual([{ role: "editor" }]);
      await victorRole.selectOption("viewer");
      await page.getByText(`${VIEWER} is now a viewer`).waitFor();
      expect(await role()).toEqual([{ role: "viewer" }]);

      // No SMTP server on this one: the page says invitations wait for it.
      await page.getByTestId("no-smtp").getByText("invitations are queued but not sent").waitFor();
      await page.getByLabel("Email").fill("nina@example.com");
      await page.locator('select[name="role"]').selectOption("editor");
      await page.getByRole("button", { name: "Send invitation" }).click();
      const pending = page.getByRole("list", { name: "Pending invitations" });
      await pending.getByText("nina@example.com").waitFor();
      expect(await server.query("SELECT email, role FROM invitations WHERE team_id = ?", shop.teamId)).toEqual([
        { email: "nina@example.com", role: "editor" },
      ]);

      await page.getByLabel("Name", { exact: true }).fill("Shop EU");
      await page.getByRole("button", { name: "Rename" }).click();
      await page.getByRole("heading", { name: "Shop EU" }).waitFor();
      expect(await server.query("SELECT name FROM teams WHERE id = ?", shop.teamId)).toEqual([{ name: "Shop EU" }]);
      expect(await page.locator(".team-switch-name").textContent()).toBe("Shop EU");

      for (const view of VIEWS) {
        await page.setViewportSize({ width: view.width, height: view.height });
        await page.emulateMedia({ colorScheme: view.colorScheme });
        expect(await fitsWidth(page), `the team page fits ${view.width} px`).toBe(true);
        const name = `team-page-${view.width}-${view.colorScheme}`;
        await saveScreenshot(page, name);
        await page.locator(".team-switch > summary").click();
        await saveScreenshot(page, `team-switcher-${view.width}-${view.colorScheme}`, false);
        await page.keyboard.press("Escape");
      }
      await page.setViewportSize({ width: 1280, height: 900 });

      await page.getByRole("button", { name: "Cancel the invitation of nina@example.com" }).click();
      await page.getByRole("dialog").getByRole("button", { name: "Cancel invitation" }).click();
      await page.getByText("No invitation is waiting for an answer.").waitFor();
      expect(await server.query("SELECT id FROM invitations WHERE team_id = ?", shop.teamId)).toEqual([]);
      expect(console.unexpected("/api/v1/auth/me")).toEqual([]);
    } finally {
      await opened.close();
    }
  }, 120_000);

  test("a viewer reads the team's inbox, chooses their own notifications, and is offered nothing that changes the team's data", async () => {
    const opened = await open(VIEWS[1]);
    const { page } = opened;
    const console = watchConsole(page);
    try {
      await logIn(page, server.url, VIEWER, PASSWORD, "#/forms");
      await switchTeam(page, "Shop EU");
      await page.getByRole("link", { name: "Shop orders" }).waitFor();
      expect(await page.getByRole("button", { name: "New form" }).count()).toBe(0);
      await page.getByText("Only editors, admins and owners can create forms; you are a viewer.").waitFor();

      await page.goto(`${server.url}/dashboard#/forms/${shop.formId}/submissions`);
      await page.locator(".submissions-table tbody tr").first().getByRole("button").click();
      const dialog = page.getByRole("dialog");
      await dialog.getByText("Two, please").waitFor();
      expect(await dialog.getByRole("button", { name: /Delete|spam/ }).count()).toBe(0);
      await dialog.getByText("Only editors, admins and owners can mark or delete submissions").waitFor();
      expect(await page.getByRole("link", { name: "Export CSV" }).count()).toBe(0);
      await saveScreenshot(page, "team-viewer-submission-390-dark", false);
      await page.keyboard.press("Escape");

      await page.goto(`${server.url}/dashboard#/forms/${shop.formId}/settings`);
      const toggle = page.getByRole("checkbox", { name: "Email me new submissions" });
      // A viewer's default is off; the choice is theirs alone, and saved as it is switched.
      expect(await toggle.isChecked()).toBe(false);
      expect(await toggle.isDisabled()).toBe(false);
      await toggle.check();
      await page.getByText("You will get an email for each new submission").waitFor();
      expect(
        await server.query(
          "SELECT notify FROM member_notifications WHERE form_id = ? AND owner_id = ?",
          shop.formId,
          viewer.ownerId,
        ),
      ).toEqual([{ notify: 1 }]);
      expect(await page.getByRole("button", { name: /^Save/ }).count()).toBe(0);
      expect(await page.getByRole("button", { name: /Delete/ }).count()).toBe(0);
      expect(await page.locator('input[name="name"]').isDisabled()).toBe(true);
      await page.getByText("Only admins and owners can see and change webhooks; you are a viewer.").waitFor();
      await page.getByTestId("member-notification").scrollIntoViewIfNeeded();
      await saveScreenshot(page, "team-viewer-settings-390-dark", false);

      await page.getByRole("link", { name: "Team", exact: true }).click();
      await page.getByRole("heading", { name: "Shop EU" }).waitFor();
      expect(await page.locator(".role-picker").count()).toBe(0);
      expect(await page.getByRole("button", { name: /^Remove|^Cancel|Send invitation|Rename/ }).count()).toBe(0);
      await page
        .getByText("Only admins and owners can change roles, invite or remove members; you are a viewer.")
        .waitFor();
      await page.getByRole("button", { name: "Leave team" }).waitFor();
      expect(await fitsWidth(page)).toBe(true);
      await saveScreenshot(page, "team-page-viewer-390-dark");
      // Nothing the page offered was refused: no 403 on the way.
      expect(console.unexpected("/api/v1/auth/me")).toEqual([]);
    } finally {
      await opened.close();
    }
  }, 120_000);
});
