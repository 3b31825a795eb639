import { expect, test } from "bun:test";
import { FormsvcClient, FormsvcError } from "../../src/client";
import { useServer } from "../helpers/fixture";

const server = useServer();
const owner = server.seed("owner@example.com");

const client = () => new FormsvcClient({ baseUrl: `${server.url}/api/v1`, apiKey: owner.key, fetch: server.fetch });

test("the client changes a submission's state and tags, acts in bulk, and adds, lists and deletes notes", async () => {
  const c = client();
  const ids = [
    (await c.submit({ formId: owner.formId, data: { n: 1 } })).submissionId,
    (await c.submit({ formId: owner.formId, data: { n: 2 } })).submissionId,
  ];
  expect((await c.getForm(owner.formId)).unread).toBe(2);
  const updated = await c.updateSubmission(owner.formId, ids[0]!, { state: "open", tags: ["vip"] });
  expect(updated).toMatchObject({ id: ids[0], state: "open", tags: ["vip"], assignee: null, status: "inbox" });
  expect((await c.listSubmissions(owner.formId)).submissions.map((s) => s.state).sort()).toEqual(["new", "open"]);

  expect(await c.bulkSubmissions(owner.formId, { ids, action: "set", set: { state: "done" } })).toEqual({
    action: "set",
    ids,
    changed: 2,
  });
  expect((await c.getForm(owner.formId)).unread).toBe(0);
  const refused = await c.bulkSubmissions(owner.formId, { ids: [...ids, "sub_none"], action: "delete" }).then(
    () => "answered",
    (e: FormsvcError) => `${e.status} ${e.code}`,
  );
  expect(refused).toBe("404 NOT_FOUND");

  const note = await c.addNote(owner.formId, ids[1]!, "Paid.");
  expect(note).toMatchObject({ submissionId: ids[1], text: "Paid.", author: "owner@example.com" });
  expect(await c.listNotes(owner.formId, ids[1]!)).toEqual([note]);
  expect(await c.deleteNote(owner.formId, ids[1]!, note.id)).toEqual({ id: note.id, deleted: true });
  expect(await c.listNotes(owner.formId, ids[1]!)).toEqual([]);
});
