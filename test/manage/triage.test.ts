import { beforeAll, describe, expect, test } from "bun:test";
import { Webhook } from "standardwebhooks";
import { fixedClock } from "../../src/lib/clock";
import { OPERATOR } from "../../src/lib/principal";
import { personalTeamId } from "../../src/lib/rights";
import { joinTeam, login, session, withPassword } from "../helpers/accounts";
import { useServer } from "../helpers/fixture";
import { cliJsonAsync, runCliAsync, seedForm, seedKey } from "../helpers/harness";
import { startReceiver, until } from "../helpers/receiver";
import { keptCounts, recount } from "../helpers/recount";

const clock = fixedClock(Date.now());
const server = useServer({ clock, config: { rateLimit: 1_000_000, webhookAllowPrivate: true } });
const { send } = server;
const owner = server.seed("owner@example.com");
const other = server.seed("other@example.com");
let team: string;
let viewerKey: string;
let editorCookie: () => Record<string, string>;

const submit = async (data: Record<string, unknown> = {}, formId = owner.formId) => {
  const res = await server.submit(owner.key, formId, data);
  expect(res.status).toBe(200);
  return res.body.submissionId as string;
};
const path = (id: string, rest = "") => `/forms/${owner.formId}/submissions/${id}${rest}`;
const patch = (id: string, body: unknown, key = owner.key) => send("PATCH", path(id), key, body);
const getForm = async (formId = owner.formId) => (await send("GET", `/forms/${formId}`, owner.key)).body;
const row = async (id: string) => (await server.query("SELECT * FROM submissions WHERE id = ?", id))[0];
const tagsOf = async (id: string) =>
  (await server.query("SELECT tag FROM submission_tags WHERE submission_id = ? ORDER BY tag", id)).map(
    (r: { tag: string }) => r.tag,
  );
/** The form's counters beside a recount: unread among them. */
const countsHold = async (formId = owner.formId) =>
  expect(await keptCounts(server, formId)).toEqual(await recount(server, formId));

beforeAll(async () => {
  team = personalTeamId(owner.ownerId);
  viewerKey = (await seedKey(server, owner.ownerEmail, { role: "viewer", name: "viewer" })).key;
  await withPassword(server, "editor@example.com");
  const editor = (await server.services.owners.findOwner("editor@example.com"))!;
  await joinTeam(server, team, editor.id, "editor");
  const { cookie } = await login(server, "editor@example.com");
  editorCookie = () => session(server, cookie!, server.url);
});

describe("PATCH /forms/{formId}/submissions/{submissionId}", () => {
  test("sets state, assignee (by email) and tags; lists and reads show them; unread follows; each change is audited", async () => {
    const id = await submit({ email: "ada@example.com" });
    expect((await getForm()).unread).toBeGreaterThan(0);
    const unread = (await getForm()).unread;
    const res = await patch(id, { state: "open", assignee: "Editor@Example.com", tags: ["urgent", "billing"] });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id,
      state: "open",
      assignee: "editor@example.com",
      tags: ["billing", "urgent"],
      noteCount: 0,
      status: "inbox",
    });
    expect((await send("GET", path(id), owner.key)).body).toEqual(res.body);
    const listed = (await send("GET", `/forms/${owner.formId}/submissions`, owner.key)).body.submissions;
    expect(listed.find((s: { id: string }) => s.id === id)).toMatchObject({
      state: "open",
      assignee: "editor@example.com",
      tags: ["billing", "urgent"],
    });
    expect((await getForm()).unread).toBe(unread - 1);
    const list = (await send("GET", "/forms/list", owner.key)).body.forms;
    expect(list.find((f: { id: string }) => f.id === owner.formId).unread).toBe(unread - 1);
    await countsHold();

    // addTags and removeTags change the tags; {} changes nothing; back to new counts it again.
    expect((await patch(id, { addTags: ["later"], removeTags: ["urgent"] })).body.tags).toEqual(["billing", "later"]);
    expect((await patch(id, {})).body).toMatchObject({ state: "open", tags: ["billing", "later"] });
    expect((await patch(id, { state: "new", assignee: null })).body).toMatchObject({ state: "new", assignee: null });
    expect((await getForm()).unread).toBe(unread);
    await countsHold();
    const audit = await server.query(
      "SELECT action, detail FROM audit_events WHERE object_id = ? AND action = 'submission.updated' ORDER BY id",
      id,
    );
    expect(audit.map((a: { detail: string }) => JSON.parse(a.detail).fields)).toEqual([
      ["state", "assignee", "tags"],
      ["tags"],
      ["state", "assignee"],
    ]);
  });

  test("refuses what is not allowed with a 4xx, changing nothing", async () => {
    const id = await submit();
    await patch(id, { tags: ["kept"] });
    const before = { row: await row(id), tags: await tagsOf(id), form: await getForm() };
    const cases: [unknown, number, string][] = [
      [{ state: "closed" }, 400, "INVALID_PARAMETER"],
      [{ tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }, 400, "INVALID_PARAMETER"],
      [{ tags: ["x".repeat(41)] }, 400, "INVALID_PARAMETER"],
      [{ tags: [""] }, 400, "INVALID_PARAMETER"],
      [{ tags: [" padded"] }, 400, "INVALID_PARAMETER"],
      [{ tags: ["a"], addTags: ["b"] }, 400, "INVALID_PARAMETER"],
      [{ addTags: Array.from({ length: 20 }, (_, i) => `n${i}`) }, 400, "INVALID_PARAMETER"],
      [{ assignee: "stranger@example.com" }, 400, "NOT_A_MEMBER"],
      [{ assignee: "other@example.com" }, 400, "NOT_A_MEMBER"],
      [{ colour: "red" }, 400, "INVALID_PARAMETER"],
    ];
    for (const [body, status, code] of cases) {
      const res = await patch(id, body);
      expect([JSON.stringify(body), res.status, res.body.code]).toEqual([JSON.stringify(body), status, code]);
    }
    // A viewer reads but does not change; another team's caller gets what other reads give it; another form's id is a 404.
    expect((await patch(id, { state: "done" }, viewerKey)).body.code).toBe("ROLE_TOO_LOW");
    expect((await send("GET", path(id), viewerKey)).status).toBe(200);
    const foreign = await patch(id, { state: "done" }, other.key);
    expect([foreign.status, foreign.body.code]).toEqual([403, "FORBIDDEN"]);
    const theirs = (await server.submit(other.key, other.formId, {})).body.submissionId;
    const wrongForm = await patch(theirs, { state: "done" });
    expect([wrongForm.status, wrongForm.body.code]).toEqual([404, "NOT_FOUND"]);
    expect({ row: await row(id), tags: await tagsOf(id), form: await getForm() }).toEqual(before);
  });
});

describe("notes", () => {
  test("are added with their author and time, listed oldest first, counted, and deleted by their author only", async () => {
    const id = await submit();
    const added = await server.json(`/api/v1${path(id, "/notes")}`, {
      method: "POST",
      headers: { ...editorCookie(), "content-type": "application/json" },
      body: JSON.stringify({ text: "Called them back." }),
    });
    expect(added.status).toBe(200);
    expect(added.body).toMatchObject({ submissionId: id, text: "Called them back.", author: "editor@example.com" });
    expect(added.body.id).toMatch(/^nte_/);
    const second = await send("POST", path(id, "/notes"), owner.key, { text: "x".repeat(10_000) });
    expect([second.status, second.body.author]).toEqual([200, "owner@example.com"]);
    const listed = await send("GET", path(id, "/notes"), viewerKey);
    expect(listed.body.notes.map((n: { id: string }) => n.id)).toEqual([added.body.id, second.body.id]);
    expect((await send("GET", path(id), owner.key)).body.noteCount).toBe(2);

    const long = await send("POST", path(id, "/notes"), owner.key, { text: "x".repeat(10_001) });
    expect([long.status, long.body.code]).toEqual([400, "INVALID_PARAMETER"]);
    expect((await send("POST", path(id, "/notes"), viewerKey, { text: "hi" })).body.code).toBe("ROLE_TOO_LOW");
    // The owner's key did not write the editor's note.
    const notMine = await send("DELETE", path(id, `/notes/${added.body.id}`), owner.key);
    expect([notMine.status, notMine.body.code]).toEqual([403, "NOT_AUTHOR"]);
    expect((await send("GET", path(id), owner.key)).body.noteCount).toBe(2);

    const gone = await server.json(`/api/v1${path(id, `/notes/${added.body.id}`)}`, {
      method: "DELETE",
      headers: editorCookie(),
    });
    expect([gone.status, gone.body]).toEqual([200, { id: added.body.id, deleted: true }]);
    expect((await send("GET", path(id), owner.key)).body.noteCount).toBe(1);
    expect((await send("DELETE", path(id, `/notes/${added.body.id}`), owner.key)).status).toBe(404);
    expect(
      (await server.query("SELECT action FROM audit_events WHERE object_id = ? ORDER BY id", added.body.id)).map(
        (a: { action: string }) => a.action,
      ),
    ).toEqual(["note.added", "note.deleted"]);
  });
});

describe("POST /forms/{formId}/submissions/bulk", () => {
  test("sets many at once, and an id that is not the form's refuses the whole call, changing nothing", async () => {
    const ids = [await submit(), await submit(), await submit()];
    const res = await send("POST", `/forms/${owner.formId}/submissions/bulk`, owner.key, {
      ids,
      action: "set",
      set: { state: "done", addTags: ["batch"] },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ action: "set", ids, changed: 3 });
    for (const id of ids) expect([(await row(id)).state, await tagsOf(id)]).toEqual(["done", ["batch"]]);
    await countsHold();

    const theirs = (await server.submit(other.key, other.formId, {})).body.submissionId;
    const before = { rows: await Promise.all(ids.map(row)), form: await getForm() };
    for (const body of [
      { ids: [...ids, "sub_unknown"], action: "set", set: { state: "open" } },
      { ids: [...ids, theirs], action: "delete" },
      { ids: [ids[0], theirs], action: "spam" },
    ]) {
      const refused = await send("POST", `/forms/${owner.formId}/submissions/bulk`, owner.key, body);
      expect([refused.status, refused.body.code]).toEqual([404, "NOT_FOUND"]);
    }
    for (const body of [
      { ids: [], action: "delete" },
      { ids: Array.from({ length: 1001 }, (_, i) => `sub_${i}`), action: "delete" },
      { ids, action: "archive" },
      { ids, action: "set" },
      { ids, action: "delete", set: { state: "done" } },
    ]) {
      const refused = await send("POST", `/forms/${owner.formId}/submissions/bulk`, owner.key, body);
      expect([refused.status, refused.body.code]).toEqual([400, "INVALID_PARAMETER"]);
    }
    expect({ rows: await Promise.all(ids.map(row)), form: await getForm() }).toEqual(before);
    expect((await row(theirs)).status).toBe("inbox");
  });

  test("spam, not-spam and delete act on each as the single routes do: counts, unread and the spam filter's lessons follow", async () => {
    const ids = [await submit({ m: "one" }), await submit({ m: "two" }), await submit({ m: "three" })];
    await patch(ids[0]!, { state: "open", tags: ["x"] });
    await send("POST", path(ids[1]!, "/notes"), owner.key, { text: "note" });
    const bulk = (action: string, list = ids) =>
      send("POST", `/forms/${owner.formId}/submissions/bulk`, owner.key, { ids: list, action });
    expect((await bulk("spam")).body.changed).toBe(3);
    for (const id of ids) expect((await row(id)).status).toBe("spam");
    const lessons = await server.query(
      "SELECT label FROM spam_lessons WHERE submission_id IN (SELECT value FROM json_each(?))",
      JSON.stringify(ids),
    );
    expect(lessons.map((l: { label: string }) => l.label)).toEqual(["spam", "spam", "spam"]);
    await countsHold();
    expect((await bulk("not-spam")).body.changed).toBe(3);
    await countsHold();
    // Already where asked: nothing moves.
    expect((await bulk("not-spam")).body.changed).toBe(0);

    expect((await bulk("delete")).body).toEqual({ action: "delete", ids, changed: 3 });
    await countsHold();
    for (const table of ["submissions", "submission_tags", "submission_notes"]) {
      const column = table === "submissions" ? "id" : "submission_id";
      const left = await server.query(
        `SELECT count(*) AS n FROM ${table} WHERE ${column} IN (SELECT value FROM json_each(?))`,
        JSON.stringify(ids),
      );
      expect([table, left[0].n]).toEqual([table, 0]);
    }
    expect(
      (
        await server.query(
          "SELECT count(*) AS n FROM audit_events WHERE action = 'submission.deleted' AND object_id IN (SELECT value FROM json_each(?))",
          JSON.stringify(ids),
        )
      )[0].n,
    ).toBe(3);
  });
});

describe("unread", () => {
  test("stays equal to a recount through submit, state changes, spam, deletion, erasure, retention and a move to another team", async () => {
    const form = await seedForm(server, owner.ownerEmail, { name: "Unread" });
    const on = (id: string) => `/forms/${form.id}/submissions/${id}`;
    const ids: string[] = [];
    for (const email of ["a@example.com", "b@example.com", "gone@example.com", "c@example.com"])
      ids.push(await submit({ email }, form.id));
    expect((await getForm(form.id)).unread).toBe(4);
    await send("PATCH", on(ids[0]!), owner.key, { state: "done" });
    await send("POST", `${on(ids[1]!)}/spam`, owner.key);
    expect((await getForm(form.id)).unread).toBe(2);
    await countsHold(form.id);
    // A state changed while in spam counts once it is back.
    await send("PATCH", on(ids[1]!), owner.key, { state: "open" });
    await send("POST", `${on(ids[1]!)}/not-spam`, owner.key);
    expect((await getForm(form.id)).unread).toBe(2);
    await send("DELETE", on(ids[3]!), owner.key);
    expect((await getForm(form.id)).unread).toBe(1);
    await countsHold(form.id);
    await server.services.lifecycle.eraseByEmail(OPERATOR, "gone@example.com", null);
    expect((await getForm(form.id)).unread).toBe(0);
    await countsHold(form.id);

    await submit({ email: "d@example.com" }, form.id);
    await server.services.forms.updateForm(OPERATOR, form.id, { retentionDays: 1 });
    clock.set(clock.now() + 2 * 86_400_000);
    await server.services.lifecycle.expireRetained();
    expect((await getForm(form.id)).unread).toBe(0);
    await countsHold(form.id);

    // A move keeps the count, and unassigns whoever is not in the new team.
    const kept = await submit({}, form.id);
    await send("PATCH", on(kept), owner.key, { assignee: "editor@example.com" });
    const elsewhere = await server.services.teams.createTeam(OPERATOR, { name: "Elsewhere", owner: owner.ownerEmail });
    await server.services.teams.moveForm(OPERATOR, form.id, elsewhere.id);
    expect((await server.services.forms.requireForm(form.id)).unread).toBe(1);
    expect((await row(kept)).assignee).toBeNull();
    await countsHold(form.id);
  });

  test("changes of one submission's state at once, with moves in and out of spam, each count once", async () => {
    const form = await seedForm(server, owner.ownerEmail, { name: "Busy" });
    const ids = [await submit({}, form.id), await submit({}, form.id)];
    const on = (id: string) => `/forms/${form.id}/submissions/${id}`;
    const calls = Array.from({ length: 24 }, (_, i) => {
      const id = ids[i % 2]!;
      if (i % 6 === 4) return send("POST", `${on(id)}/spam`, owner.key);
      if (i % 6 === 5) return send("POST", `${on(id)}/not-spam`, owner.key);
      return send("PATCH", on(id), owner.key, { state: i % 3 ? "open" : "new" });
    });
    for (const res of await Promise.all(calls)) expect(res.status).toBe(200);
    await countsHold(form.id);
    expect((await getForm(form.id)).unread).toBe((await keptCounts(server, form.id)).unread);
  });

  test("a member who leaves the team is unassigned", async () => {
    const id = await submit();
    await withPassword(server, "leaving@example.com");
    const leaving = (await server.services.owners.findOwner("leaving@example.com"))!;
    await joinTeam(server, team, leaving.id, "viewer");
    expect((await patch(id, { assignee: "leaving@example.com" })).body.assignee).toBe("leaving@example.com");
    await server.services.teams.removeMember(OPERATOR, team, leaving.id);
    expect((await send("GET", path(id), owner.key)).body.assignee).toBeNull();
  });
});

describe("submission.updated", () => {
  test("is delivered to the form's webhooks, signed, with what changed and the new values; a note too; spam sends nothing", async () => {
    const rx = startReceiver();
    try {
      const form = await seedForm(server, owner.ownerEmail, { name: "Hooked" });
      const hook = await server.services.webhooks.addWebhook(OPERATOR, form.id, { url: `${rx.url}/in` });
      const id = await submit({ email: "ada@example.com" }, form.id);
      await rx.waitFor(1);
      const on = `/forms/${form.id}/submissions/${id}`;
      expect((await send("PATCH", on, owner.key, { state: "open", tags: ["vip"] })).status).toBe(200);
      const [, changed] = await rx.waitFor(2);
      const event = new Webhook(hook.secret!).verify(changed!.body, changed!.headers) as any;
      expect(event.type).toBe("submission.updated");
      expect(event.data).toEqual({
        id,
        formId: form.id,
        changed: ["state", "tags"],
        state: "open",
        assignee: null,
        tags: ["vip"],
        noteCount: 0,
        previous: { state: "new", tags: [] },
      });
      expect((await send("POST", `${on}/notes`, owner.key, { text: "Looks good" })).status).toBe(200);
      const [, , noted] = await rx.waitFor(3);
      const note = new Webhook(hook.secret!).verify(noted!.body, noted!.headers) as any;
      expect(note.data).toMatchObject({
        changed: ["notes"],
        noteCount: 1,
        note: { text: "Looks good", author: "owner@example.com" },
      });
      const deliveries = await until(
        async () => (await send("GET", `/webhooks/${hook.id}/deliveries`, owner.key)).body,
        (d: { status: string }[]) => d.length === 3 && d.every((x) => x.status === "succeeded"),
      );
      expect(deliveries.length).toBe(3);

      // A submission in spam changes silently.
      await send("POST", `${on}/spam`, owner.key);
      await send("PATCH", on, owner.key, { state: "done" });
      await Bun.sleep(200);
      expect(rx.requests.length).toBe(3);
    } finally {
      rx.close();
    }
  });
});

describe("formsvc submissions set|note", () => {
  test("set changes state, assignee and tags as the API does; note adds a note without an author", async () => {
    const id = await submit();
    await patch(id, { tags: ["old", "keep"] });
    const set = await cliJsonAsync(
      [
        "submissions",
        "set",
        id,
        "--state",
        "done",
        "--assignee",
        "editor@example.com",
        "--tag",
        "new",
        "--untag",
        "old",
      ],
      { db: server.db },
    );
    expect(set).toMatchObject({ id, state: "done", assignee: "editor@example.com", tags: ["keep", "new"] });
    expect((await send("GET", path(id), owner.key)).body).toEqual(set);
    const unassigned = await cliJsonAsync(["submissions", "set", id, "--unassign"], { db: server.db });
    expect(unassigned.assignee).toBeNull();

    const note = await cliJsonAsync(["submissions", "note", id, "From the phone call."], { db: server.db });
    expect(note).toMatchObject({ submissionId: id, text: "From the phone call.", author: null });
    expect((await send("GET", path(id, "/notes"), owner.key)).body.notes).toEqual([note]);

    const bad = await runCliAsync(["submissions", "set", id, "--state", "closed"], { db: server.db });
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain("--state must be one of new, open, done, archived");
    const stranger = await runCliAsync(["submissions", "set", id, "--assignee", "nobody@example.com"], {
      db: server.db,
    });
    expect(stranger.code).not.toBe(0);
    expect(stranger.stderr).toContain("not a member");
    expect((await row(id)).state).toBe("done");
  });
});
