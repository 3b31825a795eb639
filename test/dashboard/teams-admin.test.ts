import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { joinTeam, login, session, withPassword } from "../helpers/accounts";
import { launchBrowser, type TestBrowser } from "../helpers/browser";
import { logIn, PASSWORD, saveScreenshot, watchConsole } from "../helpers/dashboard";
import { seedOwner, startTestServer, type Owner, type TestServer } from "../helpers/harness";
import { personalTeamId } from "../../src/lib/rights";

// Keys with a role, moving a form between teams, and the team's audit log, as admins and owners see them.
const OWNER = "olivia@example.com";
const EDITOR = "edgar@example.com";

let server: TestServer;
let browser: TestBrowser;
let owner: Owner;
let editor: Owner;
let shop: { teamId: string; moving: string; staying: string };

beforeAll(async () => {
  [server, browser] = await Promise.all([startTestServer(), launchBrowser()]);
  owner = await seedOwner(server, OWNER, { name: "Contact", formType: "contact" });
  editor = await seedOwner(server, EDITOR, { name: "Edgar's own" });
  shop = await seedShop();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** A team "Shop" of Olivia's with two forms, Edgar its editor (and owner of his own personal team). */
async function seedShop() {
  await withPassword(server, OWNER);
  await withPassword(server, EDITOR);
  const headers = { ...session(server, (await login(server, OWNER)).cookie!), "content-type": "application/json" };
  const post = async (path: string, body: unknown) => {
    const res = await server.json(`/api/v1${path}`, { method: "POST", headers, body: JSON.stringify(body) });
    expect(res.status, `POST ${path}`).toBeLessThan(300);
    return res.body;
  };
  const team = await post("/teams", { name: "Shop" });
  // Joining is by an emailed invitation (its own tests); here Edgar is made a member as the store keeps one.
  await joinTeam(server, team.id, editor.ownerId, "editor");
  const moving = await post("/forms", { name: "Shop orders", teamId: team.id });
  const staying = await post("/forms", { name: "Shop returns", teamId: team.id });
  return { teamId: team.id as string, moving: moving.id as string, staying: staying.id as string };
}

const VIEWS = [
  { width: 1280, height: 900, colorScheme: "light" },
  { width: 390, height: 844, colorScheme: "dark" },
  { width: 1280, height: 900, colorScheme: "dark" },
  { width: 390, height: 844, colorScheme: "light" },
] as const;

const open = () => browser.newPage({ locale: "en-GB", colorScheme: "light", viewport: { width: 1280, height: 900 } });

const switchTeam = async (page: Page, name: string) => {
  await page.locator(".team-switch > summary").click();
  await page.getByRole("button", { name: new RegExp(`^${name}`) }).click();
};

const fitsWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

/** Screenshots of the page as it is in each view; `fullPage` off for a dialog. */
async function inEachView(page: Page, name: string, fullPage = true) {
  for (const view of VIEWS) {
    await page.setViewportSize({ width: view.width, height: view.height });
    await page.emulateMedia({ colorScheme: view.colorScheme });
    expect(await fitsWidth(page), `${name} fits ${view.width} px`).toBe(true);
    await saveScreenshot(page, `${name}-${view.width}-${view.colorScheme}`, fullPage);
  }
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.emulateMedia({ colorScheme: "light" });
}

describe("the dashboard's team administration", () => {
  test("an owner makes a viewer key, moves a form to another team and reads the move in the audit log", async () => {
    const opened = await open();
    const { page } = opened;
    const console = watchConsole(page);
    try {
      await logIn(page, server.url, OWNER, PASSWORD, "#/forms");
      await switchTeam(page, "Shop");
      await page.getByRole("link", { name: "Shop orders" }).waitFor();

      // A key's role: admin unless another is picked, with a line of what it may do.
      await page.goto(`${server.url}/dashboard#/keys`);
      await page.getByRole("button", { name: "New key" }).click();
      const dialog = page.getByRole("dialog");
      const role = dialog.getByLabel("Role", { exact: true });
      expect(await role.inputValue()).toBe("admin");
      await dialog.getByText("Also manages keys and webhooks, and deletes forms.").waitFor();
      await dialog.getByLabel("Name").fill("reporting");
      await role.selectOption("viewer");
      await dialog.getByText("Reads forms, submissions and analytics; changes nothing.").waitFor();
      await inEachView(page, "keys-role-picker", false);
      await dialog.getByRole("button", { name: "Create key" }).click();
      await page.getByTestId("new-key").waitFor();
      expect(await server.query("SELECT team_id, role FROM api_keys WHERE name = ?", "reporting")).toEqual([
        { team_id: shop.teamId, role: "viewer" },
      ]);
      await page.getByRole("button", { name: "Done" }).click();
      const row = page.locator(".keys-table tbody tr", { hasText: "reporting" });
      expect(await row.locator('td[data-label="Role"]').textContent()).toBe("viewer");
      await inEachView(page, "keys-with-roles");

      // Moving a form: to her personal team, the only other one where she may.
      await page.goto(`${server.url}/dashboard#/forms/${shop.moving}/settings`);
      await page.getByText("The keys of Shop stop reaching it.").waitFor();
      await page.getByRole("button", { name: "Move to team…" }).click();
      const move = page.getByRole("dialog");
      // The dialog lists the teams once it has read them: wait for the first before counting.
      await move.getByRole("radio").first().waitFor();
      expect(await move.getByRole("radio").count()).toBe(1);
      expect(await move.getByRole("radio", { name: new RegExp(OWNER) }).isChecked()).toBe(true);
      await move.getByText("The API keys of Shop stop reaching this form").waitFor();
      await inEachView(page, "move-form-dialog", false);
      await move.getByRole("button", { name: `Move to ${OWNER}` }).click();
      await page.getByText(`Shop orders moved to ${OWNER}`).waitFor();
      const personal = personalTeamId(owner.ownerId);
      expect(await server.query("SELECT team_id FROM forms WHERE id = ?", shop.moving)).toEqual([
        { team_id: personal },
      ]);
      // The dashboard follows the form: it works in the destination, the form open there.
      expect(await page.locator(".team-switch-name").textContent()).toBe(OWNER);
      await page.getByRole("heading", { name: "Shop orders" }).waitFor();
      expect(new URL(page.url()).hash).toBe(`#/forms/${shop.moving}`);

      // The audit log of the team it left lists the move, by whom and with what role.
      await switchTeam(page, "Shop");
      await page.getByRole("link", { name: "Team", exact: true }).click();
      await page.getByRole("link", { name: "Audit log" }).click();
      await page.getByRole("heading", { name: "Audit log" }).waitFor();
      const moved = page.locator(".audit-table tbody tr", { hasText: "moved a form" });
      await moved.waitFor();
      expect(await moved.locator('td[data-label="Actor"]').textContent()).toBe(OWNER);
      expect(await moved.locator('td[data-label="Role"]').textContent()).toBe("owner");
      expect(await moved.locator('td[data-label="Action"]').textContent()).toBe(`moved a formfrom Shop to ${OWNER}`);
      expect(await moved.locator('td[data-label="Object"]').textContent()).toBe(shop.moving);
      const created = page.locator(".audit-table tbody tr", { hasText: "created a key" });
      expect(await created.locator('td[data-label="Action"]').textContent()).toBe("created a keyreporting · viewer");
      await inEachView(page, "team-audit");
      // Nothing the pages offered was refused on the way.
      expect(console.unexpected("/api/v1/auth/me")).toEqual([]);
    } finally {
      await opened.close();
    }
  }, 120_000);

  test("an editor is offered neither the move nor the audit log", async () => {
    const opened = await open();
    const { page } = opened;
    const console = watchConsole(page);
    try {
      await logIn(page, server.url, EDITOR, PASSWORD, "#/forms");
      await switchTeam(page, "Shop");
      await page.getByRole("link", { name: "Shop returns" }).waitFor();
      await page.goto(`${server.url}/dashboard#/forms/${shop.staying}/settings`);
      await page.getByRole("heading", { name: "Shop returns" }).waitFor();
      await page.getByText("Only admins and owners can see and change webhooks; you are an editor.").waitFor();
      expect(await page.getByRole("button", { name: /Move to team/ }).count()).toBe(0);

      await page.getByRole("link", { name: "Team", exact: true }).click();
      await page.getByRole("heading", { name: "Shop" }).waitFor();
      expect(await page.getByRole("link", { name: "Audit log" }).count()).toBe(0);
      // The address typed anyway: the page says who may read it, and asks the server nothing.
      await page.goto(`${server.url}/dashboard#/team/audit`);
      await page.getByText("Only admins and owners can read the team's audit log; you are an editor.").waitFor();
      expect(console.unexpected("/api/v1/auth/me")).toEqual([]);
    } finally {
      await opened.close();
    }
  }, 120_000);
});
