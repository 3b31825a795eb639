import { describe, expect, test } from "bun:test";
import { fixedClock } from "../../src/lib/clock";
import { useServer } from "../helpers/fixture";
import { cliJsonAsync, seedForm } from "../helpers/harness";

/**
 * Analytics answers are cached per form (lib/answer-cache.ts). Each test reads an answer twice
 * (the second comes from the cache), changes what it counts, and reads it again: it must show the change.
 */
const clock = fixedClock("2026-11-22T12:00:00.000Z");
const server = useServer({ clock, config: { rateLimit: 100_000 } });
const owner = server.seed("owner@example.com");

const newForm = async (name: string) => (await seedForm(server, "owner@example.com", { name })).id;

async function submit(formId: string, data: object = {}): Promise<string> {
  const { status, body } = await server.json("/api/v1/forms/submit", {
    method: "POST",
    key: owner.key,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ formId, data }),
  });
  expect(status).toBe(200);
  return body.submissionId;
}

/** The year's total, read twice: the first read renders the answer, the second may be served from the cache; both must agree. */
async function yearTotal(formId: string): Promise<number> {
  const totals: number[] = [];
  for (let i = 0; i < 2; i++) {
    const { status, body } = await server.json(`/api/v1/forms/${formId}/analytics?period=year`, { key: owner.key });
    expect(status).toBe(200);
    totals.push(body.totalSubmissions);
  }
  expect(totals[1]).toBe(totals[0]!);
  return totals[0]!;
}

describe("a cached analytics answer", () => {
  test("counts a submission committed after it", async () => {
    const formId = await newForm("submit");
    expect(await yearTotal(formId)).toBe(0);
    await submit(formId);
    expect(await yearTotal(formId)).toBe(1);
    await submit(formId);
    expect(await yearTotal(formId)).toBe(2);
  });

  test("drops a deleted submission", async () => {
    const formId = await newForm("delete");
    const id = await submit(formId);
    await submit(formId);
    expect(await yearTotal(formId)).toBe(2);
    const res = await server.request(`/api/v1/forms/${formId}/submissions/${id}`, { method: "DELETE", key: owner.key });
    expect(res.status).toBe(200);
    expect(await yearTotal(formId)).toBe(1);
  });

  test("follows a submission moved to spam and back into the inbox", async () => {
    const formId = await newForm("moves");
    const id = await submit(formId, { email: "ada@example.com" });
    expect(await yearTotal(formId)).toBe(1);
    const move = async (to: "spam" | "not-spam") =>
      (await server.json(`/api/v1/forms/${formId}/submissions/${id}/${to}`, { method: "POST", key: owner.key })).body
        .moved;
    expect(await move("spam")).toBe(true);
    expect(await yearTotal(formId)).toBe(0);
    expect(await move("not-spam")).toBe(true);
    expect(await yearTotal(formId)).toBe(1);
  });

  test("follows another process's write to the same database (the CLI deleting and moving submissions)", async () => {
    const formId = await newForm("other process");
    const [first, second] = [await submit(formId), await submit(formId)];
    expect(await yearTotal(formId)).toBe(2);
    expect(await cliJsonAsync(["submissions", "delete", first], { db: server.db })).toEqual({
      id: first,
      deleted: true,
    });
    expect(await yearTotal(formId)).toBe(1);
    expect((await cliJsonAsync(["submissions", "spam", second], { db: server.db })).moved).toBe(true);
    expect(await yearTotal(formId)).toBe(0);
  });

  test("ends on the new day once the UTC day has changed, still counting the day before", async () => {
    const formId = await newForm("day change");
    clock.set("2026-11-22T23:59:59.000Z");
    await submit(formId);
    const week = async () =>
      (await server.json(`/api/v1/forms/${formId}/analytics?period=week`, { key: owner.key })).body;
    expect((await week()).submissionsOverTime.at(-1)).toEqual({ date: "2026-11-22", count: 1 });
    expect((await week()).submissionsOverTime.at(-1)).toEqual({ date: "2026-11-22", count: 1 });
    clock.set("2026-11-23T00:00:01.000Z");
    const after = await week();
    expect(after.submissionsOverTime.slice(-2)).toEqual([
      { date: "2026-11-22", count: 1 },
      { date: "2026-11-23", count: 0 },
    ]);
    expect(after.totalSubmissions).toBe(1);
  });

  test("is one answer per range: another period, or the same days asked as a custom range, is answered for itself", async () => {
    const formId = await newForm("ranges");
    clock.set("2026-11-22T12:00:00.000Z");
    await submit(formId);
    const ask = async (query: string) =>
      (await server.json(`/api/v1/forms/${formId}/analytics${query}`, { key: owner.key })).body;
    expect((await ask("?period=day")).submissionsOverTime.length).toBe(1);
    expect((await ask("?period=month")).submissionsOverTime.length).toBe(30);
    const custom = await ask("?startDate=2026-11-22&endDate=2026-11-22");
    expect(custom.period).toBe("custom");
    expect((await ask("?period=day")).period).toBe("day");
  });
});
