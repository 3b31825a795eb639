import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { onSqlite } from "../helpers/engine";
import { runCli, seedOwner, startTestServer, tempDir } from "../helpers/harness";

// Files at rest hold every submission: their owner's only, whatever umask the process was given.
const modeOf = (path: string) => statSync(path).mode & 0o777;
let umask: number;
beforeAll(() => {
  umask = process.umask(0o022);
});
afterAll(() => {
  process.umask(umask);
});

describe.if(onSqlite)("files at rest under umask 022", () => {
  test("a served database, its WAL and -shm, and the folders made for them are 0600 and 0700", async () => {
    const { dir, cleanup } = tempDir();
    try {
      const db = join(dir, "state", "nested", "formsvc.db");
      const server = await startTestServer({ dir, db });
      try {
        const { key, formId } = await seedOwner(server);
        const res = await server.request("/api/v1/forms/submit", {
          method: "POST",
          key,
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ formId, data: { a: 1 } }),
        });
        expect(res.status).toBe(200);
        const files = [db, `${db}-wal`, `${db}-shm`];
        expect(files.map((f) => [f, existsSync(f) && modeOf(f)])).toEqual(files.map((f) => [f, 0o600]));
        expect([modeOf(join(dir, "state")), modeOf(join(dir, "state", "nested"))]).toEqual([0o700, 0o700]);
      } finally {
        await server.close();
      }
    } finally {
      cleanup();
    }
  });

  test("formsvc backup writes a 0600 copy, in new folders of 0700", () => {
    const { dir, cleanup } = tempDir();
    try {
      const db = join(dir, "formsvc.db");
      expect(runCli(["forms", "list"], { db }).code).toBe(0);
      const copy = join(dir, "backups", "daily", "copy.db");
      const res = runCli(["backup", copy], { db });
      expect(res.code).toBe(0);
      expect([modeOf(copy), modeOf(join(dir, "backups")), modeOf(join(dir, "backups", "daily"))]).toEqual([
        0o600, 0o700, 0o700,
      ]);
      // --force replaces an existing copy with a private one too.
      chmodSync(copy, 0o644);
      expect(runCli(["backup", copy, "--force"], { db }).code).toBe(0);
      expect(modeOf(copy)).toBe(0o600);
    } finally {
      cleanup();
    }
  });

  test("an existing database that others may read is tightened to 0600 when opened, and says so", () => {
    const { dir, cleanup } = tempDir();
    try {
      const db = join(dir, "formsvc.db");
      expect(runCli(["forms", "list"], { db }).code).toBe(0);
      chmodSync(db, 0o644);
      writeFileSync(`${db}-wal`, "", { mode: 0o666 });
      chmodSync(`${db}-wal`, 0o664);
      const res = runCli(["forms", "list"], { db });
      expect(res.code).toBe(0);
      // The -wal is folded into the database and removed when the command closes it: its tightening shows in the message.
      expect(modeOf(db)).toBe(0o600);
      expect(res.stderr).toContain(`${db} was readable by others (mode 644); now 600`);
      expect(res.stderr).toContain(`${db}-wal was readable by others (mode 664); now 600`);
    } finally {
      cleanup();
    }
  });
});
