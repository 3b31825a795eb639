import { describe, expect, test } from "bun:test";
import { Webhook } from "standardwebhooks";
import { FormsvcClient } from "../../src/client";
import { fixedClock } from "../../src/lib/clock";
import { OPERATOR } from "../../src/lib/principal";
import { useServer } from "../helpers/fixture";
import { cliJsonAsync, seedOwner, startTestServer } from "../helpers/harness";
import { startReceiver } from "../helpers/receiver";

const DAY = 86_400_000;
const PUBLIC_URL = "https://forms.example.com";
const clock = fixedClock(Date.parse("2026-11-02T10:00:00.000Z"));
const server = useServer({
  clock,
  smtp: true,
  config: { rateLimit: 100_000, publicRateLimit: 100_000, webhookAllowPrivate: true, publicUrl: PUBLIC_URL },
});
const owner = server.seed("editor@example.com");

const FIELDS = [
  { name: "name", type: "text", label: "Name", required: true },
  { name: "email", type: "email", label: "Email" },
  { name: "message", type: "textarea", label: "Message", required: true },
];
const newForm = async (settings: Record<string, unknown> = {}) => {
  const res = await server.send("POST", "/forms", owner.key, {
    name: "Feedback",
    fields: FIELDS,
    editableDays: 7,
    ...settings,
  });
  expect(res.status).toBe(200);
  return res.body as { id: string; editableDays: number | null };
};
/** A post as a browser's form sends it, not following the answer's redirect. */
const browserPost = (path: string, values: Record<string, string>) =>
  fetch(`${server.url}${path}`, {
    method: "POST",
    redirect: "manual",
    headers: { accept: "text/html", "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(values),
  });
const jsonPost = async (path: string, values: Record<string, unknown>) => {
  const res = await fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { accept: "application/json", "content-type": "application/json" },
    body: JSON.stringify(values),
  });
  return { status: res.status, body: (await res.json()) as any };
};
const page = async (path: string, accept = "text/html") => {
  const res = await fetch(`${server.url}${path}`, { headers: { accept } });
  return { status: res.status, text: await res.text() };
};
/** What the server's public URL names, as a path on the test server. */
const local = (url: string) => url.replace(PUBLIC_URL, "").replace(server.url, "");
/** The edit link a page or an email carries (its `&` as HTML writes it, or not). */
const editLinkIn = (text: string) => /\/f\/[^/\s"]+\/edit\/[^\s"<>]+/.exec(text)?.[0]?.replaceAll("&amp;", "&") ?? null;
const submissionOf = async (formId: string, id: string) =>
  (await server.send("GET", `/forms/${formId}/submissions/${id}`, owner.key)).body;
const revisionsOf = (formId: string, id: string) =>
  server.send("GET", `/forms/${formId}/submissions/${id}/revisions`, owner.key);

/** A browser's post to the hosted form; answers the submission's id and its thank-you page's path. */
async function sendForm(formId: string, values: Record<string, string>) {
  const res = await browserPost(`/f/${formId}`, values);
  expect(res.status).toBe(303);
  const thanks = local(res.headers.get("location")!);
  // The newest of the form's submissions (the clock stands still: the time does not tell them apart).
  const [row] = await server.query("SELECT id FROM submissions WHERE form_id = ? ORDER BY seq DESC", formId);
  return { id: row.id as string, thanks };
}

describe("editableDays", () => {
  test("is null by default: the thank-you page and the JSON answer offer no edit link", async () => {
    const form = await newForm({ editableDays: undefined });
    expect(form.editableDays).toBeNull();
    const { thanks } = await sendForm(form.id, { name: "Ada", message: "Hello" });
    expect(editLinkIn((await page(thanks)).text)).toBeNull();
    const answer = await jsonPost(`/f/${form.id}`, { name: "Ada", message: "Hello" });
    expect(answer.status).toBe(200);
    expect(answer.body.editUrl).toBeUndefined();
  });

  test("takes 1 to 365 days or null, and refuses anything else with a 400 that names it", async () => {
    const form = await newForm();
    for (const bad of [0, 366, 1.5, "3"]) {
      const res = await server.send("PATCH", `/forms/${form.id}`, owner.key, { editableDays: bad });
      expect([res.status, res.body.code]).toEqual([400, "INVALID_PARAMETER"]);
      expect(res.body.error).toContain("editableDays");
    }
    expect((await server.send("PATCH", `/forms/${form.id}`, owner.key, { editableDays: 365 })).body.editableDays).toBe(
      365,
    );
    expect((await server.send("PATCH", `/forms/${form.id}`, owner.key, { editableDays: null })).body.editableDays).toBe(
      null,
    );
  });
});

describe("an edit through the thank-you page's link", () => {
  test("changes the answers, keeps the earlier ones as a revision, notifies as an edit and sends submission.updated", async () => {
    const rx = startReceiver();
    try {
      const form = await newForm({ emailSettings: { enabled: true, developerNotificationsEnabled: true } });
      const hook = await server.services.webhooks.addWebhook(OPERATOR, form.id, { url: `${rx.url}/in` });
      const sent = server.smtp.messages.length;
      const { id, thanks } = await sendForm(form.id, { name: "Ada", email: "ada@example.com", message: "Teh typo" });
      await rx.waitFor(1);
      await server.smtp.waitFor(sent + 1);

      const link = editLinkIn((await page(thanks)).text);
      expect(link).not.toBeNull();
      // The link opens the hosted page with the answers as sent, posting back to itself.
      const opened = await page(link!);
      expect(opened.status).toBe(200);
      expect(opened.text).toContain('value="Ada"');
      expect(opened.text).toContain("Teh typo");
      expect(opened.text).toContain(`action="${link!.replaceAll("&", "&amp;")}"`);

      const res = await browserPost(link!, { name: "Ada", email: "ada@example.com", message: "The typo, fixed" });
      expect(res.status).toBe(303);
      // The thank-you page again, with the link to change them once more.
      expect(editLinkIn((await page(local(res.headers.get("location")!))).text)).toBe(link);

      expect((await submissionOf(form.id, id)).data).toMatchObject({ message: "The typo, fixed", name: "Ada" });
      const revisions = await revisionsOf(form.id, id);
      expect(revisions.status).toBe(200);
      expect(revisions.body.revisions).toHaveLength(1);
      expect(revisions.body.revisions[0]).toMatchObject({ revision: 1, data: { message: "Teh typo", name: "Ada" } });
      // Still one submission: an edit is no new one.
      expect((await server.send("GET", `/forms/${form.id}`, owner.key)).body.submissionCount).toBe(1);

      const [, updated] = await rx.waitFor(2);
      const event = new Webhook(hook.secret!).verify(updated!.body, updated!.headers) as any;
      expect(event.type).toBe("submission.updated");
      expect(event.data).toMatchObject({
        id,
        formId: form.id,
        changed: ["data"],
        revision: 1,
        data: { message: "The typo, fixed" },
        previous: { data: { message: "Teh typo" } },
      });
      const mails = await server.smtp.waitFor(sent + 2);
      expect(mails[sent + 1]!.subject).toBe("Edited submission: Feedback");
      expect(mails[sent + 1]!.text).toContain("The typo, fixed");

      // An export shows the values as they are now.
      const exported = await server.request(`/api/v1/forms/${form.id}/submissions/export?format=csv`, {
        key: owner.key,
      });
      const csv = await exported.text();
      expect(csv).toContain("The typo, fixed");
      expect(csv).not.toContain("Teh typo");
      // Search finds the submission by its words now, no more by the ones replaced.
      const search = async (q: string) =>
        (await server.send("GET", `/submissions/search?q=${q}&formId=${form.id}`, owner.key)).body.submissions.map(
          (s: { id: string }) => s.id,
        );
      expect(await search("fixed")).toEqual([id]);
      expect(await search("teh")).toEqual([]);
    } finally {
      rx.close();
    }
  });

  test("a post the field rules refuse shows the page again, posting to the link, and changes nothing", async () => {
    const form = await newForm();
    const { id, thanks } = await sendForm(form.id, { name: "Ada", message: "First" });
    const link = editLinkIn((await page(thanks)).text)!;
    const res = await browserPost(link, { name: "", message: "Second" });
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).toContain(`action="${link.replaceAll("&", "&amp;")}"`);
    expect(html).toContain("Second");
    expect((await submissionOf(form.id, id)).data.message).toBe("First");
    expect((await revisionsOf(form.id, id)).body.revisions).toEqual([]);
  });
});

describe("an edit through the autoresponse's link", () => {
  test("carries the link, which a JSON client follows to change the answers", async () => {
    const form = await newForm({
      emailSettings: { enabled: true },
      autoresponse: { enabled: true, subject: "Thanks, {{name}}", text: "We got your message." },
    });
    const sent = server.smtp.messages.length;
    const answer = await jsonPost(`/f/${form.id}`, { name: "Bo", email: "bo@example.com", message: "Hi there" });
    expect(answer.status).toBe(200);
    const id = answer.body.submissionId;
    const mails = await server.smtp.waitFor(sent + 1);
    const mail = mails.slice(sent).find((m) => m.subject === "Thanks, Bo")!;
    const link = editLinkIn(mail.text!);
    expect(link).not.toBeNull();
    expect(mail.text).toContain(`${PUBLIC_URL}${link}`);
    expect(mail.html).toContain("change your answers");

    const opened = await page(link!, "application/json");
    expect(opened.status).toBe(200);
    expect(JSON.parse(opened.text).values).toEqual({ name: "Bo", email: "bo@example.com", message: "Hi there" });
    const changed = await jsonPost(link!, { name: "Bo", email: "bo@example.com", message: "Hi there, again" });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ success: true, submissionId: id, revision: 1 });
    expect((await submissionOf(form.id, id)).data.message).toBe("Hi there, again");
    expect((await revisionsOf(form.id, id)).body.revisions.map((r: any) => r.data.message)).toEqual(["Hi there"]);
    // A second change: newest first.
    expect((await jsonPost(link!, { name: "Bo", message: "Third" })).body.revision).toBe(2);
    expect((await revisionsOf(form.id, id)).body.revisions.map((r: any) => [r.revision, r.data.message])).toEqual([
      [2, "Hi there, again"],
      [1, "Hi there"],
    ]);
    // The client library and the command line list the same.
    const client = new FormsvcClient({ baseUrl: `${server.url}/api/v1`, apiKey: owner.key, fetch: server.fetch });
    const listed = await client.listRevisions(form.id, id);
    expect(listed.map((r) => r.revision)).toEqual([2, 1]);
    const cli = await cliJsonAsync(["submissions", "revisions", id, "--json"], { db: server.db });
    expect(cli).toEqual({ revisions: listed });
  });
});

describe("a link that no longer works", () => {
  const opened = async (formId: string) => {
    const { id, thanks } = await sendForm(formId, { name: "Cy", message: "Before" });
    return { id, link: editLinkIn((await page(thanks)).text)! };
  };
  const refusedWith = async (link: string, code: string, status: number) => {
    const json = await jsonPost(link, { name: "Cy", message: "After" });
    expect([json.status, json.body.code]).toEqual([status, code]);
    const shown = await page(link);
    expect(shown.status).toBe(status);
    expect(shown.text).toContain("change your answers");
    expect(shown.text).not.toContain("<form");
  };

  test("altered: 403 EDIT_LINK_INVALID, a page or JSON, nothing changed", async () => {
    const form = await newForm();
    const { id, link } = await opened(form.id);
    const later = new Date(Date.parse(new URL(link, PUBLIC_URL).searchParams.get("until")!) + 100 * DAY);
    const tampered = link.replace(/until=[^&]+/, `until=${encodeURIComponent(later.toISOString())}`);
    await refusedWith(tampered, "EDIT_LINK_INVALID", 403);
    await refusedWith(link.replace(/sig=.{4}/, "sig=AAAA"), "EDIT_LINK_INVALID", 403);
    // Another submission's id under this one's signature.
    const other = await opened(form.id);
    await refusedWith(link.replace(id, other.id), "EDIT_LINK_INVALID", 403);
    expect((await submissionOf(form.id, id)).data.message).toBe("Before");
  });

  test("past editableDays: 410 EDIT_LINK_EXPIRED, and shortening the setting shortens links sent", async () => {
    const start = clock.now();
    try {
      const form = await newForm({ editableDays: 3 });
      const { id, link } = await opened(form.id);
      clock.set(start + 2 * DAY);
      expect((await page(link)).status).toBe(200);
      expect((await server.send("PATCH", `/forms/${form.id}`, owner.key, { editableDays: 1 })).status).toBe(200);
      await refusedWith(link, "EDIT_LINK_EXPIRED", 410);
      expect((await server.send("PATCH", `/forms/${form.id}`, owner.key, { editableDays: 30 })).status).toBe(200);
      // The link's own time (3 days) still holds.
      clock.set(start + 3 * DAY + 1000);
      await refusedWith(link, "EDIT_LINK_EXPIRED", 410);
      expect((await submissionOf(form.id, id)).data.message).toBe("Before");
    } finally {
      clock.set(start);
    }
  });

  test("with the setting turned off: 410 EDIT_LINK_EXPIRED, and the thank-you page offers no link", async () => {
    const form = await newForm();
    const { thanks } = await sendForm(form.id, { name: "Cy", message: "Before" });
    const link = editLinkIn((await page(thanks)).text)!;
    expect((await server.send("PATCH", `/forms/${form.id}`, owner.key, { editableDays: null })).status).toBe(200);
    await refusedWith(link, "EDIT_LINK_EXPIRED", 410);
    expect(editLinkIn((await page(thanks)).text)).toBeNull();
  });

  test("of a deleted submission: 410 EDIT_LINK_EXPIRED, and its revisions went with it", async () => {
    const form = await newForm();
    const { id, link } = await opened(form.id);
    expect((await jsonPost(link, { name: "Cy", message: "After" })).status).toBe(200);
    expect(await server.query("SELECT revision FROM submission_revisions WHERE submission_id = ?", id)).toHaveLength(1);
    expect((await server.send("DELETE", `/forms/${form.id}/submissions/${id}`, owner.key)).status).toBe(200);
    expect(await server.query("SELECT revision FROM submission_revisions WHERE submission_id = ?", id)).toEqual([]);
    await refusedWith(link, "EDIT_LINK_EXPIRED", 410);
  });
});

describe("revisions and erasure", () => {
  test("retention deletes an old submission with its revisions", async () => {
    const start = clock.now();
    try {
      const form = await newForm({ retentionDays: 2 });
      const { id, thanks } = await sendForm(form.id, { name: "Kit", message: "Old" });
      const link = editLinkIn((await page(thanks)).text)!;
      expect((await jsonPost(link, { name: "Kit", message: "Newer" })).status).toBe(200);
      clock.set(start + 3 * DAY);
      expect(await server.services.lifecycle.expireRetained()).toBeGreaterThanOrEqual(1);
      expect(await server.query("SELECT * FROM submission_revisions WHERE submission_id = ?", id)).toEqual([]);
    } finally {
      clock.set(start);
    }
  });

  test("a person's export shows their revisions, and erasing the address removes them, the earlier values with them", async () => {
    const form = await newForm();
    const { id, thanks } = await sendForm(form.id, {
      name: "Dee",
      email: "dee.erased@example.com",
      message: "Secret-before",
    });
    const link = editLinkIn((await page(thanks)).text)!;
    expect((await jsonPost(link, { name: "Dee", email: "dee.erased@example.com", message: "After" })).status).toBe(200);
    expect((await server.query("SELECT data FROM submission_revisions WHERE submission_id = ?", id))[0].data).toContain(
      "Secret-before",
    );
    // The person's export shows the earlier values too.
    const person = await cliJsonAsync(["submissions", "export", "--email", "dee.erased@example.com"], {
      db: server.db,
    });
    expect(person.revisions).toEqual([
      {
        submissionId: id,
        revision: 1,
        data: expect.objectContaining({ message: "Secret-before" }),
        createdAt: expect.any(String),
      },
    ]);
    const erased = await cliJsonAsync(["submissions", "erase", "--email", "dee.erased@example.com", "--json"], {
      db: server.db,
    });
    expect(erased.erased).toBe(1);
    expect(await server.query("SELECT * FROM submission_revisions WHERE submission_id = ?", id)).toEqual([]);
    expect(await server.tablesHolding("Secret-before")).toEqual([]);
  });

  test("GET …/revisions is 404 for a submission of another form", async () => {
    const form = await newForm();
    const other = await newForm();
    const { id } = await sendForm(form.id, { name: "Ed", message: "Hi" });
    const res = await server.send("GET", `/forms/${other.id}/submissions/${id}/revisions`, owner.key);
    expect([res.status, res.body.code]).toEqual([404, "NOT_FOUND"]);
    expect((await revisionsOf(form.id, id)).body).toEqual({ revisions: [] });
  });
});

describe("an edit of a form that takes files", () => {
  const PDF = Buffer.from("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n");
  const post = async (path: string, name: string, file: Uint8Array, filename: string) => {
    const body = new FormData();
    body.append("name", name);
    body.append("message", "With a file");
    body.append("cv", new Blob([file as Uint8Array<ArrayBuffer>]), filename);
    const res = await fetch(`${server.url}${path}`, { method: "POST", headers: { accept: "application/json" }, body });
    return { status: res.status, body: (await res.json()) as any };
  };

  test("keeps the earlier file when the post brings none, and takes a new one in its place, the earlier kept for its revision", async () => {
    const form = await newForm({ fields: [...FIELDS, { name: "cv", type: "file", required: true }], files: {} });
    const sent = await post(`/f/${form.id}`, "Fay", PDF, "cv.pdf");
    expect(sent.status).toBe(200);
    const { submissionId: id, editUrl } = sent.body;
    const link = local(editUrl);
    const first = (await submissionOf(form.id, id)).data.cv;
    expect(first).toMatchObject({ name: "cv.pdf", type: "application/pdf" });

    // A browser sends an empty part for a file input left alone.
    const kept = await post(link, "Fay Renamed", new Uint8Array(), "");
    expect([kept.status, kept.body.revision]).toEqual([200, 1]);
    expect((await submissionOf(form.id, id)).data).toMatchObject({ name: "Fay Renamed", cv: first });

    const replaced = await post(link, "Fay Renamed", Buffer.from("%PDF-1.4\n%%EOF\n"), "cv-2.pdf");
    expect([replaced.status, replaced.body.revision]).toEqual([200, 2]);
    const now = (await submissionOf(form.id, id)).data.cv;
    expect(now).toMatchObject({ name: "cv-2.pdf" });
    expect(now.file).not.toBe(first.file);
    const files = await server.query(
      "SELECT id FROM files WHERE submission_id = ? AND state = 'stored' ORDER BY id",
      id,
    );
    expect(files.map((f: { id: string }) => f.id).sort()).toEqual([first.file, now.file].sort());
    expect((await revisionsOf(form.id, id)).body.revisions[0].data.cv).toEqual(first);
  });
});

describe("one response per email, with edits", () => {
  test("an edit to an address that has answered is 409 ALREADY_SUBMITTED and changes nothing; to a new one moves the answer's address", async () => {
    const form = await newForm({ oneResponsePerEmail: true });
    expect((await jsonPost(`/f/${form.id}`, { name: "Lu", email: "lu@example.com", message: "One" })).status).toBe(200);
    const mine = await jsonPost(`/f/${form.id}`, { name: "Mo", email: "mo@example.com", message: "Two" });
    const link = local(mine.body.editUrl);
    const clash = await jsonPost(link, { name: "Mo", email: "lu@example.com", message: "Two" });
    expect([clash.status, clash.body.code]).toEqual([409, "ALREADY_SUBMITTED"]);
    expect((await submissionOf(form.id, mine.body.submissionId)).data.email).toBe("mo@example.com");
    expect((await revisionsOf(form.id, mine.body.submissionId)).body.revisions).toEqual([]);
    expect((await jsonPost(link, { name: "Mo", email: "mo2@example.com", message: "Two" })).status).toBe(200);
    // The new address is the one that has answered now; the old one is free.
    expect((await jsonPost(`/f/${form.id}`, { name: "X", email: "mo2@example.com", message: "3" })).status).toBe(409);
    expect((await jsonPost(`/f/${form.id}`, { name: "Y", email: "mo@example.com", message: "4" })).status).toBe(200);
  });

  const askFor = (formId: string, email: string, accept = "application/json") =>
    fetch(`${server.url}/f/${formId}/edit-link`, {
      method: "POST",
      headers: { accept, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ email }),
    });
  const editLinkRows = async (formId: string) =>
    await server.query("SELECT recipient FROM outbox WHERE form_id = ? AND kind = 'edit_link'", formId);

  test("a second answer is 409 ALREADY_SUBMITTED offering to email the edit link, which only that address gets, once an hour", async () => {
    const form = await newForm({ oneResponsePerEmail: true });
    const first = await jsonPost(`/f/${form.id}`, { name: "Gil", email: "gil@example.com", message: "One" });
    expect(first.status).toBe(200);
    const again = await jsonPost(`/f/${form.id}`, { name: "Gil", email: "GIL@example.com", message: "Two" });
    expect([again.status, again.body.code]).toEqual([409, "ALREADY_SUBMITTED"]);
    expect(again.body.editLinkRequest).toBe(`/f/${form.id}/edit-link`);
    // A browser is offered the button, the address as typed, and no link.
    const shown = await browserPost(`/f/${form.id}`, { name: "Gil", email: "gil@example.com", message: "Two" });
    expect(shown.status).toBe(409);
    const html = await shown.text();
    expect(html).toContain(`action="/f/${form.id}/edit-link"`);
    expect(html).toContain('value="gil@example.com"');
    expect(editLinkIn(html)).toBeNull();

    const sent = server.smtp.messages.length;
    const asked = await askFor(form.id, "Gil@Example.com");
    expect(asked.status).toBe(200);
    const answer = await asked.json();
    // The same answer for an address that never answered, and nothing is sent to it.
    const unknown = await askFor(form.id, "nobody@example.com");
    expect([unknown.status, await unknown.json()]).toEqual([200, answer]);
    const mails = await server.smtp.waitFor(sent + 1);
    const mail = mails[sent]!;
    expect((mail.to as { text: string }).text).toBe("gil@example.com");
    expect(mail.subject).toBe("Change your answer to Feedback");
    const link = editLinkIn(mail.text!)!;
    expect(mail.text).toContain(`${PUBLIC_URL}${link}`);
    expect((await page(link)).text).toContain("One");
    // Asked again within the hour: answered the same, nothing more queued.
    expect((await askFor(form.id, "gil@example.com")).status).toBe(200);
    expect(await editLinkRows(form.id)).toEqual([{ recipient: "gil@example.com" }]);
    // The page for a person says the same.
    const page2 = await askFor(form.id, "nobody@example.com", "text/html");
    expect([page2.status, (await page2.text()).includes("Check your email")]).toEqual([200, true]);
  });

  test("a form without edits offers nothing, and its edit-link address is a 404", async () => {
    const form = await newForm({ oneResponsePerEmail: true, editableDays: null });
    expect((await jsonPost(`/f/${form.id}`, { name: "Hal", email: "hal@example.com", message: "One" })).status).toBe(
      200,
    );
    const again = await jsonPost(`/f/${form.id}`, { name: "Hal", email: "hal@example.com", message: "Two" });
    expect([again.status, again.body.editLinkRequest]).toEqual([409, undefined]);
    const asked = await askFor(form.id, "hal@example.com");
    expect(asked.status).toBe(404);
    expect(await editLinkRows(form.id)).toEqual([]);
  });
});

describe("an edit that changes the address", () => {
  test("leaves the earlier address findable: erasing it erases the submission, the new address and revisions with it", async () => {
    const form = await newForm();
    const { id, thanks } = await sendForm(form.id, { name: "Ivy", email: "ivy.old@example.com", message: "Hi" });
    const link = editLinkIn((await page(thanks)).text)!;
    expect((await jsonPost(link, { name: "Ivy", email: "ivy.new@example.com", message: "Hi" })).status).toBe(200);
    expect((await server.query("SELECT email FROM submissions WHERE id = ?", id))[0].email).toBe("ivy.new@example.com");
    const person = await cliJsonAsync(["submissions", "export", "--email", "ivy.old@example.com"], { db: server.db });
    expect(person.submissions.map((s: { id: string }) => s.id)).toEqual([id]);
    const erased = await cliJsonAsync(["submissions", "erase", "--email", "ivy.old@example.com", "--json"], {
      db: server.db,
    });
    expect(erased.erased).toBe(1);
    expect(await server.tablesHolding("ivy.old@example.com")).toEqual([]);
    expect(await server.tablesHolding("ivy.new@example.com")).toEqual([]);
  });
});

describe("the edit link's rate limit", () => {
  test("an edit's post takes from the same visitor bucket as the form's posts, and its 429 reaches a page as one", async () => {
    const small = await startTestServer({ config: { rateLimit: 100_000, publicRateLimit: 3 } });
    try {
      const o = await seedOwner(small, "limited@example.com");
      const form = await small.send("POST", "/forms", o.key, { name: "Limited", fields: FIELDS, editableDays: 7 });
      const posting = (path: string, message: string, accept = "application/json") =>
        fetch(`${small.url}${path}`, {
          method: "POST",
          headers: { accept, "content-type": "application/json" },
          body: JSON.stringify({ name: "Jo", message }),
        });
      const sent = (await (await posting(`/f/${form.body.id}`, "One")).json()) as { editUrl: string };
      const link = local(sent.editUrl).replace(small.url, "");
      expect((await posting(link, "Two")).status).toBe(200);
      expect((await posting(link, "Three")).status).toBe(200);
      const refused = await posting(link, "Four");
      expect([refused.status, ((await refused.json()) as { code: string }).code]).toEqual([429, "RATE_LIMITED"]);
      expect((await posting(`/f/${form.body.id}`, "Five")).status).toBe(429);
      expect((await posting(link, "Four", "text/html")).headers.get("content-type")).toContain("text/html");
    } finally {
      await small.close();
    }
  });
});

describe("an edit of a form without fields", () => {
  test("shows each value sent as a text field of its name, and takes the change", async () => {
    const form = await newForm({ fields: null });
    const { id, thanks } = await sendForm(form.id, { company: "Acme", note: "Call me" });
    const link = editLinkIn((await page(thanks)).text)!;
    const shown = await page(link);
    expect(shown.status).toBe(200);
    expect(shown.text).toContain('name="company"');
    expect(shown.text).toContain('value="Acme"');
    const res = await browserPost(link, { company: "Acme Ltd", note: "Call me" });
    expect(res.status).toBe(303);
    expect((await submissionOf(form.id, id)).data).toMatchObject({ company: "Acme Ltd", note: "Call me" });
  });
});
