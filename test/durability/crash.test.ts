import { expect, test } from "bun:test";
import { onSqlite, testDatabase } from "../helpers/engine";
import { cliJson, readDatabase, spawnServe, tempDir } from "../helpers/harness";
import { droppedAsNull } from "../helpers/openapi-check";

test("every acknowledged submission survives a SIGKILL in the middle of a stream of submissions", async () => {
  const { dir, cleanup } = tempDir();
  const db = await testDatabase(dir, "crash.db");
  try {
    const key = cliJson(["keys", "create", "--owner", "crash@example.com"], { db }).key as string;
    const formId = cliJson(
      ["forms", "create", "--owner", "crash@example.com", "--name", "Crash", "--type", "waitlist", "--users-joined"],
      { db },
    ).id as string;
    const server = await spawnServe(db, { FORMSVC_RATE_LIMIT: "1000000" });
    const acknowledged: string[] = [];
    let stop = false;
    const client = async (n: number) => {
      for (let i = 0; i < 400 && !stop; i++) {
        const res = await server
          .fetch(`${server.url}/api/v1/forms/submit`, {
            method: "POST",
            headers: { "x-api-key": key, "content-type": "application/json" },
            body: JSON.stringify({ formId, data: { email: `c${n}-${i}@example.com`, client: n, i } }),
          })
          .catch(droppedAsNull);
        if (!res) return;
        if (res.status === 200) acknowledged.push((await res.json()).submissionId);
      }
    };
    const clients = Promise.all(Array.from({ length: 16 }, (_, n) => client(n)));
    while (acknowledged.length < 200) await Bun.sleep(5);
    server.proc.kill("SIGKILL");
    stop = true;
    await clients;
    await server.proc.exited;
    expect(acknowledged.length).toBeGreaterThanOrEqual(200);

    // The restarted server recovers (SQLite: from the WAL); every acknowledged id must be there.
    const again = await spawnServe(db);
    const res = await again.fetch(`${again.url}/api/v1/forms/${formId}`, { headers: { "x-api-key": key } });
    const form = await res.json();
    again.proc.kill("SIGTERM");
    expect(await again.proc.exited).toBe(0);

    const stored = new Set((await readDatabase<{ id: string }>(db, "SELECT id FROM submissions")).map((r) => r.id));
    if (onSqlite) expect(await readDatabase(db, "PRAGMA integrity_check")).toEqual([{ integrity_check: "ok" }]);
    const missing = acknowledged.filter((id) => !stored.has(id));
    expect(missing).toEqual([]);
    // Counters were committed with the rows: they agree with what is stored.
    expect(form.submissionCount).toBe(stored.size);
    expect(form.usersJoinedSettings.count).toBe(stored.size);
  } finally {
    cleanup();
  }
});
