import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { useServer } from "../helpers/fixture";
import { runCli, seedForm } from "../helpers/harness";

const server = useServer();
const owner = server.seed();
let other: string;

const submit = (data: Record<string, unknown>) =>
  server.request("/api/v1/forms/submit", {
    method: "POST",
    key: owner.key,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ formId: owner.formId, data }),
  });

/** The API's page as text, exactly as it went over the wire. */
async function apiPage(query: string): Promise<{ status: number; text: string }> {
  const res = await server.request(`/api/v1/forms/${owner.formId}/submissions${query}`, { key: owner.key });
  return { status: res.status, text: await res.text() };
}

const list = (...args: string[]) => runCli(["submissions", "list", owner.formId, ...args], { db: server.db });

beforeAll(async () => {
  other = (await seedForm(server, owner.ownerEmail, { name: "Other" })).id;
  // One at a time, so that newest first is also the order they were sent in.
  expect((await submit({ name: "Ada", Email: "Ada@Example.com", message: "Hello" })).status).toBe(200);
  expect((await submit({ name: "Eve", message: `line one\nline two \u001b[2J${"x".repeat(200)}` })).status).toBe(200);
  for (let i = 0; i < 53; i++) expect((await submit({ n: i })).status).toBe(200);
}, 30_000);
afterAll(() => server.close());

describe("formsvc submissions list --json", () => {
  test("prints the very text GET /api/v1/forms/{formId}/submissions answers, default limit 50 included", async () => {
    const cli = list("--json");
    expect(cli.code).toBe(0);
    const api = await apiPage("");
    expect(cli.stdout).toBe(`${api.text}\n`);
    const page = JSON.parse(cli.stdout);
    expect(page.submissions.length).toBe(50);
    expect(page.nextCursor).toEqual(expect.any(String));
  });

  test("pages newest first with cursors that work in the API and back again", async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let turn = 0; turn < 20; turn++) {
      // Alternate: the CLI's cursor goes to the API, the API's to the CLI.
      const query = `?limit=7${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
      const api = await apiPage(query);
      const cli = list("--limit", "7", ...(cursor ? ["--cursor", cursor] : []), "--json");
      expect(cli.code).toBe(0);
      expect(cli.stdout).toBe(`${api.text}\n`);
      const page = JSON.parse(turn % 2 ? api.text : cli.stdout);
      seen.push(...page.submissions.map((s: { id: string }) => s.id));
      cursor = page.nextCursor;
      if (!cursor) break;
    }
    const all = (
      await server.query<{ id: string }>(
        "SELECT id FROM submissions WHERE form_id = ? ORDER BY created_at DESC, id DESC",
        owner.formId,
      )
    ).map((r) => r.id);
    expect(seen).toEqual(all);
    expect(seen.length).toBe(55);
  });
});

describe("formsvc submissions list", () => {
  test("prints a table of id, createdAt, email and a one-line preview of the data, and how to get the next page", () => {
    const res = list("--limit", "55");
    expect(res.code).toBe(0);
    const lines = res.stdout.split("\n");
    expect(lines[0]).toBe(`Contact (${owner.formId}): 55 submission(s), newest first`);
    expect(lines[2]).toMatch(/^ID\s+CREATED\s+EMAIL\s+DATA$/);
    const ada = lines.find((l) => l.includes("name=Ada"))!;
    expect(ada).toMatch(
      /^sub_\S+\s+\d{4}-\d\d-\d\dT[\d:.]+Z\s+ada@example\.com\s+name=Ada Email=Ada@Example\.com message=Hello$/,
    );
    const eve = lines.find((l) => l.includes("name=Eve"))!;
    expect(eve).toContain("line one line two");
    expect(eve).toEndWith("…");
    expect(eve.length).toBeLessThan(200);
    // Submitted data is untrusted: no escape sequence reaches the terminal.
    expect(res.stdout).not.toContain("\u001b");
    expect(res.stdout).not.toContain("Next page");

    const first = list("--limit", "2");
    expect(first.stdout).toContain(
      `Next page: npx bun src/main.ts submissions list ${owner.formId} --limit 2 --cursor `,
    );
    const cursor = /--cursor (\S+)/.exec(first.stdout)![1]!;
    expect(JSON.parse(list("--limit", "2", "--json").stdout).nextCursor).toBe(cursor);
  });

  test("shows the extracted email when a drop-in page's _replyto gave it", async () => {
    const dropIn = (await seedForm(server, owner.ownerEmail, { name: "Drop-in" })).id;
    const body = new URLSearchParams({ message: "hi", _replyto: "Reply@Example.com", _subject: "Hello" });
    const res = await server.request(`/f/${dropIn}`, { method: "POST", body, headers: { accept: "application/json" } });
    expect(res.status).toBe(200);
    const cli = runCli(["submissions", "list", dropIn], { db: server.db });
    expect(cli.code).toBe(0);
    expect(cli.stdout).toMatch(/^sub_\S+\s+\S+\s+reply@example\.com\s+message=hi/m);
  });

  test("says so when a form has no submissions", () => {
    const res = runCli(["submissions", "list", other], { db: server.db });
    expect(res.code).toBe(0);
    expect(res.stdout).toContain("Other (");
    expect(res.stdout).toContain("No submissions on this page.");
    expect(JSON.parse(runCli(["submissions", "list", other, "--json"], { db: server.db }).stdout)).toEqual({
      submissions: [],
      nextCursor: null,
    });
  });

  test.each(["0", "101", "abc", "1.5", "05", "", "1e2"])(
    "refuses --limit %p, as the API refuses that limit",
    async (limit) => {
      const res = list("--limit", limit);
      expect(res.code).not.toBe(0);
      expect(res.stdout).toBe("");
      expect(res.stderr).toContain("--limit must be a whole number from 1 to 100");
      expect((await apiPage(`?limit=${encodeURIComponent(limit)}`)).status).toBe(400);
    },
  );

  test("accepts the limits at both ends of the API's range", async () => {
    for (const limit of ["1", "100"]) {
      expect(list("--limit", limit, "--json").stdout).toBe(`${(await apiPage(`?limit=${limit}`)).text}\n`);
    }
  });

  test("refuses a tampered cursor, another form's cursor and an empty one", async () => {
    const cursor = JSON.parse(list("--limit", "1", "--json").stdout).nextCursor as string;
    const tampered = list("--cursor", `${cursor.slice(0, -2)}xx`);
    expect(tampered.code).not.toBe(0);
    expect(tampered.stderr).toContain("cursor is not valid for this list");
    const elsewhere = runCli(["submissions", "list", other, "--cursor", cursor], { db: server.db });
    expect(elsewhere.code).not.toBe(0);
    expect(elsewhere.stderr).toContain("cursor is not valid for this list");
    const empty = list("--cursor", "");
    expect(empty.code).not.toBe(0);
    expect(empty.stderr).toContain("--cursor must be the nextCursor of a previous page");
  });

  test("refuses an unknown form", () => {
    const res = runCli(["submissions", "list", "frm_nope"], { db: server.db });
    expect(res.code).not.toBe(0);
    expect(res.stdout).toBe("");
    expect(res.stderr).toContain("form frm_nope does not exist");
  });
});
