import { beforeAll, describe, expect, test } from "bun:test";
import { fixedClock } from "../../src/lib/clock";
import { personalTeamId } from "../../src/lib/rights";
import { joinTeam, withPassword } from "../helpers/accounts";
import { useServer } from "../helpers/fixture";

const clock = fixedClock(Date.now());
const server = useServer({ clock, config: { rateLimit: 1_000_000 } });
const { send } = server;
const owner = server.seed("owner@example.com");
const ids: string[] = [];
/** The submissions numbered so, newest first. */
const at = (...n: number[]) => n.map((i) => ids[i]!);

const list = async (query: string) => {
  const res = await send("GET", `/forms/${owner.formId}/submissions?${query}`, owner.key);
  expect(res.status).toBe(200);
  return res.body as { submissions: { id: string }[]; nextCursor: string | null };
};
const listed = async (query: string) => (await list(query)).submissions.map((s) => s.id);

beforeAll(async () => {
  await withPassword(server, "editor@example.com");
  const editor = (await server.services.owners.findOwner("editor@example.com"))!;
  await joinTeam(server, personalTeamId(owner.ownerId), editor.id, "editor");
  // Newest first in the lists: ids[0] is the newest.
  for (let i = 0; i < 5; i++) {
    const res = await server.submit(owner.key, owner.formId, { message: `number ${i}` });
    expect(res.status).toBe(200);
    ids.unshift(res.body.submissionId);
  }
  const set = async (id: string, body: unknown) =>
    expect((await send("PATCH", `/forms/${owner.formId}/submissions/${id}`, owner.key, body)).status).toBe(200);
  await set(ids[0]!, { state: "open", assignee: "editor@example.com", tags: ["billing"] });
  await set(ids[1]!, { state: "done", tags: ["billing", "urgent"] });
  await set(ids[2]!, { state: "archived", assignee: "owner@example.com" });
  await set(ids[3]!, { tags: ["urgent"] });
});

describe("GET /forms/{formId}/submissions with the inbox's filters", () => {
  test("state (one or several), tag and assignee (an email, or none) keep only what they name, newest first", async () => {
    expect(await listed("")).toEqual(ids);
    expect(await listed("state=new")).toEqual(at(3, 4));
    expect(await listed("state=new,open")).toEqual(at(0, 3, 4));
    expect(await listed("tag=billing")).toEqual(at(0, 1));
    expect(await listed("tag=urgent&state=new,open")).toEqual(at(3));
    expect(await listed("assignee=Editor%40Example.com")).toEqual(at(0));
    expect(await listed("assignee=none")).toEqual(at(1, 3, 4));
    expect(await listed("assignee=none&state=new,open")).toEqual(at(3, 4));
    expect(await listed("assignee=nobody%40example.com")).toEqual([]);
    expect(await listed("tag=nothing")).toEqual([]);
  });

  test("a filtered list pages with its own cursors, which no other filter takes", async () => {
    const first = await list("state=new,open&limit=2");
    expect(first.submissions.map((s) => s.id)).toEqual(at(0, 3));
    const second = await list(`state=new,open&limit=2&cursor=${first.nextCursor}`);
    expect(second.submissions.map((s) => s.id)).toEqual(at(4));
    expect(second.nextCursor).toBeNull();
    const other = await send("GET", `/forms/${owner.formId}/submissions?cursor=${first.nextCursor}`, owner.key);
    expect(other.status).toBe(400);
  });

  test("a change of state shows in the filtered list at once (no stale cached page)", async () => {
    expect(await listed("state=new")).toEqual(at(3, 4));
    const res = await send("PATCH", `/forms/${owner.formId}/submissions/${ids[4]}`, owner.key, { state: "done" });
    expect(res.status).toBe(200);
    expect(await listed("state=new")).toEqual(at(3));
    expect(await listed("state=done")).toEqual(at(1, 4));
  });

  test("a bad filter is a 400 that says what is wrong", async () => {
    for (const [query, words] of [
      ["state=closed", "state must be"],
      ["state=new,", "state must be"],
      ["tag=", "tag must be"],
      [`tag=${"x".repeat(41)}`, "tag must be"],
      ["assignee=", "assignee must be"],
    ] as const) {
      const res = await send("GET", `/forms/${owner.formId}/submissions?${query}`, owner.key);
      expect(res.status, query).toBe(400);
      expect(res.body.error, query).toContain(words);
    }
  });
});
