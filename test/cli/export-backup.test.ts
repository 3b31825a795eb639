import { beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { onPostgres, onSqlite } from "../helpers/engine";
import { parseCsv } from "../helpers/csv";
import { useServer } from "../helpers/fixture";
import { readDatabase, runCli } from "../helpers/harness";
import { DEFAULT_FILES } from "../../src/modules/files/model";
import { OPERATOR } from "../../src/lib/principal";

const server = useServer();
const owner = server.seed();

const submit = (data: Record<string, unknown>) =>
  server.request("/api/v1/forms/submit", {
    method: "POST",
    key: owner.key,
    headers: {
      "content-type": "application/json",
      "user-agent":
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36",
    },
    body: JSON.stringify({ formId: owner.formId, data }),
  });

beforeAll(async () => {
  for (const data of [
    { name: "Ada", email: "ada@example.com", message: 'says "hi", then\nleaves' },
    { name: "=1+1", extra: { nested: [1, 2] } },
    { name: "+cmd", email: "-x" },
    { name: "@SUM(A1)", note: "\tTabbed" },
  ]) {
    expect((await submit(data)).status).toBe(200);
  }
});

describe("formsvc submissions export", () => {
  test("writes JSON items shaped exactly like the API, oldest first", async () => {
    const res = runCli(["submissions", "export", owner.formId, "--format", "json"], { db: server.db });
    expect(res.code).toBe(0);
    const items = JSON.parse(res.stdout);
    const api = (await server.json(`/api/v1/forms/${owner.formId}/submissions`, { key: owner.key })).body.submissions;
    expect(items).toEqual([...api].reverse());
  });

  test("writes CSV with the union of field names and flattened _meta columns", () => {
    const out = join(server.dir, "export.csv");
    const res = runCli(["submissions", "export", owner.formId, "--out", out], { db: server.db });
    expect(res.code).toBe(0);
    const rows = parseCsv(readFileSync(out, "utf8"));
    expect(rows[0]).toEqual([
      "id",
      "createdAt",
      "name",
      "email",
      "message",
      "extra",
      "note",
      "_meta.browser",
      "_meta.browserVersion",
      "_meta.os",
      "_meta.osVersion",
      "_meta.device",
      "_meta.country",
      "_meta.language",
      "_meta.referrer",
      "spam.score",
      "spam.reasons",
    ]);
    expect(rows.length).toBe(5);
    expect(rows[1]![4]).toBe('says "hi", then\nleaves');
    expect(rows[1]![7]).toBe("Chrome");
    expect(rows[2]![5]).toBe('{"nested":[1,2]}');
  });

  test("neutralises cells a spreadsheet would run as formulas", () => {
    const rows = parseCsv(runCli(["submissions", "export", owner.formId], { db: server.db }).stdout);
    expect(rows[2]![2]).toBe("'=1+1");
    expect(rows[3]![2]).toBe("'+cmd");
    expect(rows[3]![3]).toBe("'-x");
    expect(rows[4]![2]).toBe("'@SUM(A1)");
    expect(rows[4]![6]).toBe("'\tTabbed");
  });

  test("refuses an unknown form and a wrong format", () => {
    const unknown = runCli(["submissions", "export", "frm_nope"], { db: server.db });
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain("does not exist");
    expect(runCli(["submissions", "export", owner.formId, "--format", "xml"], { db: server.db }).code).not.toBe(0);
  });
});

describe("formsvc backup", () => {
  // Backup copies a SQLite file; on PostgreSQL it points to pg_dump (below).
  test.if(onSqlite)(
    "copies the live database while the server is writing, and the copy passes integrity_check",
    async () => {
      const before = (await server.query<{ c: number }>("SELECT count(*) AS c FROM submissions"))[0]!.c;
      const writes = Promise.all(Array.from({ length: 40 }, (_, i) => submit({ i })));
      const file = join(server.dir, "backup.db");
      const res = runCli(["backup", file, "--json"], { db: server.db });
      await writes;
      expect(res.code).toBe(0);
      expect(JSON.parse(res.stdout)).toMatchObject({ file, integrity: "ok" });
      expect(await readDatabase(file, "PRAGMA integrity_check")).toEqual([{ integrity_check: "ok" }]);
      expect(
        (await readDatabase<{ c: number }>(file, "SELECT count(*) AS c FROM submissions"))[0]!.c,
      ).toBeGreaterThanOrEqual(before);
    },
  );

  test.if(onSqlite)("refuses to overwrite an existing file unless --force", () => {
    const file = join(server.dir, "existing.db");
    writeFileSync(file, "keep me");
    const refused = runCli(["backup", file], { db: server.db });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain("--force");
    expect(readFileSync(file, "utf8")).toBe("keep me");
    expect(runCli(["backup", file, "--force"], { db: server.db }).code).toBe(0);
    expect(readFileSync(file).subarray(0, 15).toString()).toBe("SQLite format 3");
  });

  test.if(onSqlite)(
    "says that the uploaded files the database names are not in the copy, and where they are",
    async () => {
      const quiet = runCli(["backup", join(server.dir, "no-uploads.db"), "--json"], { db: server.db });
      expect(JSON.parse(quiet.stdout).uploadsNotIncluded.count).toBe(0);
      expect(runCli(["backup", join(server.dir, "no-uploads.txt")], { db: server.db }).stdout).not.toContain(
        "uploaded",
      );

      await server.services.forms.updateForm(OPERATOR, owner.formId, { files: DEFAULT_FILES });
      const form = new FormData();
      form.append("formId", owner.formId);
      form.append("doc", new Blob(["a letter"]), "letter.txt");
      expect((await server.json("/api/v1/forms/submit", { method: "POST", key: owner.key, body: form })).status).toBe(
        200,
      );
      const res = runCli(["backup", join(server.dir, "with-uploads.db")], { db: server.db });
      expect(res.code).toBe(0);
      expect(res.stdout).toContain("It does not hold the 1 uploaded file the database names (8 bytes)");
      expect(res.stdout).toContain(join(server.dir, "files"));
      expect(res.stdout).toContain("formsvc backups create");
      const json = JSON.parse(
        runCli(["backup", join(server.dir, "with-uploads-2.db"), "--json"], { db: server.db }).stdout,
      );
      expect(json.uploadsNotIncluded).toEqual({ count: 1, bytes: 8, location: join(server.dir, "files") });
    },
  );

  test.if(onPostgres)("on PostgreSQL exits non-zero, says to use pg_dump, and writes no file", () => {
    const file = join(server.dir, "backup.db");
    const res = runCli(["backup", file], { db: server.db });
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain("pg_dump");
    expect(res.stderr).not.toMatch(/^\s+at /m); // a message, not a stack
    expect(existsSync(file)).toBe(false);
  });
});
