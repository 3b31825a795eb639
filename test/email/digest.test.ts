import { describe, expect, test } from "bun:test";
import { Cron } from "croner";
import { createJobs } from "../../src/jobs";
import { fixedClock } from "../../src/lib/clock";
import { OPERATOR } from "../../src/lib/principal";
import { onPostgres } from "../helpers/engine";
import { cleanupAfterEach } from "../helpers/fixture";
import { seedForm, seedOwner, startTestServer, type TestServer } from "../helpers/harness";
import { startSmtpSink, type SmtpSink } from "../helpers/smtp-sink";

const defer = cleanupAfterEach();
const PUBLIC = "https://forms.example.com";
const JOB = "send-daily-digests";
const link = (formId: string, id: string) => `${PUBLIC}/dashboard/forms/${formId}/submissions/${id}`;

async function setup() {
  const smtp = await startSmtpSink();
  defer(() => smtp.close());
  const clock = fixedClock("2026-03-01T09:00:00Z");
  const s = await startTestServer({ clock, config: { rateLimit: 10_000, smtpUrl: smtp.url, publicUrl: PUBLIC } });
  defer(() => s.close());
  const email = { emailEnabled: true, developerNotifications: true, honeypotField: "website" };
  const daily = await seedOwner(s, "owner@example.com", { name: "Daily <b>", ...email, notifyMode: "daily" });
  const each = await seedForm(s, "owner@example.com", { name: "Each", ...email });
  const quiet = await seedForm(s, "owner@example.com", { name: "Quiet", ...email, notifyMode: "daily" });
  return { smtp, s, clock, key: daily.key, daily: daily.formId, each: each.id, quiet: quiet.id };
}

/** Submits at `at` on the pinned clock; the submission's id. */
async function submitAt(
  s: TestServer,
  clock: ReturnType<typeof fixedClock>,
  key: string,
  formId: string,
  at: string,
  data: Record<string, unknown> = { message: `at ${at}` },
): Promise<string> {
  clock.set(at);
  const r = await s.submit(key, formId, data);
  expect(r.status).toBe(200);
  return r.body.submissionId;
}

/** Waits until the outbox holds nothing pending, so every queued email has reached the sink. */
async function drained(s: TestServer): Promise<void> {
  await s.services.outbox.drain();
  const [row] = await s.query("SELECT count(*) AS n FROM outbox WHERE status IN ('pending', 'sending')");
  expect(row.n).toBe(0);
}

const subjects = (smtp: SmtpSink) => smtp.messages.map((m) => m.subject);

describe("the daily digest", () => {
  test("runs at 08:00 UTC", () => {
    const job = createJobs({ backups: {} } as never).find((j) => j.name === JOB)!;
    const next = new Cron(job.schedule, { utcOffset: 0 }).nextRun(new Date("2026-03-02T07:59:59Z"));
    expect(next!.toISOString()).toBe("2026-03-02T08:00:00.000Z");
  });

  test("lists the previous UTC day's non-spam submissions of a daily form with dashboard links; each-mode forms keep their emails; a quiet day sends nothing", async () => {
    const { smtp, s, clock, key, daily, each, quiet } = await setup();
    const first = await submitAt(s, clock, key, daily, "2026-03-01T00:00:00.000Z");
    const last = await submitAt(s, clock, key, daily, "2026-03-01T23:59:59.999Z");
    const cases = [
      ["spam", daily, "2026-03-01T12:00:00.000Z", { website: "http://spam.example" }],
      ["the day before", daily, "2026-02-28T23:59:59.999Z", {}],
      ["the day after", daily, "2026-03-02T00:00:00.000Z", {}],
      ["a quiet daily form's spam", quiet, "2026-03-01T12:00:00.000Z", { website: "http://spam.example" }],
    ] as const;
    const unlisted = [];
    for (const [, formId, at, data] of cases) unlisted.push(await submitAt(s, clock, key, formId, at, data));
    await submitAt(s, clock, key, each, "2026-03-01T15:00:00.000Z", { message: "each" });
    await drained(s);
    // The each-mode form's one email; none for the daily form's submissions.
    expect(subjects(smtp)).toEqual(["New submission: Each"]);
    expect(await s.query("SELECT count(*) AS n FROM outbox WHERE form_id IN (?, ?)", daily, quiet)).toEqual([{ n: 0 }]);

    clock.set("2026-03-02T08:00:00Z");
    await s.jobs.run(JOB);
    await drained(s);
    expect(subjects(smtp)).toEqual(["New submission: Each", "Daily <b>: 2 new submissions on 2026-03-01"]);
    const digest = smtp.messages[1]!;
    // A row of its own kind, which `outbox list --kind digest` finds.
    expect(await s.query("SELECT kind FROM outbox WHERE form_id = ?", daily)).toEqual([{ kind: "digest" }]);
    expect((digest.to as { text: string }).text).toBe("owner@example.com");
    expect(digest.text).toContain(`Sun, 1 Mar 2026, 00:00 UTC  ${first}  ${link(daily, first)}`);
    expect(digest.text).toContain(`Sun, 1 Mar 2026, 23:59 UTC  ${last}  ${link(daily, last)}`);
    for (const id of unlisted) expect(digest.text).not.toContain(id);
    expect(digest.html).toContain(`<a href="${link(daily, first)}">${first}</a>`);
    expect(digest.html).toContain("Daily &lt;b&gt;");
    expect(digest.html).not.toContain("Daily <b>");

    // The day after had one submission of the daily form; the day after that none.
    clock.set("2026-03-04T08:00:00Z");
    await s.jobs.run(JOB);
    await drained(s);
    expect(smtp.messages).toHaveLength(2);
  });

  test("shows each listed submission's fields by label or readable name, values cut at 200 characters, newest first, at most 100 and how many more, with a link to the form's inbox", async () => {
    const { smtp, s, clock, key, daily } = await setup();
    await s.send("PATCH", `/forms/${daily}`, key, {
      fields: [{ name: "message", type: "text", label: "Your <message>" }],
      allowExtraFields: true,
    });
    const ids: string[] = [];
    // 102 inbox submissions a minute apart, the newest with a long value and markup; one spam among them.
    for (let i = 0; i < 102; i++) {
      const at = new Date(Date.parse("2026-03-01T10:00:00.000Z") + i * 60_000).toISOString();
      const data: Record<string, unknown> = { message: `hello number ${i}`, inquiry_type: i % 2 ? "sales" : "support" };
      if (i === 101) Object.assign(data, { comment: "x".repeat(300), html: "<b>bold</b> & co" });
      ids.push(await submitAt(s, clock, key, daily, at, data));
    }
    const spam = await submitAt(s, clock, key, daily, "2026-03-01T11:00:30.000Z", {
      message: "buy pills",
      website: "http://spam.example",
    });
    clock.set("2026-03-02T08:00:00Z");
    await s.jobs.run(JOB);
    await drained(s);
    const [digest] = smtp.messages;
    expect(digest!.subject).toBe("Daily <b>: 102 new submissions on 2026-03-01");
    const text = digest!.text!;
    const html = digest!.html as string;
    expect(text).toContain("Your <message>: hello number 101");
    expect(text).toContain("Inquiry type: sales");
    expect(text).toContain(`Comment: ${"x".repeat(200)}…`);
    expect(text).not.toContain("x".repeat(201));
    // Newest first: the 100 newest listed, the two oldest told as a count.
    const shown = ids.filter((id) => text.includes(id));
    expect(shown).toEqual(ids.slice(2));
    expect(shown.map((id) => text.indexOf(id))).toEqual(shown.map((id) => text.indexOf(id)).sort((a, b) => b - a));
    expect(text).not.toContain("hello number 1\n");
    expect(text).toContain("… and 2 more");
    expect(text).not.toContain(spam);
    expect(text).not.toContain("buy pills");
    const inbox = `${PUBLIC}/dashboard/forms/${daily}/submissions`;
    expect(text).toContain(inbox);
    expect(html).toContain(`<a href="${inbox}">`);
    expect(html).toContain("Your &lt;message&gt;");
    expect(html).toContain("&lt;b&gt;bold&lt;/b&gt; &amp; co");
    expect(html).not.toContain("<b>bold</b>");
    expect(html).not.toContain("x".repeat(201));
  });

  test("a digest goes to the form's confirmed recipients (and the team's owner, who has not chosen otherwise), under its sender name", async () => {
    const { smtp, s, clock, key, daily } = await setup();
    await s.send("PATCH", `/forms/${daily}`, key, { recipients: ["team@example.com"], fromName: "Acme forms" });
    const [confirmation] = await smtp.waitFor(1);
    const token = new RegExp(`${PUBLIC}/confirm/([A-Za-z0-9_-]{43})`).exec(confirmation!.text!)![1];
    expect((await fetch(`${s.url}/confirm/${token}`, { method: "POST" })).status).toBe(200);
    await submitAt(s, clock, key, daily, "2026-03-01T10:00:00.000Z");
    clock.set("2026-03-02T08:00:00Z");
    await s.jobs.run(JOB);
    await drained(s);
    const to = (m: (typeof smtp.messages)[number]) => (m.to as { text: string }).text;
    // Two digests, sent side by side: in either order.
    expect(smtp.messages.slice(1).map(to).sort()).toEqual(["owner@example.com", "team@example.com"]);
    const digest = smtp.messages.slice(1).find((m) => to(m) === "team@example.com")!;
    expect(digest.from!.value[0]!.name).toBe("Acme forms");
    expect(digest.subject).toBe("Daily <b>: 1 new submission on 2026-03-01");
  });

  test("a form and day get one digest however often the job runs, together or one after another", async () => {
    const { smtp, s, clock, key, daily } = await setup();
    await submitAt(s, clock, key, daily, "2026-03-01T10:00:00.000Z");
    clock.set("2026-03-02T08:00:00Z");
    await Promise.all([s.jobs.run(JOB), s.jobs.run(JOB)]);
    await s.jobs.run(JOB);
    // Past the scheduler's own guard: the (form, day) mark alone refuses a second digest.
    expect(await s.services.digests.queueDigests(OPERATOR)).toBe(0);
    await drained(s);
    expect(smtp.messages).toHaveLength(1);
    expect(await s.query("SELECT day, submissions FROM notification_digests WHERE form_id = ?", daily)).toEqual([
      { day: "2026-03-01", submissions: 1 },
    ]);
  });

  test.if(onPostgres)("two instances on one PostgreSQL database running the job at once send one digest", async () => {
    const { smtp, s, clock, key, daily } = await setup();
    const second = await startTestServer({
      db: s.db,
      clock,
      config: { rateLimit: 10_000, smtpUrl: smtp.url, publicUrl: PUBLIC },
    });
    defer(() => second.close());
    await submitAt(s, clock, key, daily, "2026-03-01T10:00:00.000Z");
    clock.set("2026-03-02T08:00:00Z");
    const queued = await Promise.all([
      s.services.digests.queueDigests(OPERATOR),
      second.services.digests.queueDigests(OPERATOR),
    ]);
    expect(queued.sort()).toEqual([0, 1]);
    // Either instance may be the one sending it: wait for the message, then for both outboxes to be empty.
    await smtp.waitFor(1);
    for (let tries = 0; ; tries++) {
      await Promise.all([s.services.outbox.drain(), second.services.outbox.drain()]);
      const [row] = await s.query("SELECT count(*) AS n FROM outbox WHERE status IN ('pending', 'sending')");
      if (Number(row.n) === 0) break;
      if (tries === 50) throw new Error(`${row.n} outbox row(s) still unsent`);
      await Bun.sleep(100);
    }
    expect(smtp.messages).toHaveLength(1);
  });
});
