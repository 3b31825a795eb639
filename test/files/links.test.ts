import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { seedOwner, startTestServer, tempDir, type Owner, type TestServer } from "../helpers/harness";
import type { Clock } from "../../src/lib/clock";

const PDF = Buffer.from("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n");
const DAY = 86_400_000;

describe("signed download links, and the files setting over HTTP", () => {
  const own = tempDir();
  let server: TestServer;
  let owner: Owner;
  let now = Date.parse("2030-01-01T00:00:00Z");
  const clock: Clock = { now: () => now } as Clock;
  beforeAll(async () => {
    // The store in the test's own folder on either engine (on PostgreSQL the default is ./data/files).
    server = await startTestServer({
      dir: own.dir,
      clock,
      config: { rateLimit: 100_000, files: join(own.dir, "files") },
    });
    owner = await seedOwner(server, "links@example.com");
  });
  afterAll(async () => {
    await server.close();
    own.cleanup();
  });

  test("PATCH takes files: {} as the defaults, and Get Form shows them", async () => {
    const res = await server.send("PATCH", `/forms/${owner.formId}`, owner.key, { files: {} });
    expect(res.status).toBe(200);
    expect(res.body.files).toMatchObject({ maxFileBytes: 10485760, maxFiles: 5, maxTotalBytes: 26214400 });
    expect(res.body.files.types).toEqual(expect.arrayContaining(["image/*", "application/pdf", "text/plain"]));
    const bad = await server.send("PATCH", `/forms/${owner.formId}`, owner.key, { files: { types: ["not a type"] } });
    expect(bad.status).toBe(400);
  });

  test("a signed link works without a key until it expires; a changed one is 403", async () => {
    const form = new FormData();
    form.append("formId", owner.formId);
    form.append("cv", new Blob([PDF]), "cv.pdf");
    const res = await server.json("/api/v1/forms/submit", { method: "POST", key: owner.key, body: form });
    expect(res.status).toBe(200);
    const [row] = await server.query("SELECT id FROM files WHERE submission_id = ?", res.body.submissionId);
    const path = server.services.files.signedPath(row.id, res.body.submissionId);
    const ok = await server.request(path);
    expect(ok.status).toBe(200);
    expect(Buffer.from(await ok.arrayBuffer()).equals(PDF)).toBe(true);
    const url = new URL(path, server.url);
    const changed: string[] = [
      path.replace(/signature=./, (m) => `signature=${m.endsWith("A") ? "B" : "A"}`),
      `${url.pathname}?expires=${Number(url.searchParams.get("expires")) + 1}&signature=${url.searchParams.get("signature")}`,
    ];
    for (const p of changed) expect((await server.json(p)).status).toBe(403);
    now += 7 * DAY + 1000;
    expect((await server.json(path)).status).toBe(403);
  });

  test("the orphan sweep removes a pending file older than an hour, and keeps a younger one", async () => {
    const files = server.services.files;
    const dir = join(own.dir, "files");
    const count = () => readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length;
    // A file whose submission never committed: written to the store, its row left pending.
    await server.exec(
      "INSERT INTO files (id, team_id, key, field, name, type, size, sha256, state, created_at) VALUES ('fil_old', 'tm_x', 'tm_x/fil_old', 'f', 'a', 'text/plain', 1, '', 'pending', ?)",
      new Date(now - 2 * 3600_000).toISOString(),
    );
    await server.exec(
      "INSERT INTO files (id, team_id, key, field, name, type, size, sha256, state, created_at) VALUES ('fil_new', 'tm_x', 'tm_x/fil_new', 'f', 'a', 'text/plain', 1, '', 'pending', ?)",
      new Date(now - 60_000).toISOString(),
    );
    await files.store.put("tm_x/fil_old", new Uint8Array([1]));
    await files.store.put("tm_x/fil_new", new Uint8Array([1]));
    const before = count();
    expect(await files.removeUnattached()).toBe(1);
    expect(count()).toBe(before - 1);
    expect((await server.query("SELECT id FROM files WHERE team_id = 'tm_x'")).map((r) => r.id)).toEqual(["fil_new"]);
  });
});
