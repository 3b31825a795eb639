import { describe, expect, test } from "bun:test";
import { fixedClock } from "../../src/lib/clock";
import { joinTeam, login, withPassword } from "../helpers/accounts";
import { cleanupAfterEach } from "../helpers/fixture";
import { seedOwner, startTestServer, type TestServer } from "../helpers/harness";
import { startSmtpSink, type SmtpSink } from "../helpers/smtp-sink";

const defer = cleanupAfterEach();
const PUBLIC = "https://forms.example.com";
const ROLES = ["admin", "editor", "viewer"] as const;

/** A member's session: calls of the API with its cookie, from the server's own page. */
type Member = (method: string, path: string, body?: unknown) => Promise<{ status: number; body: any }>;

async function sessionOf(s: TestServer, email: string): Promise<Member> {
  await withPassword(s, email);
  const { cookie } = await login(s, email, undefined, { origin: PUBLIC });
  return async (method, path, body) => {
    const { status, body: answer } = await s.json(`/api/v1${path}`, {
      method,
      headers: {
        cookie: cookie!,
        origin: PUBLIC,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status, body: answer };
  };
}

/**
 * A notifying form in the owner's personal team, whose admin, editor and viewer are added to the
 * team by SQL (the members API is another part's); the admin reads times in Berlin.
 */
async function setup(form: { notifyMode?: "daily" } = {}) {
  const smtp = await startSmtpSink();
  defer(() => smtp.close());
  const clock = fixedClock("2026-03-01T09:00:00Z");
  const s = await startTestServer({ clock, config: { rateLimit: 10_000, smtpUrl: smtp.url, publicUrl: PUBLIC } });
  defer(() => s.close());
  const o = await seedOwner(s, "owner@example.com", {
    name: "Contact",
    emailEnabled: true,
    developerNotifications: true,
    ...form,
  });
  const teamId = (await s.send("GET", `/forms/${o.formId}`, o.key)).body.teamId as string;
  const sessions = { owner: await sessionOf(s, "owner@example.com") } as Record<
    "owner" | (typeof ROLES)[number],
    Member
  >;
  for (const role of ROLES) {
    const email = `${role}@example.com`;
    sessions[role] = await sessionOf(s, email);
    const [{ id }] = await s.query("SELECT id FROM owners WHERE email = ?", email);
    await joinTeam(s, teamId, id, role, new Date("2026-03-01T09:00:00.000Z"));
  }
  const zone = await sessions.admin("PATCH", "/auth/me", { timeZone: "Europe/Berlin" });
  expect(zone.status).toBe(200);
  return { smtp, s, clock, o, teamId, ...sessions };
}

/** Submits, waits until every queued email has reached the sink, and answers the submission's emails by address. */
async function notified(s: TestServer, smtp: SmtpSink, o: { key: string; formId: string }, message: string) {
  const r = await s.submit(o.key, o.formId, { email: "ada@example.com", message });
  expect(r.status).toBe(200);
  await drained(s);
  const mails = smtp.messages.filter((m) => m.text?.includes(message));
  return Object.fromEntries(mails.map((m) => [(m.to as { text: string }).text, m.text!]));
}

async function drained(s: TestServer): Promise<void> {
  await s.services.outbox.drain();
  const [row] = await s.query("SELECT count(*) AS n FROM outbox WHERE status IN ('pending', 'sending')");
  expect(row.n).toBe(0);
}

const mine = (formId: string) => `/forms/${formId}/notifications/me`;

describe("each member's choice of the owner notification", () => {
  test("by default a submission mails the team's owners and admins, each in their own time zone, not its editors or viewers", async () => {
    const { smtp, s, o } = await setup();
    const mails = await notified(s, smtp, o, "first");
    expect(Object.keys(mails).sort()).toEqual(["admin@example.com", "owner@example.com"]);
    expect(mails["owner@example.com"]).toContain("Received Sun, 1 Mar 2026, 09:00 UTC");
    expect(mails["admin@example.com"]).toMatch(/Received Sun, 1 Mar 2026, 10:00 (CET|GMT\+1)/);
  });

  test("the editor turns it on and gets the next; the owner turns it off and stops getting it; a viewer may choose too", async () => {
    const { smtp, s, o, owner, editor, viewer } = await setup();
    expect(await editor("GET", mine(o.formId))).toEqual({ status: 200, body: { notify: false, default: false } });
    expect(await owner("GET", mine(o.formId))).toEqual({ status: 200, body: { notify: true, default: true } });

    expect(await editor("PUT", mine(o.formId), { notify: true })).toEqual({
      status: 200,
      body: { notify: true, default: false },
    });
    expect(await owner("PUT", mine(o.formId), { notify: false })).toEqual({
      status: 200,
      body: { notify: false, default: true },
    });
    // A viewer needs only to read the form: they choose, and choose back.
    expect((await viewer("PUT", mine(o.formId), { notify: true })).body).toEqual({ notify: true, default: false });
    expect((await viewer("PUT", mine(o.formId), { notify: false })).body).toEqual({ notify: false, default: false });
    expect(await editor("GET", mine(o.formId))).toEqual({ status: 200, body: { notify: true, default: false } });

    const mails = await notified(s, smtp, o, "second");
    expect(Object.keys(mails).sort()).toEqual(["admin@example.com", "editor@example.com"]);
    const stored = await s.query(
      "SELECT o.email, n.notify FROM member_notifications n JOIN owners o ON o.id = n.owner_id WHERE n.form_id = ? ORDER BY o.email",
      o.formId,
    );
    expect(stored).toEqual([
      { email: "editor@example.com", notify: 1 },
      { email: "owner@example.com", notify: 0 },
      { email: "viewer@example.com", notify: 0 },
    ]);
  });

  test("the form's recipients still get theirs, and an address both a recipient and a member gets one email, in the member's zone", async () => {
    const { smtp, s, o, owner } = await setup();
    // The editor, who has not chosen, is listed: a recipient gets it whatever their choice as a member.
    const listed = await s.send("PATCH", `/forms/${o.formId}`, o.key, {
      recipients: ["team@example.com", "admin@example.com", "editor@example.com"],
    });
    expect(listed.status).toBe(200);
    for (const m of await smtp.waitFor(3)) {
      const token = new RegExp(`${PUBLIC}/confirm/([A-Za-z0-9_-]{43})`).exec(m.text!)![1];
      expect((await fetch(`${s.url}/confirm/${token}`, { method: "POST" })).status).toBe(200);
    }
    expect((await owner("PUT", mine(o.formId), { notify: false })).status).toBe(200);

    const mails = await notified(s, smtp, o, "third");
    expect(Object.keys(mails).sort()).toEqual(["admin@example.com", "editor@example.com", "team@example.com"]);
    expect(smtp.messages.filter((m) => m.text?.includes("third"))).toHaveLength(3);
    expect(mails["admin@example.com"]).toMatch(/Received Sun, 1 Mar 2026, 10:00 (CET|GMT\+1)/);
    // One who is no member reads the form's creator's zone.
    expect(mails["team@example.com"]).toContain("Received Sun, 1 Mar 2026, 09:00 UTC");
  });

  test("the daily digest goes to the same people", async () => {
    const { smtp, s, clock, o, editor } = await setup({ notifyMode: "daily" });
    expect((await editor("PUT", mine(o.formId), { notify: true })).status).toBe(200);
    expect((await s.submit(o.key, o.formId, { message: "daily" })).status).toBe(200);
    clock.set("2026-03-02T08:00:00Z");
    await s.jobs.run("send-daily-digests");
    await drained(s);
    const digests = smtp.messages.filter((m) => m.subject === "Contact: 1 new submission on 2026-03-01");
    const by = Object.fromEntries(digests.map((m) => [(m.to as { text: string }).text, m.text!]));
    expect(Object.keys(by).sort()).toEqual(["admin@example.com", "editor@example.com", "owner@example.com"]);
    expect(by["owner@example.com"]).toContain("Sun, 1 Mar 2026, 09:00 UTC");
    expect(by["admin@example.com"]).toMatch(/Sun, 1 Mar 2026, 10:00 (CET|GMT\+1)/);
  });

  test("is a session's own: an API key gets a 401, another team's member a 403, an unknown form a 404, a bad body a 400, and nothing is kept", async () => {
    const { s, o, editor } = await setup();
    const outsider = await sessionOf(s, "outsider@example.com");
    expect((await s.send("GET", mine(o.formId), o.key)).status).toBe(401);
    expect((await s.send("PUT", mine(o.formId), o.key, { notify: true })).status).toBe(401);
    const refused = await outsider("PUT", mine(o.formId), { notify: true });
    expect([refused.status, refused.body.code]).toEqual([403, "FORBIDDEN"]);
    expect((await outsider("GET", mine(o.formId))).status).toBe(403);
    expect((await editor("PUT", mine("frm_unknown"), { notify: true })).status).toBe(404);
    for (const body of [{ notify: "yes" }, {}, { notify: true, email: "x@example.com" }]) {
      const bad = await editor("PUT", mine(o.formId), body);
      expect([bad.status, bad.body.code]).toEqual([400, "INVALID_PARAMETER"]);
    }
    expect(await s.query("SELECT * FROM member_notifications")).toEqual([]);
  });
});
