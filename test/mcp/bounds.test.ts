import { describe, expect, test } from "bun:test";
import { loadConfig } from "../../src/config";
import { useServer } from "../helpers/fixture";
import { seedForm } from "../helpers/harness";
import { mcpClient } from "../helpers/mcp";

const MAX = 3;
const KB100 = 100 * 1024;
// Bodies large enough for submissions of 180 KB, whose answers must be cut.
const server = useServer({ config: { rateLimit: 1_000_000, mcpMaxResults: MAX, maxBodyBytes: 400_000 } });
const owner = server.seed("owner@example.com");

const submitTo = async (formId: string, data: Record<string, unknown>) => {
  const res = await server.submit(owner.key, formId, data);
  expect(res.status).toBe(200);
  return res.body.submissionId as string;
};

/** Every page of a tool's list, following nextCursor: the pages' sizes and all ids in order. */
async function allPages(mcp: Awaited<ReturnType<typeof mcpClient>>, name: string, list: string, args = {}) {
  const sizes: number[] = [];
  const bytes: number[] = [];
  const ids: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await mcp.call(name, { ...args, ...(cursor ? { cursor } : {}) });
    expect(page.isError).toBe(false);
    sizes.push(page.body[list].length);
    bytes.push(page.bytes);
    ids.push(...page.body[list].map((x: { id: string }) => x.id));
    cursor = page.body.nextCursor ?? undefined;
  } while (cursor);
  return { sizes, bytes, ids };
}

describe("FORMSVC_MCP_MAX_RESULTS", () => {
  test("is 50 by default, and 1 to 100", () => {
    expect(loadConfig({}).mcpMaxResults).toBe(50);
    expect(loadConfig({ FORMSVC_MCP_MAX_RESULTS: "100" }).mcpMaxResults).toBe(100);
    expect(() => loadConfig({ FORMSVC_MCP_MAX_RESULTS: "0" })).toThrow(/FORMSVC_MCP_MAX_RESULTS/);
    expect(() => loadConfig({ FORMSVC_MCP_MAX_RESULTS: "101" })).toThrow(/FORMSVC_MCP_MAX_RESULTS/);
  });

  test("list_forms answers at most that many forms, with the API's cursor to go on", async () => {
    for (let i = 0; i < 4; i++) await seedForm(server, owner.ownerEmail, { name: `Form ${i}` });
    const mcp = await mcpClient(server, owner.key);
    const { sizes, ids } = await allPages(mcp, "list_forms", "forms");
    expect(sizes).toEqual([3, 2]);
    const api = await server.send("GET", "/forms/list", owner.key);
    expect(ids).toEqual(api.body.forms.map((f: { id: string }) => f.id));
    await mcp.close();
  });

  test("search_submissions answers at most that many submissions, newest first, each once", async () => {
    const form = await seedForm(server, owner.ownerEmail, { name: "Many" });
    const sent: string[] = [];
    for (let i = 0; i < 5; i++) sent.push(await submitTo(form.id, { message: `question ${i}` }));
    const mcp = await mcpClient(server, owner.key);
    const { sizes, ids } = await allPages(mcp, "search_submissions", "submissions", { formId: form.id });
    expect(sizes).toEqual([3, 2]);
    expect(ids).toEqual(sent.reverse());
    await mcp.close();
  });
});

describe("100 KB an answer", () => {
  test("a page whose submissions are over 100 KB together holds fewer, and its cursor goes on from the last shown", async () => {
    const form = await seedForm(server, owner.ownerEmail, { name: "Big" });
    const sent: string[] = [];
    for (let i = 0; i < 3; i++) sent.push(await submitTo(form.id, { message: `${i}`.repeat(45_000) }));
    const mcp = await mcpClient(server, owner.key);
    const { sizes, bytes, ids } = await allPages(mcp, "search_submissions", "submissions", { formId: form.id });
    expect(sizes[0]).toBeLessThan(3);
    expect(Math.max(...bytes)).toBeLessThanOrEqual(KB100);
    // Nothing skipped, nothing twice, nothing shortened.
    expect(ids).toEqual(sent.reverse());
    await mcp.close();
  });

  test("a submission over 100 KB alone is answered with its values shortened to fit, and says so", async () => {
    const form = await seedForm(server, owner.ownerEmail, { name: "Huge" });
    const id = await submitTo(form.id, { first: "a".repeat(90_000), second: "b".repeat(90_000), short: "kept" });
    const mcp = await mcpClient(server, owner.key);
    const one = await mcp.call("get_submission", { formId: form.id, submissionId: id });
    expect(one.isError).toBe(false);
    expect(one.bytes).toBeLessThanOrEqual(KB100);
    expect(one.bytes).toBeGreaterThan(KB100 * 0.9);
    expect(one.body).toMatchObject({ id, formId: form.id, cut: true, data: { short: "kept" } });
    expect(one.body.data.first).toMatch(/^a+…$/);
    expect(one.body.data.second).toMatch(/^b+…$/);
    // In a list too: a page of one, cut, whose cursor still goes on.
    await submitTo(form.id, { message: "small" });
    const { sizes, bytes, ids } = await allPages(mcp, "search_submissions", "submissions", { formId: form.id });
    expect(sizes).toEqual([1, 1]);
    expect(Math.max(...bytes)).toBeLessThanOrEqual(KB100);
    expect(ids[1]).toBe(id);
    await mcp.close();
  });
});
