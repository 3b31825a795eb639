import { afterEach, describe, expect, test } from "bun:test";
import { FormsvcClient } from "../../src/client";
import { fixedClock } from "../../src/lib/clock";
import { personalTeamId } from "../../src/lib/rights";
import { login, PASSWORD, session, withPassword } from "../helpers/accounts";
import { launchBrowser, screenshot } from "../helpers/browser";
import { cliJsonAsync, runCliAsync, seedOwner, startTestServer, type TestServer } from "../helpers/harness";
import { until } from "../helpers/receiver";
import { freePort, startSmtpSink, type SmtpSink } from "../helpers/smtp-sink";

const DAY_MS = 24 * 60 * 60 * 1000;
const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const o of open.splice(0).reverse()) await o.close();
});

/**
 * A server of its own with a mail sink and a pinned clock, reached at its FORMSVC_PUBLIC_URL (so the
 * emailed link is the one to open), and Ada, an owner with a password and an admin key of her
 * personal team.
 */
async function setUp() {
  const smtp = await startSmtpSink();
  open.push(smtp);
  const clock = fixedClock("2026-11-20T10:00:00.000Z");
  const port = await freePort();
  const server = await startTestServer({
    config: { rateLimit: 10_000, smtpUrl: smtp.url, publicUrl: `http://127.0.0.1:${port}`, port },
    clock,
  });
  open.push(server);
  const ada = await seedOwner(server, "ada@example.com");
  await withPassword(server, "ada@example.com");
  return { smtp, clock, server, ada, team: personalTeamId(ada.ownerId) };
}

/** POST /api/v1/teams/{team}/invitations with a key or, given `cookie`, a session. */
const invite = (server: TestServer, team: string, auth: { key?: string; cookie?: string }, body: unknown) =>
  server.json(`/api/v1/teams/${team}/invitations`, {
    method: "POST",
    key: auth.key,
    headers: { "content-type": "application/json", ...(auth.cookie ? session(server, auth.cookie) : {}) },
    body: JSON.stringify(body),
  });

/** The link of the `i`-th email, and its token. */
async function linkIn(smtp: SmtpSink, i: number) {
  const mail = (await smtp.waitFor(i + 1))[i]!;
  const link = /(http:\/\/127\.0\.0\.1:\d+\/invitations\/(fsi_[A-Za-z0-9_-]+))/.exec(mail.text ?? "");
  if (!link) throw new Error(`no invitation link in ${mail.text}`);
  return { mail, link: link[1]!, token: link[2]! };
}

/** The link's page as a browser posts its form (same origin unless `origin` says otherwise). */
const postForm = (server: TestServer, link: string, form: Record<string, string>, extra: Record<string, string> = {}) =>
  fetch(link, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: server.url, ...extra },
    body: new URLSearchParams(form).toString(),
  });

/** POST /api/v1/invitations/accept as the dashboard sends it. */
const acceptJson = (server: TestServer, body: unknown, headers: Record<string, string> = {}) =>
  server.json("/api/v1/invitations/accept", {
    method: "POST",
    headers: { "content-type": "application/json", origin: server.url, ...headers },
    body: JSON.stringify(body),
  });

/** Everything accepting could change. */
const state = async (server: TestServer) => ({
  owners: await server.query("SELECT email FROM owners ORDER BY email"),
  members: await server.query("SELECT team_id, owner_id, role FROM team_members ORDER BY team_id, owner_id"),
  invitations: await server.query("SELECT id, accepted_at FROM invitations ORDER BY id"),
  sessions: await server.query("SELECT id FROM sessions ORDER BY id"),
  audit: await server.query("SELECT action FROM audit_events ORDER BY id"),
});

describe("invitations", () => {
  test("invites a person without an account as viewer: one email, a page that GET and HEAD leave alone, and a POST with a password that makes the account, the membership and a session, once", async () => {
    const { smtp, server, ada, team } = await setUp();
    const made = await invite(server, team, { key: ada.key }, { email: "Bob@Example.com ", role: "viewer" });
    expect(made.status).toBe(200);
    expect(made.body).toMatchObject({
      teamId: team,
      email: "bob@example.com",
      role: "viewer",
      invitedBy: "ada@example.com",
      smtpConfigured: true,
      createdAt: "2026-11-20T10:00:00.000Z",
      expiresAt: "2026-11-27T10:00:00.000Z",
    });

    const { mail, link, token } = await linkIn(smtp, 0);
    expect(mail.to).toMatchObject({ text: "bob@example.com" });
    expect(mail.text).toContain("ada@example.com invites you to join the team “ada@example.com” on formsvc as viewer");
    expect(link).toBe(`${server.url}/invitations/${token}`);
    // Once sent, the token is nowhere in the database: only its hash.
    await until(
      () => server.query("SELECT status FROM outbox WHERE kind = 'invitation'"),
      (rows) => rows[0]?.status === "sent",
    );
    expect(await server.tablesHolding(token)).toEqual([]);
    const listed = await server.json(`/api/v1/teams/${team}/invitations`, { key: ada.key });
    expect(listed.body).toEqual([
      {
        id: made.body.id,
        teamId: team,
        email: "bob@example.com",
        role: "viewer",
        invitedBy: "ada@example.com",
        createdAt: made.body.createdAt,
        expiresAt: made.body.expiresAt,
      },
    ]);

    // A mail scanner opens the link: nothing changes.
    const before = await state(server);
    const head = await fetch(link, { method: "HEAD" });
    expect(head.status).toBe(200);
    const page = await fetch(link);
    expect(page.status).toBe(200);
    expect(page.headers.get("referrer-policy")).toBe("same-origin");
    const html = await page.text();
    expect(html).toContain("Join ada@example.com");
    expect(html).toContain("<strong>viewer</strong>");
    expect(html).toContain("Choose a password");
    expect(await state(server)).toEqual(before);

    // Refusals the person can act on show the page again and change nothing either.
    const short = await postForm(server, link, { password: "short" });
    expect(short.status).toBe(400);
    expect(await short.text()).toContain("at least 12 characters");
    const elsewhere = await postForm(server, link, { password: PASSWORD }, { origin: "https://evil.example" });
    expect(elsewhere.status).toBe(403);
    expect(await state(server)).toEqual(before);

    const joined = await postForm(server, link, { password: PASSWORD });
    expect(joined.status).toBe(200);
    expect(await joined.text()).toContain("You joined ada@example.com");
    const cookie = joined.headers.get("set-cookie")!.split(";")[0]!;
    const me = await server.json("/api/v1/auth/me", { headers: session(server, cookie) });
    expect(me.body.email).toBe("bob@example.com");
    const bob = (await server.query("SELECT id FROM owners WHERE email = 'bob@example.com'"))[0].id;
    expect(await server.query("SELECT role FROM team_members WHERE team_id = ? AND owner_id = ?", team, bob)).toEqual([
      { role: "viewer" },
    ]);
    // Their own personal team came with the account.
    expect(await server.query("SELECT role FROM team_members WHERE team_id = ?", personalTeamId(bob))).toEqual([
      { role: "owner" },
    ]);
    expect((await login(server, "bob@example.com", PASSWORD)).status).toBe(200);
    const joinedLine = await server.query(
      "SELECT team_id, owner_id, actor_kind, actor_role, object_id FROM audit_events WHERE action = 'member.joined'",
    );
    expect(joinedLine).toEqual([
      { team_id: team, owner_id: bob, actor_kind: "session", actor_role: "viewer", object_id: bob },
    ]);
    expect((await server.json(`/api/v1/teams/${team}/invitations`, { key: ada.key })).body).toEqual([]);

    // The link works once, by the page and by the API alike.
    const after = await state(server);
    const again = await postForm(server, link, { password: PASSWORD });
    expect(again.status).toBe(400);
    expect(await again.text()).toContain("This invitation link does not work");
    const json = await acceptJson(server, { token, password: PASSWORD });
    expect([json.status, json.body.code]).toEqual([400, "INVALID_PARAMETER"]);
    expect(json.body.error).toMatch(/wrong, used or expired/);
    expect(await state(server)).toEqual(after);

    // A viewer reads the team's invitations, and invites no one.
    expect((await server.json(`/api/v1/teams/${team}/invitations`, { headers: session(server, cookie) })).status).toBe(
      200,
    );
    const refused = await invite(server, team, { cookie }, { email: "carol@example.com", role: "viewer" });
    expect([refused.status, refused.body.code]).toEqual([403, "ROLE_TOO_LOW"]);
    expect(await server.query("SELECT email FROM invitations WHERE email = 'carol@example.com'")).toEqual([]);
  });

  test("a link works for 7 days: on the last second still, after them a 400 that changes nothing", async () => {
    const { smtp, clock, server, ada, team } = await setUp();
    expect((await invite(server, team, { key: ada.key }, { email: "carol@example.com", role: "editor" })).status).toBe(
      200,
    );
    const { link, token } = await linkIn(smtp, 0);
    clock.advance(7 * DAY_MS - 1000);
    expect((await fetch(link)).status).toBe(200);
    clock.advance(1000);
    const before = await state(server);
    const page = await fetch(link);
    expect(page.status).toBe(400);
    expect(await page.text()).toContain("It is wrong, used or expired");
    const json = await acceptJson(server, { token, password: PASSWORD });
    expect([json.status, json.body.code]).toEqual([400, "INVALID_PARAMETER"]);
    expect((await postForm(server, link, { password: PASSWORD })).status).toBe(400);
    expect(await state(server)).toEqual(before);
    expect((await server.json(`/api/v1/teams/${team}/invitations`, { key: ada.key })).body).toEqual([]);
    // The lapsed row only takes space: the hourly job forgets it.
    expect(await server.query("SELECT email FROM invitations")).toEqual([{ email: "carol@example.com" }]);
    await server.jobs.run("forget-lapsed-invitations");
    expect(await server.query("SELECT email FROM invitations")).toEqual([]);
  });

  test("refuses to invite a member (409 ALREADY_MEMBER); a second invitation of a pending address replaces the first", async () => {
    const { smtp, server, ada, team } = await setUp();
    const member = await invite(server, team, { key: ada.key }, { email: "ADA@example.com", role: "viewer" });
    expect([member.status, member.body.code]).toEqual([409, "ALREADY_MEMBER"]);
    expect(await server.query("SELECT id FROM invitations")).toEqual([]);

    const first = await invite(server, team, { key: ada.key }, { email: "dan@example.com", role: "viewer" });
    const second = await invite(server, team, { key: ada.key }, { email: "dan@example.com", role: "editor" });
    expect([first.status, second.status]).toEqual([200, 200]);
    const old = await linkIn(smtp, 0);
    const fresh = await linkIn(smtp, 1);
    expect((await server.json(`/api/v1/teams/${team}/invitations`, { key: ada.key })).body).toMatchObject([
      { id: second.body.id, role: "editor" },
    ]);
    expect((await fetch(old.link)).status).toBe(400);
    const joined = await acceptJson(server, { token: fresh.token, password: PASSWORD });
    expect(joined.status).toBe(200);
    expect(joined.body).toEqual({
      teamId: team,
      teamName: "ada@example.com",
      role: "editor",
      email: "dan@example.com",
      passwordSet: true,
    });
    expect(joined.headers.get("set-cookie")).toContain("formsvc_session=fss_");
  });

  test("an admin invites up to admin, only an owner invites an owner", async () => {
    const { server, ada, team } = await setUp();
    // Ada's key is an admin key of her team; her session is its owner.
    const byAdmin = await invite(server, team, { key: ada.key }, { email: "eve@example.com", role: "owner" });
    expect([byAdmin.status, byAdmin.body.code]).toEqual([403, "ROLE_TOO_LOW"]);
    expect(await server.query("SELECT id FROM invitations")).toEqual([]);
    expect((await invite(server, team, { key: ada.key }, { email: "eve@example.com", role: "admin" })).status).toBe(
      200,
    );
    const cookie = (await login(server, "ada@example.com")).cookie!;
    const byOwner = await invite(server, team, { cookie }, { email: "eve@example.com", role: "owner" });
    expect([byOwner.status, byOwner.body.role]).toEqual([200, "owner"]);
    // Another owner's key reaches nothing of the team.
    const other = await seedOwner(server, "zed@example.com");
    const outside = await invite(server, team, { key: other.key }, { email: "eve@example.com", role: "viewer" });
    expect([outside.status, outside.body.code]).toEqual([403, "FORBIDDEN"]);
  });

  test("a person with an account accepts with their session or their password, never without", async () => {
    const { smtp, server, ada, team } = await setUp();
    await withPassword(server, "erin@example.com");
    const erin = (await login(server, "erin@example.com")).cookie!;
    expect((await invite(server, team, { key: ada.key }, { email: "erin@example.com", role: "editor" })).status).toBe(
      200,
    );
    const { link, token } = await linkIn(smtp, 0);
    const page = await (await fetch(link)).text();
    expect(page).toContain("Log in and join");
    const theirs = await (await fetch(link, { headers: { cookie: erin } })).text();
    expect(theirs).toContain("You are logged in as erin@example.com.");

    const ada_ = (await login(server, "ada@example.com")).cookie!;
    const before = await state(server);
    const none = await acceptJson(server, { token });
    expect([none.status, none.body.code]).toEqual([401, "UNAUTHORIZED"]);
    const wrong = await acceptJson(server, { token, password: "not erin's password at all" });
    expect([wrong.status, wrong.body.code]).toEqual([401, "UNAUTHORIZED"]);
    // Someone else's session is not hers.
    const asAda = await acceptJson(server, { token }, { cookie: ada_ });
    expect(asAda.status).toBe(401);
    const wrongOnPage = await postForm(server, link, { password: "not erin's password at all" });
    expect(wrongOnPage.status).toBe(401);
    expect(await wrongOnPage.text()).toContain("wrong email or password");
    expect(await state(server)).toEqual(before);

    const joined = await acceptJson(server, { token }, { cookie: erin });
    expect([joined.status, joined.body.passwordSet]).toEqual([200, false]);
    // Her session goes on: no new one.
    expect(joined.headers.get("set-cookie")).toBeNull();
    const role = await server.query(
      "SELECT m.role FROM team_members m JOIN owners o ON o.id = m.owner_id WHERE m.team_id = ? AND o.email = 'erin@example.com'",
      team,
    );
    expect(role).toEqual([{ role: "editor" }]);
  });

  test("a cancelled invitation's link stops working; cancelling it again is a 404", async () => {
    const { smtp, server, ada, team } = await setUp();
    const made = await invite(server, team, { key: ada.key }, { email: "fay@example.com", role: "viewer" });
    const { link } = await linkIn(smtp, 0);
    const cancel = () =>
      server.request(`/api/v1/teams/${team}/invitations/${made.body.id}`, { method: "DELETE", key: ada.key });
    expect((await cancel()).status).toBe(204);
    expect((await fetch(link)).status).toBe(400);
    expect((await cancel()).status).toBe(404);
    expect(await server.query("SELECT action FROM audit_events WHERE action LIKE '%invit%' ORDER BY id")).toEqual([
      { action: "member.invited" },
      { action: "invitation.cancelled" },
    ]);
  });
});

describe("the client library", () => {
  test("invites, lists, cancels, and accepts with the link's token", async () => {
    const { smtp, server, ada, team } = await setUp();
    const client = new FormsvcClient({ baseUrl: `${server.url}/api/v1`, apiKey: ada.key, fetch: server.fetch });
    const made = await client.inviteMember(team, { email: "kim@example.com", role: "viewer" });
    const gone = await client.inviteMember(team, { email: "lou@example.com", role: "editor" });
    expect((await client.listInvitations(team)).map((i) => i.email)).toEqual(["kim@example.com", "lou@example.com"]);
    await client.cancelInvitation(team, gone.id);
    expect((await client.listInvitations(team)).map((i) => i.id)).toEqual([made.id]);
    const { token } = await linkIn(smtp, 0);
    // The dashboard calls from the server's own page: the client sends what the page would.
    const page = new FormsvcClient({
      baseUrl: `${server.url}/api/v1`,
      fetch: (url, init) => server.fetch(url, { ...init, headers: { ...init?.headers, origin: server.url } }),
    });
    expect(await page.acceptInvitation({ token, password: PASSWORD })).toEqual({
      teamId: team,
      teamName: "ada@example.com",
      role: "viewer",
      email: "kim@example.com",
      passwordSet: true,
    });
    const refused = await page.acceptInvitation({ token, password: PASSWORD }).catch((e) => e);
    expect([refused.status, refused.code]).toEqual([400, "INVALID_PARAMETER"]);
  });
});

describe("formsvc teams invite", () => {
  test("queues the email as the API does, or with --print-link prints the link and emails nothing", async () => {
    const { server, team } = await setUp();
    const env = { FORMSVC_PUBLIC_URL: server.url };
    const printed = await cliJsonAsync(
      ["teams", "invite", team, "Grace@example.com", "--role", "editor", "--print-link"],
      { db: server.db, env },
    );
    expect(printed).toMatchObject({ teamId: team, email: "grace@example.com", role: "editor", invitedBy: "cli" });
    expect(printed.link).toMatch(new RegExp(`^${server.url}/invitations/fsi_[A-Za-z0-9_-]+$`));
    expect(await server.query("SELECT recipient FROM outbox WHERE kind = 'invitation'")).toEqual([]);
    const token = printed.link.split("/").pop();
    const joined = await acceptJson(server, { token, password: PASSWORD });
    expect([joined.status, joined.body.role]).toEqual([200, "editor"]);

    const queued = await runCliAsync(["teams", "invite", team, "hal@example.com", "--role", "viewer"], {
      db: server.db,
      env,
    });
    expect(queued.code).toBe(0);
    expect(queued.stdout).toMatch(/invitation: +inv_/);
    // The command's own environment has no SMTP server: it says so, and how to do without.
    expect(queued.stdout).toContain("no SMTP server is set (FORMSVC_SMTP_URL)");
    expect(queued.stdout).toContain("--print-link");
    expect(await server.query("SELECT recipient FROM outbox WHERE kind = 'invitation'")).toEqual([
      { recipient: "hal@example.com" },
    ]);

    const badRole = await runCliAsync(["teams", "invite", team, "ivy@example.com", "--role", "boss"], {
      db: server.db,
      env,
    });
    expect(badRole.code).not.toBe(0);
    expect(badRole.stderr).toContain("--role must be one of viewer, editor, admin, owner");
    const noTeam = await runCliAsync(["teams", "invite", "tm_none", "ivy@example.com", "--role", "viewer"], {
      db: server.db,
      env,
    });
    expect(noTeam.code).not.toBe(0);
    expect(noTeam.stderr).toContain("no team with id tm_none");
    expect(await server.query("SELECT email FROM invitations WHERE email = 'ivy@example.com'")).toEqual([]);
  });
});

describe("the invitation page in a browser", () => {
  test("a person without an account chooses a password and lands in the team, logged in", async () => {
    const { smtp, server, ada, team } = await setUp();
    const browser = await launchBrowser();
    open.push(browser);
    expect((await invite(server, team, { key: ada.key }, { email: "jo@example.com", role: "editor" })).status).toBe(
      200,
    );
    const { link } = await linkIn(smtp, 0);
    const { page, errors } = await browser.newPage({ locale: "en-GB" });
    await page.goto(link);
    await page.getByRole("heading", { name: "Join ada@example.com" }).waitFor();
    await page.getByLabel("Choose a password").fill(PASSWORD);
    await screenshot(page, "invitation");
    await page.getByRole("button", { name: "Create my account and join" }).click();
    await page.getByRole("heading", { name: "You joined ada@example.com" }).waitFor();
    await screenshot(page, "invitation-accepted");
    expect(errors).toEqual([]);
    const cookies = await page.context().cookies();
    expect(cookies.map((c) => c.name)).toContain("formsvc_session");
    const role = await server.query(
      "SELECT m.role FROM team_members m JOIN owners o ON o.id = m.owner_id WHERE m.team_id = ? AND o.email = 'jo@example.com'",
      team,
    );
    expect(role).toEqual([{ role: "editor" }]);
  });
});
