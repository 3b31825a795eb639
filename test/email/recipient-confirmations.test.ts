import { describe, expect, test } from "bun:test";
import { FormsvcClient, FormsvcError } from "../../src/client";
import { fixedClock } from "../../src/lib/clock";
import { cleanupAfterEach } from "../helpers/fixture";
import { runCliAsync, seedOwner, startTestServer, type TestServer } from "../helpers/harness";
import { startSmtpSink, type SmtpSink } from "../helpers/smtp-sink";

const defer = cleanupAfterEach();
const PUBLIC = "https://forms.example.com";
const DAY = 24 * 60 * 60 * 1000;

async function setup(clock?: ReturnType<typeof fixedClock>) {
  const smtp = await startSmtpSink();
  defer(() => smtp.close());
  const s = await startTestServer({ config: { rateLimit: 10_000, smtpUrl: smtp.url, publicUrl: PUBLIC }, clock });
  defer(() => s.close());
  const o = await seedOwner(s, "owner@example.com", { name: "Buy cheap pills at spam.example", emailEnabled: true });
  return { smtp, s, o };
}

type Owner = { key: string; formId: string };
const to = (m: { to?: unknown }) => (m.to as { text: string }).text;
const patch = (s: TestServer, o: Owner, body: unknown, formId = o.formId) =>
  s.send("PATCH", `/forms/${formId}`, o.key, body);
const getForm = async (s: TestServer, o: Owner, formId = o.formId) =>
  (await s.send("GET", `/forms/${formId}`, o.key)).body;
const newForm = async (s: TestServer, o: Owner) => (await s.send("POST", "/forms", o.key, { name: "Other" })).body.id;
const linkOf = (text: string) => new RegExp(`${PUBLIC}/confirm/([A-Za-z0-9_-]{43})`).exec(text)![1]!;
const addresses = (n: number, prefix = "r") => Array.from({ length: n }, (_, i) => `${prefix}${i}@example.com`);
/** Lets the outbox send what is due, then the sink's count. */
const settled = async (smtp: SmtpSink) => {
  await Bun.sleep(400);
  return smtp.messages.length;
};

describe("recipient confirmation emails", () => {
  test("three rounds of setting 10 addresses and clearing them send 10 emails, none with the form's name in the subject", async () => {
    const { smtp, s, o } = await setup();
    for (let round = 0; round < 3; round++) {
      expect((await patch(s, o, { recipients: addresses(10) })).status).toBe(200);
      expect((await patch(s, o, { recipients: [] })).status).toBe(200);
    }
    await smtp.waitFor(10);
    expect(await settled(smtp)).toBe(10);
    expect(smtp.messages.map(to).sort()).toEqual(addresses(10).sort());
    expect(smtp.messages.every((m) => !m.subject!.includes("pills"))).toBe(true);
  });

  test("a removed and re-added address keeps its pending link, which still confirms it", async () => {
    const { smtp, s, o } = await setup();
    await patch(s, o, { recipients: ["team@example.com"] });
    const [mail] = await smtp.waitFor(1);
    await patch(s, o, { recipients: [] });
    await patch(s, o, { recipients: ["team@example.com"] });
    expect(await settled(smtp)).toBe(1);
    const confirmed = await fetch(`${s.url}/confirm/${linkOf(mail!.text!)}`, { method: "POST" });
    expect(confirmed.status).toBe(200);
    expect((await getForm(s, o)).recipients).toEqual([{ email: "team@example.com", confirmed: true }]);
  });

  test("an address on two forms of one owner gets one email a day: the second waits for the next day", async () => {
    const clock = fixedClock("2026-11-20T10:00:00.000Z");
    const { smtp, s, o } = await setup(clock);
    const other = await newForm(s, o);
    await patch(s, o, { recipients: ["team@example.com"] });
    await patch(s, o, { recipients: ["team@example.com"] }, other);
    await smtp.waitFor(1);
    expect(await settled(smtp)).toBe(1);
    clock.advance(DAY);
    // Something else queued wakes the sender; the waiting confirmation is due by now.
    await patch(s, o, { recipients: ["next@example.com"] });
    const mails = await smtp.waitFor(3);
    expect(mails.map(to).sort()).toEqual(["next@example.com", "team@example.com", "team@example.com"]);
    const second = mails.find((m, i) => i > 0 && to(m) === "team@example.com")!;
    expect((await fetch(`${s.url}/confirm/${linkOf(second.text!)}`, { method: "POST" })).status).toBe(200);
    expect((await getForm(s, o, other)).recipients).toEqual([{ email: "team@example.com", confirmed: true }]);
  });

  test("an owner's forms send at most 50 a day: beyond is 429 TOO_MANY_CONFIRMATIONS with the settings unchanged, deleting a form does not reset it", async () => {
    const clock = fixedClock("2026-11-20T10:00:00.000Z");
    const { smtp, s, o } = await setup(clock);
    const forms = [o.formId];
    for (let i = 0; i < 5; i++) forms.push(await newForm(s, o));
    for (let i = 0; i < 4; i++)
      expect((await patch(s, o, { recipients: addresses(10, `f${i}-`) }, forms[i])).status).toBe(200);
    // Deleting a form takes its links with it, but not what was sent.
    await smtp.waitFor(40);
    expect((await s.send("DELETE", `/forms/${forms[3]}`, o.key)).status).toBe(200);
    expect((await patch(s, o, { recipients: addresses(9, "f4-") }, forms[4])).status).toBe(200);
    const before = await getForm(s, o, forms[5]);
    const refused = await patch(s, o, { recipients: ["a@example.com", "b@example.com"] }, forms[5]);
    expect([refused.status, refused.body.code]).toEqual([429, "TOO_MANY_CONFIRMATIONS"]);
    expect(refused.body.error).toMatch(/50/);
    expect(await getForm(s, o, forms[5])).toEqual(before);
    // The fiftieth still goes.
    expect((await patch(s, o, { recipients: ["a@example.com"] }, forms[5])).status).toBe(200);
    await smtp.waitFor(50);
    expect(await settled(smtp)).toBe(50);
    clock.advance(DAY);
    expect((await patch(s, o, { recipients: ["a@example.com", "b@example.com"] }, forms[5])).status).toBe(200);
    await smtp.waitFor(51);
  });

  test("the 429 comes through forms update --recipients, the settings unchanged", async () => {
    const { s, o } = await setup();
    for (let i = 0; i < 5; i++)
      expect((await patch(s, o, { recipients: addresses(10, `f${i}-`) }, await newForm(s, o))).status).toBe(200);
    const res = await runCliAsync(["forms", "update", o.formId, "--recipients", "late@example.com"], { db: s.db });
    expect([res.code, res.stderr]).toEqual([
      1,
      expect.stringContaining("50 recipient confirmation emails in 24 hours"),
    ]);
    expect((await getForm(s, o)).recipients).toEqual([]);
  });

  test("the client library (the dashboard's) answers the 429 at once, without waiting a day to try again", async () => {
    const { s, o } = await setup();
    for (let i = 0; i < 5; i++)
      expect((await patch(s, o, { recipients: addresses(10, `f${i}-`) }, await newForm(s, o))).status).toBe(200);
    let requests = 0;
    const client = new FormsvcClient({
      baseUrl: `${s.url}/api/v1`,
      apiKey: o.key,
      fetch: (url, init) => ((requests += 1), fetch(url, init)),
    });
    const refused = await client.updateForm(o.formId, { recipients: ["late@example.com"] }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(FormsvcError);
    expect([(refused as FormsvcError).status, (refused as FormsvcError).code, requests]).toEqual([
      429,
      "TOO_MANY_CONFIRMATIONS",
      1,
    ]);
    expect((refused as FormsvcError).retryAfter).toBeGreaterThan(23 * 3600);
    expect((await getForm(s, o)).recipients).toEqual([]);
  });
});

describe("the recipient's link", () => {
  test("HEAD and GET change nothing; GET shows one button whose POST confirms", async () => {
    const { smtp, s, o } = await setup();
    await patch(s, o, { recipients: ["team@example.com"] });
    const [mail] = await smtp.waitFor(1);
    const url = `${s.url}/confirm/${linkOf(mail!.text!)}`;
    const unconfirmed = [{ email: "team@example.com", confirmed: false }];

    expect((await fetch(url, { method: "HEAD" })).status).toBe(200);
    expect((await getForm(s, o)).recipients).toEqual(unconfirmed);

    const page = await fetch(url);
    expect([page.status, page.headers.get("content-type")]).toEqual([200, "text/html; charset=utf-8"]);
    const html = await page.text();
    expect(html.match(/<form /g)).toHaveLength(1);
    expect(html).toContain('<form method="post">');
    expect(html.match(/<button/g)).toHaveLength(1);
    expect(html).not.toContain("<script");
    expect((await getForm(s, o)).recipients).toEqual(unconfirmed);

    // What the button sends: a plain form post, from the page itself.
    const posted = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "",
    });
    expect(posted.status).toBe(200);
    expect(await posted.text()).toContain("<h1>You&#39;re confirmed</h1>");
    expect((await getForm(s, o)).recipients).toEqual([{ email: "team@example.com", confirmed: true }]);
  });

  test("a POST of an unknown link is a 404 page and changes nothing", async () => {
    const { s, o } = await setup();
    await patch(s, o, { recipients: ["team@example.com"] });
    const res = await fetch(`${s.url}/confirm/${"A".repeat(43)}`, { method: "POST" });
    expect([res.status, await res.text()]).toEqual([404, expect.stringContaining("Link not found")]);
    expect((await getForm(s, o)).recipients).toEqual([{ email: "team@example.com", confirmed: false }]);
  });
});
