import { beforeAll, describe, expect, test } from "bun:test";
import { isoTime } from "../../src/lib/clock";
import { newId } from "../../src/lib/ids";
import type { NewSubmission } from "../../src/modules/submissions/model";
import { submitPipeline } from "../../src/services";
import { useServer } from "../helpers/fixture";
import { runCliAsync, seedForm, seedKey, storedData } from "../helpers/harness";

const server = useServer({ config: { rateLimit: 100_000 } });
const owner = server.seed("owner@example.com");
const other = server.seed("other@example.com");

const exportPath = (formId: string, format?: string) =>
  `/api/v1/forms/${formId}/submissions/export${format ? `?format=${format}` : ""}`;

beforeAll(async () => {
  for (const data of [
    { email: "ann@example.com", note: "=1+1" },
    { email: "bob@example.com", extra: 'says "hi", twice' },
    { email: "spam@example.com", _gotcha: "x" },
  ]) {
    await server.submit(owner.key, owner.formId, data);
  }
});

describe("GET /forms/{formId}/submissions/export", () => {
  test("answers CSV byte for byte as formsvc submissions export writes it, as an attachment, without spam", async () => {
    const res = await server.request(exportPath(owner.formId), { key: owner.key });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(res.headers.get("content-disposition")).toBe(`attachment; filename="${owner.formId}.csv"`);
    expect(res.headers.get("x-ratelimit-remaining")).not.toBeNull();
    const csv = await res.text();
    expect(csv).toBe((await runCliAsync(["submissions", "export", owner.formId], { db: server.db })).stdout);
    expect(csv).toContain("'=1+1");
    expect(csv).not.toContain("spam@example.com");
  });

  test("answers JSON as the list shows submissions, oldest first", async () => {
    const res = await server.request(exportPath(owner.formId, "json"), { key: owner.key });
    expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
    const items = await res.json();
    const listed = (await server.json(`/api/v1/forms/${owner.formId}/submissions`, { key: owner.key })).body
      .submissions;
    expect(items).toEqual(listed.reverse());
    expect(await (await server.request(exportPath(other.formId, "json"), { key: other.key })).json()).toEqual([]);
  });

  test("answers 400 for another format, 404 for an unknown form, 403 for another owner's form and for a publishable key", async () => {
    const publishable = (await seedKey(server, "owner@example.com", { publishable: true })).key;
    const cases: [string, string, number, string][] = [
      [exportPath(owner.formId, "xml"), owner.key, 400, "INVALID_PARAMETER"],
      [exportPath("frm_missing"), owner.key, 404, "FORM_NOT_FOUND"],
      [exportPath(other.formId), owner.key, 403, "FORBIDDEN"],
      [exportPath(owner.formId), publishable, 403, "KEY_SCOPE"],
      [exportPath(owner.formId), "fsk_wrong", 401, "UNAUTHORIZED"],
    ];
    for (const [path, key, status, code] of cases) {
      const res = await server.json(path, { key });
      expect([path, res.status, res.body.code]).toEqual([path, status, code]);
    }
  });

  test("a form with one very wide submission exports whole rows, each as wide as the header, whatever the chunks", async () => {
    const wide = await seedForm(server, "owner@example.com", { name: "Wide" });
    // One post naming 999 fields (a request carries at most 1,000) widens every row: the rows go out in chunks smaller than a page.
    const fields = Object.fromEntries(Array.from({ length: 999 }, (_, i) => [`f${i}`, `v${i}`]));
    await server.submit(owner.key, wide.id, { ...fields, email: "wide@example.com" });
    for (let i = 0; i < 120; i++)
      await server.submit(owner.key, wide.id, { email: `n${i}@example.com`, f998: `last ${i}` });
    const csv = await (await server.request(exportPath(wide.id), { key: owner.key })).text();
    const lines = csv.split("\r\n").filter(Boolean);
    expect(lines.length).toBe(1 + 121);
    const width = lines[0]!.split(",").length;
    expect(width).toBeGreaterThan(999);
    expect(lines.every((line) => line.split(",").length === width)).toBe(true);
    expect(lines.at(-1)).toContain(",last 119,");
    expect(csv).toBe((await runCliAsync(["submissions", "export", wide.id], { db: server.db })).stdout);
  });

  test("streams a large form as it reads it: the first chunk arrives before the end, and a page not read yet reflects a later change", async () => {
    const big = await seedForm(server, "owner@example.com", { name: "Big" });
    const commit = submitPipeline(server.store.sql).commit;
    const rows = 60_000;
    const start = Date.parse("2026-01-01T00:00:00.000Z");
    const padding = "x".repeat(400);
    for (let i = 0; i < rows; i += 5_000) {
      const batch: NewSubmission[] = [];
      for (let j = i; j < i + 5_000; j++) {
        const json = storedData({ email: `p${j}@example.com`, n: j, padding });
        batch.push({
          id: newId("sub"),
          form: big,
          status: "inbox",
          json,
          meta: JSON.parse(json)._meta,
          email: `p${j}@example.com`,
          createdAt: isoTime(start + j * 1000),
          idempotency: null,
          stages: {},
        });
      }
      expect((await commit(batch)).every((outcome) => outcome === null)).toBe(true);
    }
    const newest = (await server.json(`/api/v1/forms/${big.id}/submissions?limit=1`, { key: owner.key })).body
      .submissions[0].id;

    // Plain fetch: the harness's checked fetch reads the whole body before it hands the answer over.
    const res = await fetch(server.url + exportPath(big.id, "json"), { headers: { "x-api-key": owner.key } });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = "";
    const first = await reader.read();
    text += decoder.decode(first.value, { stream: true });
    // ~30 MB in all; what has arrived so far is a small part of it.
    expect(text.length).toBeLessThan(rows * 100);
    // The newest submission is on the last page, which the server has not read yet.
    expect(
      (await server.json(`/api/v1/forms/${big.id}/submissions/${newest}`, { method: "DELETE", key: owner.key })).status,
    ).toBe(200);
    for (;;) {
      const next = await reader.read();
      if (next.done) break;
      text += decoder.decode(next.value, { stream: true });
    }
    const items = JSON.parse(text) as { id: string; data: { n: number } }[];
    expect(items.length).toBe(rows - 1);
    expect(items.some((s) => s.id === newest)).toBe(false);
    expect(items[0]!.data.n).toBe(0);
    expect(items.at(-1)!.data.n).toBe(rows - 2);
  });
});
