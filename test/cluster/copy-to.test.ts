import { afterAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { cliJson, runCliAsync, spawnServe, tempDir } from "../helpers/harness";
import { onPostgres } from "../helpers/engine";
import { testPostgres } from "../helpers/postgres";

const stops: (() => unknown)[] = [];
afterAll(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

/** A SQLite database with an owner, a key, a form with webhook and notifications, and submissions; with a cursor into its list. */
async function sqliteWithData() {
  const dir = tempDir();
  stops.push(dir.cleanup);
  const db = join(dir.dir, "formsvc.db");
  const key = cliJson<{ key: string }>(["keys", "create", "--owner", "owner@example.com"], { db }).key;
  const form = cliJson<{ id: string }>(
    [
      "forms",
      "create",
      "--owner",
      "owner@example.com",
      "--name",
      "Contact",
      "--type",
      "contact",
      "--email-notifications",
      "--developer-notifications",
    ],
    { db },
  );
  const serve = await spawnServe(db, { FORMSVC_WEBHOOK_ALLOW_PRIVATE: "true" });
  const ask = (path: string, init: RequestInit = {}) =>
    serve.fetch(serve.url + path, { ...init, headers: { "x-api-key": key, "content-type": "application/json" } });
  expect(
    (
      await ask(`/api/v1/forms/${form.id}/webhooks`, {
        method: "POST",
        body: JSON.stringify({ url: "http://127.0.0.1:9/hook" }),
      })
    ).status,
  ).toBe(200);
  for (let i = 0; i < 7; i++)
    expect(
      (
        await ask("/api/v1/forms/submit", {
          method: "POST",
          body: JSON.stringify({ formId: form.id, data: { email: `p${i}@example.com`, n: i } }),
        })
      ).status,
    ).toBe(200);
  const page = (await (await ask(`/api/v1/forms/${form.id}/submissions?limit=3`)).json()) as {
    submissions: { id: string }[];
    nextCursor: string;
  };
  serve.proc.kill();
  await serve.proc.exited;
  return { db, key, formId: form.id, firstPage: page.submissions.map((s) => s.id), cursor: page.nextCursor };
}

describe.if(onPostgres)("formsvc copy-to", () => {
  test("copies a SQLite database into an empty PostgreSQL one, and the copy serves the same data, keys and cursors", async () => {
    const source = await sqliteWithData();
    const url = await (await testPostgres()).newDatabase();
    const res = await runCliAsync(["copy-to", url, "--json"], { db: source.db });
    expect(res.code).toBe(0);
    expect(res.stderr).toContain("submissions: 7 of 7");
    const report = JSON.parse(res.stdout) as {
      target: string;
      tables: { table: string; source: number; copied: number }[];
    };
    expect(report.target).not.toContain(new URL(url).password);
    expect(report.tables.find((t) => t.table === "submissions")).toEqual({
      table: "submissions",
      source: 7,
      copied: 7,
    });
    for (const t of report.tables) expect(t.copied).toBe(t.source);

    const serve = await spawnServe(url);
    stops.push(() => (serve.proc.kill(), serve.proc.exited));
    const ask = (path: string, init: RequestInit = {}) =>
      serve.fetch(serve.url + path, {
        ...init,
        headers: { "x-api-key": source.key, "content-type": "application/json" },
      });
    // The cursor was signed by the SQLite server: the copied secret makes it valid here.
    const next = (await (
      await ask(`/api/v1/forms/${source.formId}/submissions?limit=10&cursor=${encodeURIComponent(source.cursor)}`)
    ).json()) as { submissions: { id: string }[] };
    expect(next.submissions).toHaveLength(4);
    expect(next.submissions.map((s) => s.id)).not.toContain(source.firstPage[0]);
    // New rows take ids after the copied ones (outbox, audit): the submit and its queued messages commit.
    const submitted = await ask("/api/v1/forms/submit", {
      method: "POST",
      body: JSON.stringify({ formId: source.formId, data: { email: "new@example.com" } }),
    });
    expect(submitted.status).toBe(200);
    const form = (await (await ask(`/api/v1/forms/${source.formId}`)).json()) as { submissionCount: number };
    expect(form.submissionCount).toBe(8);
  }, 60_000);

  test("refuses a SQLite file that is not there, and creates none", async () => {
    const dir = tempDir();
    stops.push(dir.cleanup);
    const missing = join(dir.dir, "typo.db");
    const res = await runCliAsync(["copy-to", await (await testPostgres()).newDatabase()], { db: missing });
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain(`there is no SQLite database at ${missing}`);
    expect(existsSync(missing)).toBe(false);
  });

  test("refuses a PostgreSQL database that already holds data, and changes nothing in it", async () => {
    const source = await sqliteWithData();
    const url = await (await testPostgres()).newDatabase();
    expect((await runCliAsync(["copy-to", url], { db: source.db })).code).toBe(0);
    const again = await runCliAsync(["copy-to", url], { db: source.db });
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain("already holds data");
    expect(again.stderr).not.toContain(new URL(url).password);
    const counts = cliJson<{ submissionCount: number }[]>(["forms", "list"], { db: url });
    expect(counts.map((f) => f.submissionCount)).toEqual([7]);
  }, 60_000);
});
