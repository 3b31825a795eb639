import { afterAll, beforeAll, expect, test } from "bun:test";
import { fixedClock } from "../../src/lib/clock";
import { seedOwner, startTestServer, type Owner, type TestServer } from "../helpers/harness";
import { startSmtpSink, type SmtpSink } from "../helpers/smtp-sink";

// Issue 41's done-line, across its parts: an owner publishes a three-step German application form
// with a question only for "Other"; a visitor leaves halfway, comes back by the emailed link, sends
// it, and corrects a typo the next day.
const PUBLIC = "https://forms.example.com";
const DAY = 86_400_000;
const clock = fixedClock("2026-11-20T10:00:00.000Z");
const FIELDS = [
  { name: "name", type: "text", label: "Name", required: true },
  { name: "email", type: "email", label: "E-Mail", required: true },
  { name: "work", type: "page", label: "Ihre Arbeit" },
  { name: "role", type: "radio", label: "Rolle", options: ["Entwicklerin", "Andere"], required: true },
  { name: "other", type: "text", label: "Welche?", required: true, showIf: { field: "role", equals: "Andere" } },
  { name: "last", type: "page", label: "Zum Schluss" },
  { name: "message", type: "textarea", label: "Nachricht", required: true },
];

let server: TestServer;
let smtp: SmtpSink;
let owner: Owner;

beforeAll(async () => {
  smtp = await startSmtpSink();
  server = await startTestServer({
    clock,
    config: { rateLimit: 100_000, publicRateLimit: 100_000, smtpUrl: smtp.url, publicUrl: PUBLIC },
  });
  owner = await seedOwner(server, "owner@example.com", {
    name: "Bewerbung",
    fields: FIELDS as never,
    locale: "de",
    partialSubmissions: true,
    editableDays: 7,
  });
});
afterAll(async () => {
  await server.close();
  await smtp.close();
});

const local = (url: string) => url.replace(PUBLIC, "").replace(server.url, "").replaceAll("&amp;", "&");
const page = async (path: string) => {
  const res = await fetch(server.url + path, { headers: { accept: "text/html" } });
  return { status: res.status, html: await res.text() };
};
const browserPost = (path: string, fields: [string, string][]) =>
  server.request(path, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", accept: "text/html" },
    body: new URLSearchParams(fields).toString(),
    redirect: "manual",
  });

test("a visitor leaves a German three-step form halfway, comes back by the emailed link, sends it, and corrects a typo the next day", async () => {
  // The page: German, three steps, the question for "Andere" only then.
  const form = await page(`/f/${owner.formId}`);
  expect(form.status).toBe(200);
  expect(form.html).toContain('<html lang="de"');
  expect(form.html.match(/<section class="step"/g)?.length).toBe(3);
  expect(form.html).toContain("Absenden");
  expect(form.html).toContain("Speichern und später fortfahren");

  // Halfway: what the page's script saves at Next, and the link emailed.
  const saved = await server.json(`/f/${owner.formId}/partial`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify({ name: "Jürgen Müller", email: "jm@example.de", role: "Andere", other: "Dichtrein" }),
  });
  expect(saved.status).toBe(200);
  const mailed = await server.json(`/f/${owner.formId}/partial`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify({ _partial: saved.body.token, _email: "jm@example.de" }),
  });
  expect(mailed.status).toBe(200);
  const [resumeMail] = await smtp.waitFor(1);
  const resumeLink = /https:\/\/forms\.example\.com\/f\/\S+\/resume\?token=\S+/.exec(resumeMail!.text ?? "")![0];

  // Back by the link: the answers so far, in German.
  const resumed = await page(local(resumeLink));
  expect(resumed.status).toBe(200);
  expect(resumed.html).toContain('<html lang="de"');
  expect(resumed.html).toMatch(/name="other"[^>]* value="Dichtrein"/);
  expect(resumed.html).toContain("Willkommen zurück");

  // Sent from the resumed page: one submission, the partial gone, the thank-you page with the edit link.
  const sent = await browserPost(`/f/${owner.formId}`, [
    ["_partial", saved.body.token],
    ["name", "Jürgen Müller"],
    ["email", "jm@example.de"],
    ["role", "Andere"],
    ["other", "Dichtrein"],
    ["message", "Ich bewerbe mich."],
  ]);
  expect(sent.status).toBe(303);
  const thanks = await page(local(sent.headers.get("location")!));
  expect(thanks.html).toContain('<html lang="de"');
  expect(thanks.html).toContain("Ihre Antworten ändern");
  const editLink = local(/\/f\/[^/\s"]+\/edit\/[^\s"<>]+/.exec(thanks.html)![0]);
  const [submission] = await server.query<{ id: string }>("SELECT id FROM submissions WHERE form_id = ?", owner.formId);
  expect(await server.query("SELECT id FROM partials WHERE form_id = ?", owner.formId)).toEqual([]);

  // The next day: the typo corrected through the link, the earlier answer kept as a revision.
  clock.advance(DAY);
  const editing = await page(editLink);
  expect(editing.status).toBe(200);
  expect(editing.html).toMatch(/name="other"[^>]* value="Dichtrein"/);
  expect(editing.html).toContain("Sie ändern gerade Ihre gesendeten Antworten");
  const corrected = await browserPost(editLink, [
    ["name", "Jürgen Müller"],
    ["email", "jm@example.de"],
    ["role", "Andere"],
    ["other", "Dichterin"],
    ["message", "Ich bewerbe mich."],
  ]);
  expect(corrected.status).toBe(303);
  const now = await server.send("GET", `/forms/${owner.formId}/submissions/${submission!.id}`, owner.key);
  expect(now.body.data).toMatchObject({ other: "Dichterin", role: "Andere" });
  const revisions = await server.send(
    "GET",
    `/forms/${owner.formId}/submissions/${submission!.id}/revisions`,
    owner.key,
  );
  expect(revisions.status).toBe(200);
  expect(JSON.stringify(revisions.body)).toContain("Dichtrein");
  expect((await server.send("GET", `/forms/${owner.formId}`, owner.key)).body.submissionCount).toBe(1);
});
