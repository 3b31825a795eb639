import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { personalTeamId } from "../../src/lib/rights";
import { useServer } from "../helpers/fixture";
import { seedForm, seedKey } from "../helpers/harness";
import { mcpClient } from "../helpers/mcp";

const server = useServer({ config: { rateLimit: 1_000_000 } });
const owner = server.seed("owner@example.com");
const other = server.seed("other@example.com");

const READ_TOOLS = ["list_forms", "get_form", "form_analytics", "search_submissions", "get_submission"];
const WRITE_TOOLS = ["update_submission", "add_note", "mark_spam", "mark_not_spam"];

let admin: Awaited<ReturnType<typeof mcpClient>>;
let viewer: Awaited<ReturnType<typeof mcpClient>>;
let editor: Awaited<ReturnType<typeof mcpClient>>;
let viewerKeyId: string;
let editorKeyId: string;

const submit = async (data: Record<string, unknown>, key = owner.key, formId = owner.formId) => {
  const res = await server.submit(key, formId, data);
  expect(res.status).toBe(200);
  return res.body.submissionId as string;
};
const stored = async (id: string) => (await server.query("SELECT * FROM submissions WHERE id = ?", id))[0];
const mcpAudit = async (keyId: string) =>
  (
    await server.query(
      "SELECT action, object_id, detail, team_id, actor_role FROM audit_events WHERE actor_id = ? AND action LIKE 'mcp.%' ORDER BY id",
      keyId,
    )
  ).map((r) => ({ ...r, detail: JSON.parse(r.detail) }));

beforeAll(async () => {
  const viewerKey = await seedKey(server, owner.ownerEmail, { role: "viewer", name: "assistant" });
  const editorKey = await seedKey(server, owner.ownerEmail, { role: "editor", name: "assistant" });
  viewerKeyId = viewerKey.id;
  editorKeyId = editorKey.id;
  admin = await mcpClient(server, owner.key);
  viewer = await mcpClient(server, viewerKey.key);
  editor = await mcpClient(server, editorKey.key);
});
afterAll(async () => {
  for (const c of [admin, viewer, editor]) await c.close();
});

describe("tools/list", () => {
  test("an admin or editor key lists every tool, each with a JSON schema of its arguments", async () => {
    for (const c of [admin, editor]) {
      const { tools } = await c.client.listTools();
      expect(tools.map((t) => t.name)).toEqual([...READ_TOOLS, ...WRITE_TOOLS]);
      for (const t of tools) {
        expect(t.inputSchema.type).toBe("object");
        expect(t.description!.length).toBeGreaterThan(20);
        // No Elysia-only keyword (`error`) leaks into the published schema.
        expect(JSON.stringify(t.inputSchema)).not.toContain('"error"');
      }
    }
    const update = (await admin.client.listTools()).tools.find((t) => t.name === "update_submission")!;
    expect(update.inputSchema.required).toEqual(["formId", "submissionId"]);
    expect(Object.keys(update.inputSchema.properties!)).toEqual(
      expect.arrayContaining(["state", "assignee", "tags", "addTags", "removeTags"]),
    );
  });

  test("a viewer key lists only the read tools", async () => {
    const { tools } = await viewer.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(READ_TOOLS);
    expect(tools.every((t) => t.annotations?.readOnlyHint === true)).toBe(true);
  });
});

describe("the read tools", () => {
  test("list_forms lists the key's team's forms only", async () => {
    const { body, isError } = await viewer.call("list_forms");
    expect(isError).toBe(false);
    expect(body.forms.map((f: { id: string }) => f.id)).toEqual([owner.formId]);
    expect(body.nextCursor).toBeNull();
  });

  test("get_form answers the form as the API does; another team's form is FORBIDDEN, an unknown one not found", async () => {
    const { body } = await viewer.call("get_form", { formId: owner.formId });
    const api = await server.send("GET", `/forms/${owner.formId}`, owner.key);
    expect(body).toEqual(api.body);
    const foreign = await viewer.call("get_form", { formId: other.formId });
    expect(foreign).toMatchObject({
      isError: true,
      body: { code: "FORBIDDEN", requestId: expect.stringMatching(/^req_/) },
    });
    const unknown = await viewer.call("get_form", { formId: "frm_nothere" });
    expect(unknown.isError).toBe(true);
    expect(unknown.body.code).toMatch(/NOT_FOUND/);
  });

  test("form_analytics counts the form's submissions; another team's form is FORBIDDEN", async () => {
    await submit({ message: "counted" });
    const { body } = await viewer.call("form_analytics", { formId: owner.formId, period: "week" });
    const api = await server.send("GET", `/forms/${owner.formId}/analytics?period=week`, owner.key);
    expect(body).toEqual(api.body);
    expect(body.totalSubmissions).toBeGreaterThan(0);
    expect((await viewer.call("form_analytics", { formId: other.formId })).body.code).toBe("FORBIDDEN");
  });

  test("search_submissions finds the inbox's submissions holding every word, case and accents folded", async () => {
    const pricing = await submit({ message: "What is the PRICING for teams?", name: "Zoë" });
    const other1 = await submit({ message: "Where is your office?" });
    const found = await viewer.call("search_submissions", { formId: owner.formId, q: "pricing teams" });
    expect(found.body.submissions.map((s: { id: string }) => s.id)).toEqual([pricing]);
    expect(found.body.submissions[0]).toMatchObject({ state: "new", tags: [], noteCount: 0 });
    expect((await viewer.call("search_submissions", { formId: owner.formId, q: "zoe" })).body.submissions).toHaveLength(
      1,
    );
    const all = await viewer.call("search_submissions", { formId: owner.formId });
    expect(all.body.submissions.map((s: { id: string }) => s.id)).toEqual(expect.arrayContaining([pricing, other1]));
    // What formsvc noted of the request (browser, country) is no answer of the respondent's.
    expect((await viewer.call("search_submissions", { formId: owner.formId, q: "bun" })).body.submissions).toEqual([]);
    expect((await viewer.call("search_submissions", { formId: other.formId, q: "x" })).body.code).toBe("FORBIDDEN");
  });

  test("search_submissions is the API's search: every form of the team without formId, notes, filters, highlights", async () => {
    const second = (await seedForm(server, owner.ownerEmail, { name: "Second" })).id;
    const first = await submit({ message: "Kumquat delivery, please" });
    const later = await submit({ message: "Kumquat jam" }, owner.key, second);
    const theirs = await submit({ message: "kumquat too" }, other.key, other.formId);
    const ids = async (args: Record<string, unknown>) => {
      const res = await viewer.call("search_submissions", args);
      expect(res.isError).toBe(false);
      return res.body.submissions.map((s: { id: string }) => s.id);
    };
    expect(await ids({ q: "kumquat" })).toEqual([later, first]);
    const api = await server.send("GET", "/submissions/search?q=kumquat", owner.key);
    expect((await viewer.call("search_submissions", { q: "kumquat" })).body).toEqual(api.body);
    expect(await ids({ q: "kumquat" })).not.toContain(theirs);

    expect(
      (await editor.call("add_note", { formId: owner.formId, submissionId: first, text: "rang back" })).isError,
    ).toBe(false);
    const noted = await viewer.call("search_submissions", { q: "rang" });
    expect(noted.body.submissions.map((s: { id: string }) => s.id)).toEqual([first]);
    expect(noted.body.submissions[0].highlights).toMatchObject([{ field: "notes", text: "rang back" }]);

    await editor.call("update_submission", {
      formId: second,
      submissionId: later,
      state: "open",
      tags: ["fruit"],
      assignee: owner.ownerEmail,
    });
    expect(await ids({ tag: "fruit" })).toEqual([later]);
    expect(await ids({ q: "kumquat", state: "new" })).toEqual([first]);
    expect(await ids({ q: "kumquat", assignee: owner.ownerEmail })).toEqual([later]);
    expect(await ids({ q: "kumquat", assignee: "none" })).toEqual([first]);
    expect(await ids({ q: "kumquat", from: "2000-01-01", formId: second })).toEqual([later]);

    const missing = await viewer.call("search_submissions", {});
    expect([missing.isError, missing.body.code]).toEqual([true, "INVALID_QUERY"]);
  });

  test("get_submission answers the submission as the API does; another team's is FORBIDDEN, another form's not found", async () => {
    const id = await submit({ message: "read me" });
    const { body } = await viewer.call("get_submission", { formId: owner.formId, submissionId: id });
    const api = await server.send("GET", `/forms/${owner.formId}/submissions/${id}`, owner.key);
    expect(body).toEqual(api.body);
    expect(body).toMatchObject({ id, status: "inbox", data: { message: "read me" } });
    const theirs = await submit({ message: "theirs" }, other.key, other.formId);
    expect((await viewer.call("get_submission", { formId: other.formId, submissionId: theirs })).body.code).toBe(
      "FORBIDDEN",
    );
    // Their submission under our form: not one of this form's.
    expect((await viewer.call("get_submission", { formId: owner.formId, submissionId: theirs })).body.code).toBe(
      "NOT_FOUND",
    );
  });
});

describe("the write tools", () => {
  test("update_submission sets state, assignee and tags through the inbox's service, audited as the API's change is", async () => {
    const id = await submit({ message: "triage me" });
    const { body, isError } = await editor.call("update_submission", {
      formId: owner.formId,
      submissionId: id,
      state: "open",
      assignee: owner.ownerEmail,
      tags: ["billing"],
    });
    expect(isError).toBe(false);
    expect(body).toMatchObject({ id, state: "open", assignee: owner.ownerEmail, tags: ["billing"], status: "inbox" });
    expect((await stored(id)).state).toBe("open");
    const changed = await server.query(
      "SELECT actor_id FROM audit_events WHERE action = 'submission.updated' AND object_id = ?",
      id,
    );
    expect(changed).toEqual([{ actor_id: editorKeyId }]);
  });

  test("add_note adds a note with the key's maker as author", async () => {
    const id = await submit({ message: "note me" });
    const { body } = await editor.call("add_note", { formId: owner.formId, submissionId: id, text: "Called back." });
    expect(body).toMatchObject({ submissionId: id, text: "Called back.", author: owner.ownerEmail });
    const notes = await server.send("GET", `/forms/${owner.formId}/submissions/${id}/notes`, owner.key);
    expect(notes.body.notes.map((n: { text: string }) => n.text)).toEqual(["Called back."]);
  });

  test("mark_spam and mark_not_spam move a submission between the folders", async () => {
    const id = await submit({ message: "buy cheap watches" });
    expect((await editor.call("mark_spam", { formId: owner.formId, submissionId: id })).body).toEqual({
      id,
      status: "spam",
      moved: true,
    });
    expect((await stored(id)).status).toBe("spam");
    expect((await editor.call("mark_spam", { formId: owner.formId, submissionId: id })).body.moved).toBe(false);
    expect((await editor.call("mark_not_spam", { formId: owner.formId, submissionId: id })).body).toEqual({
      id,
      status: "inbox",
      moved: true,
    });
    expect((await stored(id)).status).toBe("inbox");
  });

  test("a viewer key calling a write tool anyway is refused with ROLE_TOO_LOW, and nothing changes", async () => {
    const id = await submit({ message: "leave me" });
    const calls: [string, Record<string, unknown>][] = [
      ["update_submission", { state: "done", tags: ["x"] }],
      ["add_note", { text: "no" }],
      ["mark_spam", {}],
      ["mark_not_spam", {}],
    ];
    for (const [name, args] of calls) {
      const res = await viewer.call(name, { formId: owner.formId, submissionId: id, ...args });
      expect(res, name).toMatchObject({ isError: true, body: { code: "ROLE_TOO_LOW" } });
    }
    expect(await stored(id)).toMatchObject({ state: "new", status: "inbox", note_count: 0 });
  });

  test("another team's submission is refused with FORBIDDEN, and is left as it was", async () => {
    const theirs = await submit({ message: "theirs" }, other.key, other.formId);
    const res = await admin.call("update_submission", { formId: other.formId, submissionId: theirs, state: "done" });
    expect(res.body.code).toBe("FORBIDDEN");
    expect((await admin.call("mark_spam", { formId: other.formId, submissionId: theirs })).body.code).toBe("FORBIDDEN");
    expect(await stored(theirs)).toMatchObject({ state: "new", status: "inbox" });
  });
});

describe("malformed arguments", () => {
  test.each([
    ["get_form", {}, /formId/],
    ["get_form", { formId: 42 }, /formId/],
    ["get_form", { formId: "" }, /formId/],
    ["get_form", { formId: "frm_x", extra: true }, /unknown argument extra/],
    ["list_forms", { cursor: "not-a-cursor" }, /cursor/],
    ["form_analytics", { formId: "frm_x", period: "decade" }, /period/],
    ["search_submissions", { formId: "frm_x", q: "q".repeat(501) }, /q must/],
    ["search_submissions", { q: "x", state: "closed" }, /state/],
    ["search_submissions", { q: "x", spam: "true" }, /unknown argument spam/],
    ["update_submission", { formId: "frm_x", submissionId: "sub_x", state: "closed" }, /state/],
    ["update_submission", { formId: "frm_x", submissionId: "sub_x", tags: "billing" }, /tags/],
    ["add_note", { formId: "frm_x", submissionId: "sub_x", text: "   " }, /text/],
    ["mark_spam", { formId: "frm_x" }, /submissionId/],
  ] as const)("%s with bad arguments (%#) is a tool error naming what is wrong", async (name, args, message) => {
    const res = await admin.call(name, args as Record<string, unknown>);
    expect(res.isError).toBe(true);
    expect(["INVALID_PARAMETER", "INVALID_CURSOR"]).toContain(res.body.code);
    expect(res.body.error).toMatch(message);
  });

  test("an unknown tool is a protocol error, not a 500", async () => {
    await expect(admin.client.callTool({ name: "drop_tables", arguments: {} })).rejects.toThrow(/no tool named/);
    // The server still answers.
    expect((await admin.call("list_forms")).isError).toBe(false);
  });
});

describe("the audit log", () => {
  test("records every call, reads and refusals too, with the key, its role, the team and the outcome", async () => {
    const id = await submit({ message: "audited" });
    const before = (await mcpAudit(viewerKeyId)).length;
    await viewer.call("get_submission", { formId: owner.formId, submissionId: id });
    await viewer.call("get_form", { formId: other.formId });
    await viewer.call("mark_spam", { formId: owner.formId, submissionId: id });
    await viewer.call("get_form", { formId: 7 });
    const rows = (await mcpAudit(viewerKeyId)).slice(before);
    const team = personalTeamId(owner.ownerId);
    expect(rows).toEqual([
      {
        action: "mcp.get_submission",
        object_id: id,
        detail: { outcome: "ok" },
        team_id: team,
        actor_role: "viewer",
      },
      {
        action: "mcp.get_form",
        object_id: other.formId,
        detail: { outcome: "FORBIDDEN" },
        team_id: team,
        actor_role: "viewer",
      },
      {
        action: "mcp.mark_spam",
        object_id: id,
        detail: { outcome: "ROLE_TOO_LOW" },
        team_id: team,
        actor_role: "viewer",
      },
      {
        action: "mcp.get_form",
        object_id: null,
        detail: { outcome: "INVALID_PARAMETER" },
        team_id: team,
        actor_role: "viewer",
      },
    ]);
    // The team's admins read it through the API, as any other line of the trail.
    const trail = await server.send("GET", `/teams/${team}/audit`, owner.key);
    expect(trail.status).toBe(200);
    expect(trail.body.map((e: { action: string }) => e.action)).toContain("mcp.get_submission");
  });
});
