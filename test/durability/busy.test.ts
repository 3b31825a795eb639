import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { onSqlite } from "../helpers/engine";
import { seedKey, seedOwner, startTestServer, type TestServer } from "../helpers/harness";

// Another process holding SQLite's write lock (busy_timeout, SQLITE_BUSY): PostgreSQL locks rows, not the database.
describe.if(onSqlite)("a SQLite database another process holds the write lock of", () => {
  let server: TestServer;
  let owner: Awaited<ReturnType<typeof seedOwner>>;

  beforeAll(async () => {
    server = await startTestServer();
    owner = await seedOwner(server);
  });
  afterAll(() => server.close());

  const count = async () => (await server.query<{ c: number }>("SELECT count(*) AS c FROM submissions"))[0]!.c;

  const submit = (message: string) =>
    server.request("/api/v1/forms/submit", {
      method: "POST",
      key: owner.key,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ formId: owner.formId, data: { message } }),
    });

  describe("another connection holding the write lock for a moment", () => {
    test("reads and health answer while a submit waits; the submit is answered and stored once the lock is gone", async () => {
      const before = await count();
      const other = new Database(server.db);
      other.run("BEGIN IMMEDIATE");
      let submitted: Response | undefined;
      const pending = submit("waits for the lock").then((res) => (submitted = res));
      try {
        const answered: string[] = [];
        for (const path of [
          "/healthz",
          `/api/v1/forms/${owner.formId}`,
          `/api/v1/forms/${owner.formId}/submissions`,
          `/api/v1/forms/${owner.formId}/analytics`,
        ]) {
          const res = await server.request(path, { key: owner.key });
          expect([path, res.status]).toEqual([path, 200]);
          await res.text();
          answered.push(path);
        }
        // The event loop was free: every read came back while the submit was still waiting for the lock.
        expect(answered.length).toBe(4);
        expect(submitted).toBeUndefined();
        await Bun.sleep(300);
        expect(submitted).toBeUndefined();
        expect(await count()).toBe(before);
      } finally {
        other.run("COMMIT");
        other.close();
      }
      const res = await pending;
      expect(res.status).toBe(200);
      const { submissionId } = await res.json();
      expect(
        (await server.query("SELECT data FROM submissions WHERE id = ?", submissionId)).map(
          (r) => JSON.parse(r.data).message,
        ),
      ).toEqual(["waits for the lock"]);
      expect(await count()).toBe(before + 1);
    });
  });

  describe("another connection holding the write lock past the 5 s wait", () => {
    test("a submit is answered 503 with Retry-After and stores nothing; reads still answer; it works once the lock is gone", async () => {
      const fresh = (await seedKey(server, owner.ownerEmail)).key;
      const before = await count();
      const other = new Database(server.db);
      other.run("BEGIN EXCLUSIVE");
      try {
        // A key's first use records its last-used time: a hint that must not fail the read.
        expect((await server.request(`/api/v1/forms/${owner.formId}`, { key: fresh })).status).toBe(200);
        const res = await server.request("/api/v1/forms/submit", {
          method: "POST",
          key: owner.key,
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ formId: owner.formId, data: { message: "while locked" } }),
        });
        expect(res.status).toBe(503);
        expect(res.headers.get("retry-after")).toBe("1");
        expect(res.headers.get("x-ratelimit-limit")).not.toBeNull();
        expect((await res.json()).code).toBe("UNAVAILABLE");
      } finally {
        other.run("COMMIT");
        other.close();
      }
      expect(await count()).toBe(before);
      const retry = await server.request("/api/v1/forms/submit", {
        method: "POST",
        key: owner.key,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ formId: owner.formId, data: { message: "after" } }),
      });
      expect(retry.status).toBe(200);
      expect(await count()).toBe(before + 1);
    }, 30_000);
  });
});
