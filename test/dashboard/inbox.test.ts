import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { personalTeamId } from "../../src/lib/rights";
import { joinTeam, withPassword } from "../helpers/accounts";
import { launchBrowser, type TestBrowser } from "../helpers/browser";
import { logIn, movableClock, saveScreenshot, watchConsole } from "../helpers/dashboard";
import { seedForm, seedOwner, startTestServer, type Owner, type TestServer } from "../helpers/harness";

const OWNER = "olivia@example.com";
const EDITOR = "ed@example.com";
const VIEWER = "vic@example.com";

const clock = movableClock();
let server: TestServer;
let browser: TestBrowser;
let owner: Owner;

beforeAll(async () => {
  [server, browser] = await Promise.all([
    startTestServer({ clock, config: { rateLimit: 1_000_000 } }),
    launchBrowser(),
  ]);
  owner = await seedOwner(server, OWNER, { name: "Contact", formType: "contact" });
  const editor = await seedOwner(server, EDITOR, { name: "Ed's own" });
  await withPassword(server, OWNER);
  await withPassword(server, EDITOR);
  await joinTeam(server, personalTeamId(owner.ownerId), editor.ownerId, "editor");
  const viewer = await seedOwner(server, VIEWER, { name: "Vic's own" });
  await withPassword(server, VIEWER);
  await joinTeam(server, personalTeamId(owner.ownerId), viewer.ownerId, "viewer");
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** A new form of Olivia's with a submission from each name, a minute apart, the last one newest; their ids newest first. */
async function formWith(name: string, senders: string[]) {
  const form = await seedForm(server, OWNER, { name, formType: "contact" });
  const ids: string[] = [];
  const now = Date.now();
  for (const [i, who] of senders.entries()) {
    clock.at(now - (senders.length - i) * 60_000);
    const res = await server.submit(owner.key, form.id, {
      name: who,
      email: `${who.split(" ")[0]!.toLowerCase()}@example.com`,
      message: `Message number ${i} from ${who}`,
    });
    expect(res.status).toBe(200);
    ids.push(res.body.submissionId);
  }
  clock.at(null);
  return { formId: form.id as string, ids: ids.reverse() };
}

const stateOf = async (id: string | undefined) =>
  (await server.query("SELECT state FROM submissions WHERE id = ?", id ?? null))[0]?.state as string | undefined;
const unreadOf = async (formId: string) => (await server.send("GET", `/forms/${formId}`, owner.key)).body.unread;
const rows = (page: Page) => page.locator(".submissions-table tbody tr");
const open = (phone = false) =>
  browser.newPage({
    locale: "en-GB",
    viewport: phone ? { width: 390, height: 844 } : { width: 1280, height: 900 },
    isMobile: phone,
    hasTouch: phone,
  });

describe("the dashboard's inbox", () => {
  test("a team works its inbox to zero with the keyboard alone: j/k move, e marks done, the unread counts follow", async () => {
    const { formId, ids } = await formWith("Support", ["Ada Lovelace", "Grace Hopper", "Alan Turing"]);
    const opened = await open();
    const { page } = opened;
    const console = watchConsole(page);
    try {
      await logIn(page, server.url, OWNER);
      const badge = page.getByRole("row").filter({ hasText: "Support" }).getByTestId("unread");
      expect(await badge.innerText()).toBe("3 unread");
      await saveScreenshot(page, "inbox-forms-unread", false);
      await badge.click();
      await rows(page).first().waitFor();
      expect(await rows(page).count()).toBe(3);
      // Unread rows say so, to eyes and to screen readers.
      expect(await page.locator(".submissions-table tbody tr.unread").count()).toBe(3);
      expect(await rows(page).first().getByRole("button").innerText()).toContain("Unread");

      // j takes the keyboard into the list at the top, then j and k move it.
      await page.keyboard.press("j");
      await page.locator("tr.cursor").filter({ hasText: "Alan Turing" }).waitFor();
      await page.keyboard.press("j");
      await page.locator("tr.cursor").filter({ hasText: "Grace Hopper" }).waitFor();
      expect(await page.evaluate(() => document.activeElement?.closest("tr")?.classList.contains("cursor"))).toBe(true);
      await page.keyboard.press("k");
      await page.locator("tr.cursor").filter({ hasText: "Alan Turing" }).waitFor();
      await saveScreenshot(page, "inbox-desktop-cursor", false);

      // e marks done: the row leaves the work queue, and the next takes the cursor.
      for (const [left, next] of [
        [2, "Grace Hopper"],
        [1, "Ada Lovelace"],
      ] as const) {
        await page.keyboard.press("e");
        await page.getByText(/^Marked done/).waitFor();
        await page.waitForFunction((n) => document.querySelectorAll(".submissions-table tbody tr").length === n, left);
        await page.locator("tr.cursor").filter({ hasText: next }).waitFor();
      }
      await page.keyboard.press("e");
      await page.getByRole("heading", { name: "All done" }).waitFor();
      for (const id of ids) expect(await stateOf(id)).toBe("done");
      expect(await unreadOf(formId)).toBe(0);
      // The form's unread count over the folders went with them.
      await page.waitForFunction(() => !document.querySelector(".segment .count-badge"));

      // Done ones are one choice away, no longer unread.
      await page.getByLabel("State").selectOption("done");
      await page.waitForURL(/state=done/);
      await rows(page).nth(2).waitFor();
      expect(await page.locator(".submissions-table tbody tr.unread").count()).toBe(0);

      await page.goto(`${server.url}/dashboard#/forms`);
      await page.getByRole("row").filter({ hasText: "Support" }).waitFor();
      expect(await page.getByRole("row").filter({ hasText: "Support" }).getByTestId("unread").count()).toBe(0);
      expect(console.unexpected("/api/v1/auth/me")).toEqual([]);
    } finally {
      await opened.close();
    }
  });

  test("# deletes only after a clear confirmation; keys do nothing while typing; ? lists them; / searches", async () => {
    const { formId, ids } = await formWith("Keys", ["Ada Lovelace", "Grace Hopper"]);
    const opened = await open();
    const { page } = opened;
    try {
      await logIn(page, server.url, OWNER, undefined, `#/forms/${formId}/submissions`);
      await rows(page).first().waitFor();
      await page.keyboard.press("j");
      await page.keyboard.press("#");
      const dialog = page.getByRole("dialog", { name: "Delete this submission?" });
      await dialog.waitFor();
      expect(await dialog.innerText()).toContain("Grace Hopper");
      // Escape (or Cancel) keeps it.
      await page.keyboard.press("Escape");
      await dialog.waitFor({ state: "detached" });
      expect(await server.query("SELECT id FROM submissions WHERE id = ?", ids[0]!)).toHaveLength(1);

      await page.keyboard.press("#");
      await dialog.getByRole("button", { name: "Delete for good" }).click();
      await page.getByText("Submission deleted").waitFor();
      expect(await server.query("SELECT id FROM submissions WHERE id = ?", ids[0]!)).toHaveLength(0);
      await page.waitForFunction(() => document.querySelectorAll(".submissions-table tbody tr").length === 1);

      // / goes to the search box; what is typed there is text, not a command.
      await page.keyboard.press("/");
      expect(await page.evaluate(() => document.activeElement?.id)).toBe("inbox-search");
      await page.keyboard.type("e#x");
      expect(await page.locator("#inbox-search").inputValue()).toBe("e#x");
      expect(await stateOf(ids[1])).toBe("new");
      expect(await page.getByRole("dialog").count()).toBe(0);
      await page.keyboard.press("Escape");

      await page.keyboard.press("?");
      const help = page.getByRole("dialog", { name: "Keyboard shortcuts" });
      await help.waitFor();
      expect(await help.innerText()).toContain("mark it done");
      await page.keyboard.press("Escape");
      await help.waitFor({ state: "detached" });

      // o opens the cursor row, with what can be done to it.
      await page.keyboard.press("j");
      await page.keyboard.press("o");
      await page.getByRole("dialog").getByText("Ada Lovelace").first().waitFor();
      await page.getByRole("dialog").getByRole("heading", { name: "Work on it" }).waitFor();
    } finally {
      await opened.close();
    }
  });

  test("selects many (x, a checkbox, shift-click, all on the page) and sets state, assignee and tags, marks spam and deletes them at once; filters find them", async () => {
    const { formId, ids } = await formWith("Bulk", ["A One", "B Two", "C Three", "D Four", "E Five"]);
    const opened = await open();
    const { page } = opened;
    try {
      await logIn(page, server.url, OWNER, undefined, `#/forms/${formId}/submissions`);
      await rows(page).first().waitFor();
      // x selects the cursor row; a shift-click selects a range.
      await page.keyboard.press("j");
      await page.keyboard.press("x");
      await page.getByText("1 selected").waitFor();
      await rows(page).nth(1).getByRole("checkbox").click();
      await rows(page)
        .nth(3)
        .getByRole("checkbox")
        .click({ modifiers: ["Shift"] });
      await page.getByText("4 selected").waitFor();
      await saveScreenshot(page, "inbox-desktop-bulk", false);

      await page.getByLabel("Assign the selected").selectOption(EDITOR);
      await page.getByText(`Assigned to ${EDITOR}: 4 submissions changed`).waitFor();
      await rows(page).nth(0).getByRole("checkbox").click();
      await rows(page).nth(1).getByRole("checkbox").click();
      await page.getByLabel("Tag for the selected").fill("vip");
      await page.getByRole("button", { name: "Add tag" }).click();
      await page.getByText("Tagged vip: 2 submissions changed").waitFor();
      await rows(page).nth(0).getByRole("checkbox").click();
      await page.getByLabel("Set the state of the selected").selectOption("open");
      await page.getByText("Marked open: 1 submission changed").waitFor();
      const stored = await server.query(
        "SELECT s.id, s.state, o.email AS assignee FROM submissions s LEFT JOIN owners o ON o.id = s.assignee WHERE s.form_id = ? ORDER BY s.id",
        formId,
      );
      const byId = Object.fromEntries(stored.map((r: any) => [r.id, r]));
      expect(ids.map((id) => byId[id].assignee)).toEqual([EDITOR, EDITOR, EDITOR, EDITOR, null]);
      expect(ids.map((id) => byId[id].state)).toEqual(["open", "new", "new", "new", "new"]);
      const tagged = await server.query("SELECT submission_id FROM submission_tags WHERE tag = 'vip'");
      expect(tagged.map((r: any) => r.submission_id).sort()).toEqual([ids[0], ids[1]].sort());
      // The rows show it all.
      const work = rows(page).nth(0).locator("td[data-label=State]");
      expect(await work.locator(".badge").innerText()).toBe("Open");
      expect(await work.locator(".assignee").textContent()).toBe(`assigned to ${EDITOR}`);
      expect(await work.locator(".tags").innerText()).toBe("vip");

      // Filters: by tag, by assignee (me, nobody), by state; each in the address.
      await page.getByLabel("Tag", { exact: true }).fill("vip");
      await page.getByLabel("Tag", { exact: true }).press("Enter");
      await page.waitForURL(/tag=vip/);
      await page.waitForFunction(() => document.querySelectorAll(".submissions-table tbody tr").length === 2);
      await page.getByLabel("Tag", { exact: true }).fill("");
      await page.getByLabel("Tag", { exact: true }).press("Enter");
      await page.getByLabel("Assignee").selectOption("none");
      await page.waitForURL(/assignee=none/);
      await page.waitForFunction(() => document.querySelectorAll(".submissions-table tbody tr").length === 1);
      expect(await rows(page).first().innerText()).toContain("A One");
      await page.getByLabel("Assignee").selectOption("me");
      await page.getByRole("heading", { name: "Nothing here" }).waitFor();
      await page.getByLabel("Assignee").selectOption(EDITOR);
      await page.waitForFunction(() => document.querySelectorAll(".submissions-table tbody tr").length === 4);
      await page.getByLabel("State").selectOption("open");
      await page.waitForFunction(() => document.querySelectorAll(".submissions-table tbody tr").length === 1);
      expect(await rows(page).first().innerText()).toContain("E Five");

      // All on the page, to spam; then from the spam folder, deleted after a confirmation.
      await page.goto(`${server.url}/dashboard#/forms/${formId}/submissions?state=all`);
      await page.waitForFunction(() => document.querySelectorAll(".submissions-table tbody tr").length === 5);
      await page.getByLabel("Select every submission on this page").check();
      await page.getByText("5 selected").waitFor();
      await page.getByRole("button", { name: "Mark as spam" }).click();
      await page.getByText("Moved to spam: 5 submissions changed").waitFor();
      expect((await server.send("GET", `/forms/${formId}`, owner.key)).body.submissionCount).toBe(0);
      await page.getByRole("link", { name: "Spam", exact: true }).click();
      await page.waitForFunction(() => document.querySelectorAll(".submissions-table tbody tr").length === 5);
      await page.getByLabel("Select every submission on this page").check();
      await page.getByRole("button", { name: "Delete…" }).click();
      const confirm = page.getByRole("dialog", { name: "Delete 5 submissions?" });
      await confirm.getByRole("button", { name: "Delete for good" }).click();
      await page.getByText("5 submissions deleted").waitFor();
      expect(await server.query("SELECT id FROM submissions WHERE form_id = ?", formId)).toEqual([]);
    } finally {
      await opened.close();
    }
  });

  test("a submission's page changes its state, assignee and tags, and keeps the team's notes (each deleted by its author only)", async () => {
    const { formId, ids } = await formWith("Notes", ["Ada Lovelace"]);
    const id = ids[0]!;
    // A note of the editor's: Olivia sees it, and cannot delete it.
    const { login, session } = await import("../helpers/accounts");
    const edCookie = session(server, (await login(server, EDITOR)).cookie!, server.url);
    const theirs = await server.json(`/api/v1/forms/${formId}/submissions/${id}/notes`, {
      method: "POST",
      headers: { ...edCookie, "content-type": "application/json" },
      body: JSON.stringify({ text: "Called her back, waiting for the order number" }),
    });
    expect(theirs.status).toBe(200);
    for (const phone of [false, true]) {
      const opened = await open(phone);
      const { page } = opened;
      const console = watchConsole(page);
      try {
        await logIn(page, server.url, OWNER, undefined, `#/forms/${formId}/submissions/${id}`);
        await page.getByRole("heading", { name: "Work on it" }).waitFor();
        await page.getByText("Called her back").waitFor();
        const edNote = page.locator(".note-item").filter({ hasText: "Called her back" });
        expect(await edNote.innerText()).toContain(EDITOR);
        expect(await edNote.getByRole("button", { name: "Delete note" }).count()).toBe(0);
        if (phone) {
          await saveScreenshot(page, "inbox-submission-phone");
          expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
          continue;
        }

        await page.getByLabel("State").selectOption("open");
        await page.getByText("Marked open").waitFor();
        await page.getByLabel("Assignee").selectOption(EDITOR);
        await page.getByText(`Assigned to ${EDITOR}`).waitFor();
        await page.getByLabel("New tag").fill("billing");
        await page.getByRole("button", { name: "Add tag" }).click();
        await page.getByText("Tagged billing").waitFor();
        await page.getByLabel("New tag").fill("urgent");
        await page.getByLabel("New tag").press("Enter");
        await page.getByText("Tagged urgent").waitFor();
        await page.getByRole("button", { name: "Remove the tag billing" }).click();
        await page.getByText("Took the tag billing off").waitFor();

        await page.getByLabel("Add a note").fill("Sent the invoice again");
        await page.getByRole("button", { name: "Add note" }).click();
        const mine = page.locator(".note-item").filter({ hasText: "Sent the invoice again" });
        await mine.waitFor();
        expect(await mine.innerText()).toContain(OWNER);
        await saveScreenshot(page, "inbox-submission-desktop");

        const stored = (
          await server.query(
            "SELECT s.state, o.email AS assignee, s.note_count FROM submissions s LEFT JOIN owners o ON o.id = s.assignee WHERE s.id = ?",
            id,
          )
        )[0];
        expect(stored).toEqual({ state: "open", assignee: EDITOR, note_count: 2 });
        expect(await server.query("SELECT tag FROM submission_tags WHERE submission_id = ?", id)).toEqual([
          { tag: "urgent" },
        ]);

        await mine.getByRole("button", { name: "Delete note" }).click();
        await page.getByText("Note deleted").waitFor();
        await mine.waitFor({ state: "detached" });
        const notes = await server.query("SELECT text FROM submission_notes WHERE submission_id = ?", id);
        expect(notes).toEqual([{ text: "Called her back, waiting for the order number" }]);

        // The list shows what the page changed.
        await page.goto(`${server.url}/dashboard#/forms/${formId}/submissions`);
        const row = rows(page).first();
        await row.waitFor();
        expect(await row.locator("td[data-label=State] .note-count").innerText()).toBe("1 note");
        expect(await row.locator("td[data-label=State] .tags").innerText()).toBe("urgent");
        expect(console.unexpected("/api/v1/auth/me")).toEqual([]);
      } finally {
        await opened.close();
      }
    }
  });

  test("typing “muller” finds last March's message from Müller, done long ago", async () => {
    const { formId, ids } = await formWith("Search", ["Ada Lovelace", "Grace Hopper"]);
    const march = new Date(Date.UTC(new Date().getUTCFullYear() - 1, 2, 14, 10)).getTime();
    clock.at(march);
    const sent = await server.submit(owner.key, formId, {
      name: "Jürgen Müller",
      email: "jm@example.de",
      message: "Bitte rufen Sie mich zurück",
    });
    clock.at(null);
    expect(sent.status).toBe(200);
    const mueller = sent.body.submissionId as string;
    const done = await server.send("PATCH", `/forms/${formId}/submissions/${mueller}`, owner.key, { state: "done" });
    expect(done.status).toBe(200);
    const opened = await open();
    const { page } = opened;
    try {
      await logIn(page, server.url, OWNER, undefined, `#/forms/${formId}/submissions`);
      await rows(page).nth(1).waitFor();
      // Done: not in the work queue.
      expect(await page.locator(".submissions-table").innerText()).not.toContain("Müller");
      await page.keyboard.press("/");
      await page.keyboard.type("muller");
      await page.keyboard.press("Enter");
      await page.waitForURL(/q=muller/);
      await page.waitForFunction(() => document.querySelectorAll(".submissions-table tbody tr").length === 1);
      const row = rows(page).first();
      expect(await row.innerText()).toContain("Jürgen Müller");
      expect(await row.locator("mark").first().innerText()).toBe("Müller");
      expect(ids).not.toContain(mueller);
      await saveScreenshot(page, "inbox-search-muller", false);
      // Emptying the box is the list again.
      await page.locator("#inbox-search").fill("");
      await page.waitForURL((url) => !url.hash.includes("q="));
      await page.waitForFunction(() => document.querySelectorAll(".submissions-table tbody tr").length === 2);
    } finally {
      await opened.close();
    }
  });

  test("a viewer reads the inbox and its notes, and is offered no change (e does nothing)", async () => {
    const { formId, ids } = await formWith("Viewer", ["Ada Lovelace"]);
    const opened = await open();
    const { page } = opened;
    try {
      await logIn(page, server.url, VIEWER);
      await page.locator(".team-switch > summary").click();
      await page.getByRole("button", { name: new RegExp(`^${OWNER}`) }).click();
      await page.goto(`${server.url}/dashboard#/forms/${formId}/submissions`);
      await rows(page).first().waitFor();
      await page.keyboard.press("j");
      await page.keyboard.press("e");
      await page.keyboard.press("#");
      expect(await page.getByRole("dialog").count()).toBe(0);
      await rows(page).first().getByRole("checkbox").check();
      await page.getByText("Only editors, admins and owners can change submissions").waitFor();
      expect(await stateOf(ids[0])).toBe("new");
      await page.goto(`${server.url}/dashboard#/forms/${formId}/submissions/${ids[0]}`);
      await page.getByRole("heading", { name: "Work on it" }).waitFor();
      expect(await page.getByLabel("State").isDisabled()).toBe(true);
      expect(await page.getByLabel("Add a note").count()).toBe(0);
    } finally {
      await opened.close();
    }
  });

  test("on a phone the inbox is a list of cards that fits the screen, with its filters and selection", async () => {
    const { formId } = await formWith("Phone", ["Ada Lovelace", "Grace Hopper", "Alan Turing"]);
    const opened = await open(true);
    const { page } = opened;
    try {
      await logIn(page, server.url, OWNER, undefined, `#/forms/${formId}/submissions`);
      await rows(page).first().waitFor();
      await rows(page).nth(1).getByRole("checkbox").check();
      await page.getByText("1 selected").waitFor();
      await saveScreenshot(page, "inbox-phone");
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    } finally {
      await opened.close();
    }
  });
});
