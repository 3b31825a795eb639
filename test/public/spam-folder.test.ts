import { beforeAll, describe, expect, test } from "bun:test";
import { useServer } from "../helpers/fixture";
import { cliJson, runCliAsync, seedOwner } from "../helpers/harness";

const server = useServer({ smtp: true, config: { rateLimit: 10_000 } });
const { smtp } = server;
let key: string;
let formId: string;

const submit = (data: Record<string, unknown>) => server.submit(key, formId, data);
const form = async () => (await server.json(`/api/v1/forms/${formId}`, { key })).body;
const list = async (status?: string) =>
  (await server.json(`/api/v1/forms/${formId}/submissions${status ? `?status=${status}` : ""}`, { key })).body;
const total = async () =>
  (await server.json(`/api/v1/forms/${formId}/analytics?period=day`, { key })).body.totalSubmissions;
const outbox = async () => (await server.query("SELECT submission_id FROM outbox")).map((r) => r.submission_id);

beforeAll(async () => {
  ({ key, formId } = await seedOwner(server, "owner@example.com", {
    name: "Launch",
    formType: "waitlist",
    usersJoinedEnabled: true,
    emailEnabled: true,
    developerNotifications: true,
  }));
});

describe("the spam folder", () => {
  test("takes a filled honeypot: answered like a stored submission, listed only with status=spam, counted nowhere, the honeypot field not stored", async () => {
    const ham = await submit({ email: "ann@example.com", _gotcha: "" });
    const spam = await submit({ email: "bot@example.com", _gotcha: "http://spam.example" });
    expect([ham.status, spam.status, Object.keys(spam.body).sort()]).toEqual([200, 200, ["submissionId", "success"]]);
    await smtp.waitFor(1);
    const f = await form();
    expect([f.submissionCount, f.usersJoinedSettings.count, await total()]).toEqual([1, 1, 1]);
    expect((await list()).submissions.map((s: { id: string }) => s.id)).toEqual([ham.body.submissionId]);
    const folder = (await list("spam")).submissions;
    expect(folder.map((s: { id: string }) => s.id)).toEqual([spam.body.submissionId]);
    expect(Object.keys(folder[0].data).sort()).toEqual(["_meta", "email"]);
    expect(await outbox()).toEqual([ham.body.submissionId]);
    expect(smtp.messages).toHaveLength(1);
    // Exports leave spam out too.
    const csv = (await runCliAsync(["submissions", "export", formId], { db: server.db })).stdout;
    expect(csv).toContain("ann@example.com");
    expect(csv).not.toContain("bot@example.com");
  });

  test("a submission moved out of spam counts from then on and sends what a new one sends; moved back, it counts nowhere again", async () => {
    const spam = await submit({ email: "cat@example.com", _gotcha: "filled" });
    const id = spam.body.submissionId;
    const before = await form();
    const mails = smtp.messages.length;

    const moved = cliJson(["submissions", "not-spam", id], { db: server.db });
    expect(moved).toEqual({ id, status: "inbox", moved: true });
    const after = await form();
    expect([after.submissionCount, after.usersJoinedSettings.count]).toEqual([
      before.submissionCount + 1,
      before.usersJoinedSettings.count + 1,
    ]);
    expect(await total()).toBe(before.submissionCount + 1);
    expect((await list()).submissions[0].id).toBe(id);
    expect(await outbox()).toContain(id);
    // The running server's drain sends what the command line queued.
    await smtp.waitFor(mails + 1, 15_000);
    expect(smtp.messages.at(-1)!.replyTo?.value[0]?.address).toBe("cat@example.com");

    expect(cliJson(["submissions", "not-spam", id], { db: server.db })).toEqual({ id, status: "inbox", moved: false });
    expect(cliJson(["submissions", "spam", id], { db: server.db })).toEqual({ id, status: "spam", moved: true });
    const back = await form();
    expect([back.submissionCount, back.usersJoinedSettings.count, await total()]).toEqual([
      before.submissionCount,
      before.usersJoinedSettings.count,
      before.submissionCount,
    ]);
    expect((await list("spam")).submissions.map((s: { id: string }) => s.id)).toContain(id);
  }, 30_000);

  test("keeps a waitlist joiner while another inbox submission of their email remains", async () => {
    await submit({ email: "dan@example.com" });
    const second = await submit({ email: "DAN@example.com" });
    const joined = (await form()).usersJoinedSettings.count;
    cliJson(["submissions", "spam", second.body.submissionId], { db: server.db });
    expect((await form()).usersJoinedSettings.count).toBe(joined);
    expect(
      (await server.query("SELECT count(*) AS n FROM waitlist_joiners WHERE email = 'dan@example.com'"))[0].n,
    ).toBe(1);
  });

  test("refuses an unknown submission id and a status that is no folder", async () => {
    const res = await runCliAsync(["submissions", "spam", "sub_nope"], { db: server.db });
    expect([res.code !== 0, res.stderr]).toEqual([true, expect.stringContaining("no submission with id sub_nope")]);
    const bad = await server.json(`/api/v1/forms/${formId}/submissions?status=junk`, { key });
    expect([bad.status, bad.body.error]).toEqual([400, "status must be inbox, spam or partial"]);
  });

  test("gives spam pages cursors of their own: an inbox cursor is refused on the spam list", async () => {
    for (let i = 0; i < 3; i++) await submit({ n: i });
    const inbox = (await server.json(`/api/v1/forms/${formId}/submissions?limit=1`, { key })).body;
    const res = await server.json(
      `/api/v1/forms/${formId}/submissions?status=spam&cursor=${encodeURIComponent(inbox.nextCursor)}`,
      { key },
    );
    expect([res.status, res.body.code]).toEqual([400, "INVALID_CURSOR"]);
  });
});
