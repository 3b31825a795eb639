import { beforeAll, describe, expect, test } from "bun:test";
import { useServer } from "../helpers/fixture";
import { runCli, seedForm } from "../helpers/harness";

const server = useServer();
const owner = server.seed();
let other: string;
const ids: string[] = [];

const search = (...args: string[]) => runCli(["submissions", "search", ...args], { db: server.db });

beforeAll(async () => {
  other = (await seedForm(server, owner.ownerEmail, { name: "Other" })).id;
  for (const [formId, data] of [
    [owner.formId, { name: "Grete Müller", message: "about last march" }],
    [other, { name: "Max Muller", message: "hello" }],
    [owner.formId, { name: "Ada", message: "nothing to see" }],
  ] as const) {
    const res = await server.submit(owner.key, formId, data);
    expect(res.status).toBe(200);
    ids.push(res.body.submissionId);
  }
});

describe("formsvc submissions search", () => {
  test("--json prints the very text the API answers", async () => {
    const cli = search("muller", "--json");
    expect(cli.code).toBe(0);
    const api = await server.request("/api/v1/submissions/search?q=muller", { key: owner.key });
    expect(cli.stdout).toBe(`${await api.text()}\n`);
    expect(JSON.parse(cli.stdout).submissions.map((s: { id: string }) => s.id)).toEqual([ids[1], ids[0]]);
  });

  test("prints a table of what it found, the matched words in brackets, and the next page's command", async () => {
    const cli = search("muller", "--limit", "1");
    expect(cli.code).toBe(0);
    expect(cli.stdout).toContain(ids[1]!);
    expect(cli.stdout).toContain("name: Max [Muller]");
    const next = /--cursor (\S+)/.exec(cli.stdout)![1]!;
    const second = search("muller", "--limit", "1", "--cursor", next);
    expect(second.stdout).toContain("name: Grete [Müller]");
    expect(second.stdout).not.toContain("Next page");
  });

  test("--form keeps to one form; nothing found says so", async () => {
    const one = JSON.parse(search("muller", "--form", owner.formId, "--json").stdout);
    expect(one.submissions.map((s: { id: string }) => s.id)).toEqual([ids[0]]);
    const none = search("nobody");
    expect([none.code, none.stdout]).toEqual([0, "Nothing found.\n"]);
  });

  test("control characters a visitor sent (in a value or a field's name) never reach the terminal", async () => {
    const sent = await server.submit(owner.key, owner.formId, {
      "x\u001b]0;pwned\u0007": "invoice \u001b[2J\u001b]52;c;aGk=\u0007 oscar",
    });
    expect(sent.status).toBe(200);
    const cli = search("oscar");
    expect(cli.code).toBe(0);
    expect(cli.stdout).toContain("[oscar]");
    expect(cli.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
  });

  test("a query that cannot be searched is refused with the API's sentence", async () => {
    const bad = search('"unclosed');
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain("quote that is never closed");
    const only = search("--", "-muller");
    expect(only.code).not.toBe(0);
    expect(only.stderr).toContain("only excludes");
  });
});
