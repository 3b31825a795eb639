import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { FormsvcClient } from "../../src/client";
import { fixedClock } from "../../src/lib/clock";
import { OPERATOR } from "../../src/lib/principal";
import {
  cliJsonAsync,
  runCliAsync,
  seedForm,
  seedOwner,
  startTestServer,
  type Owner,
  type TestServer,
} from "../helpers/harness";
import { startReceiver, until, type Receiver } from "../helpers/receiver";
import { startSmtpSink, type SmtpSink } from "../helpers/smtp-sink";

const PUBLIC = "https://forms.example.com";
const DAY = 86_400_000;
const clock = fixedClock("2026-11-20T10:00:00.000Z");

// A three-step application: who you are, your work (a question only for "Other"), a last word.
const FIELDS = [
  { name: "name", type: "text", label: "Name", required: true },
  { name: "email", type: "email", label: "Email" },
  { name: "work", type: "page", label: "Your work" },
  { name: "role", type: "radio", label: "Role", options: ["Engineer", "Other"], required: true },
  { name: "other", type: "text", label: "Which?", showIf: { field: "role", equals: "Other" } },
  { name: "last", type: "page", label: "Last" },
  { name: "message", type: "textarea", label: "Message", required: true },
];

let server: TestServer;
let smtp: SmtpSink;
let hooks: Receiver;
let owner: Owner;

beforeAll(async () => {
  smtp = await startSmtpSink();
  hooks = startReceiver();
  server = await startTestServer({
    clock,
    config: {
      rateLimit: 100_000,
      publicRateLimit: 100_000,
      smtpUrl: smtp.url,
      publicUrl: PUBLIC,
      webhookAllowPrivate: true,
    },
  });
  owner = await seedOwner(server, "owner@example.com", {
    name: "Application",
    fields: FIELDS as never,
    partialSubmissions: true,
    emailEnabled: true,
    developerNotifications: true,
  });
  const hook = await server.send("POST", `/forms/${owner.formId}/webhooks`, owner.key, { url: hooks.url });
  expect(hook.status).toBe(200);
});
afterAll(async () => {
  await server.close();
  await smtp.close();
  hooks.close();
});

/** A JSON post to a form's save route, as the page's script sends it. */
const save = (formId: string, body: Record<string, unknown>) =>
  server.json(`/f/${formId}/partial`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify(body),
  });
/** A browser's form post (no script): urlencoded, answered with a page. */
const browserPost = (path: string, fields: [string, string][]) =>
  server.request(path, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", accept: "text/html" },
    body: new URLSearchParams(fields).toString(),
    redirect: "manual",
  });
const pathOf = (url: string) => url.slice(PUBLIC.length);
/** A page as a browser gets it: plain fetch, as a 404 here is a page and not the API's JSON. */
const page = (path: string) => fetch(server.url + path);
const partials = (formId: string) =>
  server.query<{ id: string; data: string; email: string | null }>(
    "SELECT id, data, email FROM partials WHERE form_id = ? ORDER BY id",
    formId,
  );
const form = async (formId: string) => (await server.send("GET", `/forms/${formId}`, owner.key)).body;
const newForm = (settings: Record<string, unknown> = {}) =>
  seedForm(server, "owner@example.com", {
    name: "Another",
    fields: FIELDS as never,
    partialSubmissions: true,
    ...settings,
  });

describe("partialSubmissions", () => {
  test("is off by default: no save button, and the save route is 404", async () => {
    const plain = await seedForm(server, "owner@example.com", { name: "Plain", fields: FIELDS as never });
    expect((await form(plain.id)).partialSubmissions).toBe(false);
    const page = await (await server.request(`/f/${plain.id}`)).text();
    expect(page).not.toContain("Save and continue later");
    const res = await save(plain.id, { name: "Ada" });
    expect([res.status, res.body.code]).toEqual([404, "NOT_FOUND"]);
    expect(await partials(plain.id)).toEqual([]);
    // On: the page offers it, posting to the save route unchecked and without files.
    expect((await server.send("PATCH", `/forms/${plain.id}`, owner.key, { partialSubmissions: true })).status).toBe(
      200,
    );
    const on = await (await server.request(`/f/${plain.id}`)).text();
    expect(on).toContain(
      `formaction="/f/${plain.id}/partial" formenctype="application/x-www-form-urlencoded" formnovalidate>Save and continue later</button>`,
    );
  });

  test("a visitor saves on step 1, comes back by the emailed link, finishes: one submission, one notification, one webhook, the partial gone", async () => {
    // Next on step 1: what is typed is saved (only the form's own fields), and a link answered.
    const first = await save(owner.formId, { name: "Ada", email: "ada@example.com", evil: "not a field" });
    expect(first.status).toBe(200);
    const { token, resumeUrl, partialId } = first.body;
    expect(resumeUrl).toBe(`${PUBLIC}/f/${owner.formId}/resume?token=${encodeURIComponent(token)}`);
    let stored = await partials(owner.formId);
    expect(stored.map((p) => [p.id, JSON.parse(p.data), p.email])).toEqual([
      [partialId, { name: "Ada", email: "ada@example.com" }, "ada@example.com"],
    ]);
    // Only the hash of the token's secret is kept.
    expect(await server.tablesHolding(token.split(".")[1])).toEqual([]);

    // Next on step 2, carrying the token: the same partial, its values replaced.
    const second = await save(owner.formId, {
      _partial: token,
      name: "Ada",
      email: "ada@example.com",
      role: "Other",
      other: "Poet",
    });
    expect([second.status, second.body.partialId, second.body.token]).toEqual([200, partialId, token]);
    stored = await partials(owner.formId);
    expect(stored.length).toBe(1);
    expect(JSON.parse(stored[0]!.data)).toEqual({
      name: "Ada",
      email: "ada@example.com",
      role: "Other",
      other: "Poet",
    });

    // Nothing counts, lists, searches, notifies or goes to a webhook while it is partial.
    const counts = await form(owner.formId);
    expect([counts.submissionCount, counts.unread]).toEqual([0, 0]);
    expect((await server.send("GET", `/forms/${owner.formId}/submissions`, owner.key)).body.submissions).toEqual([]);
    expect((await server.send("GET", "/submissions/search?q=Poet", owner.key)).body.submissions).toEqual([]);
    const listed = await server.send("GET", `/forms/${owner.formId}/submissions?status=partial`, owner.key);
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({
      submissions: [
        {
          id: partialId,
          formId: owner.formId,
          status: "partial",
          data: { name: "Ada", email: "ada@example.com", role: "Other", other: "Poet" },
          email: "ada@example.com",
          createdAt: clock.now() && new Date(clock.now()).toISOString(),
          updatedAt: new Date(clock.now()).toISOString(),
        },
      ],
      nextCursor: null,
    });

    // The visitor has the link emailed.
    const mailed = await save(owner.formId, { _partial: token, _email: "Ada@Example.com" });
    expect([mailed.status, mailed.body.emailedTo]).toEqual([200, "ada@example.com"]);
    const [mail] = await smtp.waitFor(1);
    expect(mail!.subject).toBe("Finish your answers to Application");
    expect(mail!.text).toContain(resumeUrl);
    expect(smtp.messages.length).toBe(1);
    // Sent: the token is gone from the outbox too.
    await until(
      () => server.query("SELECT status, payload FROM outbox WHERE kind = 'resume_link'"),
      (rows) => rows[0]?.status === "sent",
    );
    expect(await server.tablesHolding(token.split(".")[1])).toEqual([]);
    expect(hooks.requests).toEqual([]);

    // The link: the hosted page filled in, carrying the token.
    const resumed = await page(pathOf(resumeUrl));
    expect(resumed.status).toBe(200);
    const html = await resumed.text();
    expect(html).toMatch(/name="name"[^>]* value="Ada"/);
    expect(html).toMatch(/name="role"[^>]* value="Other" checked/);
    expect(html).toMatch(/name="other"[^>]* value="Poet"/);
    expect(html).toContain(`<input type="hidden" name="_partial" value="${token}">`);

    // Sent: stored once, through the pipeline, without the token; the partial goes.
    const sent = await browserPost(`/f/${owner.formId}`, [
      ["_partial", token],
      ["name", "Ada"],
      ["email", "ada@example.com"],
      ["role", "Other"],
      ["other", "Poet"],
      ["message", "Hello"],
    ]);
    expect(sent.status).toBe(303);
    const subs = await server.query<{ data: string }>("SELECT data FROM submissions WHERE form_id = ?", owner.formId);
    expect(subs.length).toBe(1);
    expect(JSON.parse(subs[0]!.data)).toMatchObject({ name: "Ada", role: "Other", other: "Poet", message: "Hello" });
    expect(JSON.parse(subs[0]!.data)._partial).toBeUndefined();
    expect(await partials(owner.formId)).toEqual([]);
    expect((await form(owner.formId)).submissionCount).toBe(1);
    await smtp.waitFor(2);
    await hooks.waitFor(1);
    await until(
      () => server.query("SELECT status FROM outbox WHERE form_id = ? AND status <> 'sent'", owner.formId),
      (rows) => rows.length === 0,
    );
    expect(smtp.messages.map((m) => m.subject).filter((s) => !s?.startsWith("Finish")).length).toBe(1);
    expect(hooks.requests.length).toBe(1);
    expect(
      (await server.send("GET", `/forms/${owner.formId}/submissions?status=partial`, owner.key)).body.submissions,
    ).toEqual([]);

    // The link again: it is spent.
    const spent = await page(pathOf(resumeUrl));
    expect(spent.status).toBe(404);
    expect(await spent.text()).toContain("no longer here");
  });

  test("without script: the save button answers a page with the link and a way to email it", async () => {
    const f = await newForm();
    const res = await browserPost(`/f/${f.id}/partial`, [
      ["name", "Grace"],
      ["_partial", ""],
      ["message", ""],
    ]);
    expect(res.status).toBe(200);
    const html = await res.text();
    const [row] = await partials(f.id);
    expect(JSON.parse(row!.data)).toEqual({ name: "Grace", message: "" });
    const link = /<a href="([^"]+)">Continue now<\/a>/.exec(html)?.[1];
    expect(link).toStartWith(`${PUBLIC}/f/${f.id}/resume?token=${row!.id}.`);
    expect(html).toContain(`<form class="resume" id="resume" method="post" action="/f/${f.id}/partial">`);
    const token = decodeURIComponent(new URL(link!).searchParams.get("token")!);
    // The box's own form: the token and an address, nothing else; the answers stay as saved.
    const mailed = await browserPost(`/f/${f.id}/partial`, [
      ["_partial", token],
      ["_email", "grace@example.com"],
    ]);
    expect(mailed.status).toBe(200);
    expect(await mailed.text()).toContain("We emailed the link to grace@example.com.");
    const [after] = await partials(f.id);
    expect([JSON.parse(after!.data), after!.email]).toEqual([{ name: "Grace", message: "" }, "grace@example.com"]);
  });

  test("refuses what it cannot save, changing nothing; mails are throttled per address", async () => {
    const f = await newForm();
    for (const nothing of [{ evil: "x" }, { name: " ", message: "" }]) {
      const empty = await save(f.id, nothing);
      expect([empty.status, empty.body.code]).toEqual([400, "EMPTY"]);
    }
    const gone = await save(f.id, { _partial: "prt_0.x", _email: "a@example.com" });
    expect([gone.status, gone.body.code]).toEqual([404, "NOT_FOUND"]);
    const { token } = (await save(f.id, { name: "Lin" })).body;
    const bad = await save(f.id, { _partial: token, _email: "not an address" });
    expect([bad.status, bad.body.code]).toEqual([400, "VALIDATION_FAILED"]);
    const multipart = new FormData();
    multipart.set("name", "x");
    const typed = await server.json(`/f/${f.id}/partial`, {
      method: "POST",
      body: multipart,
      headers: { accept: "application/json" },
    });
    expect([typed.status, typed.body.code]).toEqual([415, "UNSUPPORTED_MEDIA_TYPE"]);
    // Another form's token proves nothing here.
    const other = await newForm();
    const foreign = await save(other.id, { _partial: token, _email: "a@example.com" });
    expect(foreign.status).toBe(404);
    for (let i = 0; i < 3; i++)
      expect((await save(f.id, { _partial: token, _email: "lin@example.com" })).status).toBe(200);
    const fourth = await save(f.id, { _partial: token, _email: "lin@example.com" });
    expect([fourth.status, fourth.body.code]).toEqual([429, "RATE_LIMITED"]);
    expect(
      (
        await server.query(
          "SELECT count(*) AS n FROM outbox WHERE kind = 'resume_link' AND recipient = ?",
          "lin@example.com",
        )
      )[0].n,
    ).toBe(3);
    // A closed form saves nothing.
    expect((await server.send("PATCH", `/forms/${f.id}`, owner.key, { paused: true })).status).toBe(200);
    const closed = await save(f.id, { name: "Lin" });
    expect([closed.status, closed.body.code]).toEqual([403, "FORM_CLOSED"]);
    expect((await partials(f.id)).length).toBe(1);
  });

  test("the client lists partials page by page, newest first; a bad cursor is a 400", async () => {
    const f = await newForm();
    const ids: string[] = [];
    for (const name of ["A", "B", "C"]) ids.unshift((await save(f.id, { name })).body.partialId);
    const client = new FormsvcClient({ baseUrl: `${server.url}/api/v1`, apiKey: owner.key, fetch: server.fetch });
    const first = await client.listPartials(f.id, { limit: 2 });
    expect(first.submissions.map((p) => [p.id, p.data.name])).toEqual([
      [ids[0], "C"],
      [ids[1], "B"],
    ]);
    const rest = await client.listPartials(f.id, { limit: 2, cursor: first.nextCursor! });
    expect([rest.submissions.map((p) => p.id), rest.nextCursor]).toEqual([[ids[2]!], null]);
    const bad = await server.send("GET", `/forms/${f.id}/submissions?status=partial&cursor=nope`, owner.key);
    expect([bad.status, bad.body.code]).toEqual([400, "INVALID_CURSOR"]);
    // The command line lists the same folder.
    const listed = await cliJsonAsync(["submissions", "list", f.id, "--partial", "--json"], { db: server.db });
    expect(listed.submissions.map((p: { id: string }) => p.id)).toEqual(ids);
    const text = await runCliAsync(["submissions", "list", f.id, "--partial", "--limit", "1"], { db: server.db });
    expect(text.stdout).toContain("answers saved halfway, newest first");
    expect(text.stdout).toContain(`--partial --cursor ${ids[0]}`);
  });

  test("a partial goes 30 days after its last save, with an erasure of its address, and with its form", async () => {
    const f = await newForm();
    const old = (await save(f.id, { name: "Old", email: "old@example.com" })).body;
    clock.advance(10 * DAY);
    const kept = (await save(f.id, { name: "Kept" })).body;
    clock.advance(20 * DAY);
    expect(await server.services.partials.expire()).toBe(0);
    clock.advance(DAY);
    // Other tests' partials, saved 31 days ago too, go with it.
    expect(await server.services.partials.expire()).toBeGreaterThanOrEqual(1);
    expect((await partials(f.id)).map((p) => p.id)).toEqual([kept.partialId]);
    expect(old.partialId).not.toBe(kept.partialId);

    // Erasure: the address's partials, listed by a person's export first.
    const ada = (await save(f.id, { name: "Ada", email: "ADA@example.com" })).body;
    const exported = await server.services.lifecycle.exportPerson(OPERATOR, "ada@example.com", null);
    expect(exported.partials).toEqual([
      expect.objectContaining({ id: ada.partialId, formId: f.id, data: { name: "Ada", email: "ADA@example.com" } }),
    ]);
    const erased = await server.services.lifecycle.eraseByEmail(OPERATOR, "ada@example.com", null);
    expect(erased.alsoErased.partials).toBe(1);
    expect((await partials(f.id)).map((p) => p.id)).toEqual([kept.partialId]);

    // The form's deletion takes the rest.
    expect((await server.send("DELETE", `/forms/${f.id}`, owner.key)).status).toBe(200);
    expect(await partials(f.id)).toEqual([]);
  });
});

describe("the save route's limits are the drop-in's", () => {
  test("it takes from the visitor's drop-in bucket of the form, and its body cap is FORMSVC_MAX_BODY_BYTES", async () => {
    const small = await startTestServer({ config: { publicRateLimit: 3, maxBodyBytes: 2048 } });
    try {
      const f = await seedForm(small, "small@example.com", {
        name: "Small",
        fields: FIELDS as never,
        partialSubmissions: true,
      });
      const post = (path: string, body: Record<string, unknown>) =>
        fetch(`${small.url}${path}`, {
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/json" },
          body: JSON.stringify(body),
        });
      const big = await post(`/f/${f.id}/partial`, { name: "x".repeat(4096) });
      expect([big.status, (await big.json()).code]).toEqual([413, "PAYLOAD_TOO_LARGE"]);
      expect((await post(`/f/${f.id}/partial`, { name: "Ada" })).status).toBe(200);
      const third = await post(`/f/${f.id}`, { name: "Ada" });
      expect(third.status).not.toBe(429);
      const fourth = await post(`/f/${f.id}/partial`, { name: "Ada" });
      expect([fourth.status, fourth.headers.get("x-ratelimit-limit")]).toEqual([429, "3"]);
      expect(await small.query("SELECT id FROM partials")).toHaveLength(1);
    } finally {
      await small.close();
    }
  });

  test("a client asks for at most 10 resume links an hour, whatever the addresses", async () => {
    const other = await startTestServer({ config: { rateLimit: 100_000, publicRateLimit: 100_000 } });
    try {
      const f = await seedForm(other, "mails@example.com", {
        name: "Mails",
        fields: FIELDS as never,
        partialSubmissions: true,
      });
      const mail = (n: number) =>
        other.json(`/f/${f.id}/partial`, {
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/json" },
          body: JSON.stringify({ name: "Ada", _email: `a${n}@example.com` }),
        });
      for (let n = 0; n < 10; n++) expect((await mail(n)).status).toBe(200);
      const eleventh = await mail(10);
      expect([eleventh.status, eleventh.body.code]).toEqual([429, "RATE_LIMITED"]);
      expect(eleventh.headers.get("retry-after")).toMatch(/^\d+$/);
      expect(await other.query("SELECT id FROM outbox WHERE kind = 'resume_link'")).toHaveLength(10);
    } finally {
      await other.close();
    }
  });
});
