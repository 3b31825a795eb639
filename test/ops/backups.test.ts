import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ConfigOverrides } from "../../src/config";
import { withPassword } from "../helpers/accounts";
import { onPostgres } from "../helpers/engine";
import { cleanupAfterEach } from "../helpers/fixture";
import { cliJsonAsync, runCliAsync, seedOwner, startTestServer, tempDir, type TestServer } from "../helpers/harness";
import { startS3, type S3Server } from "../helpers/s3";
import { openObjectStore } from "../../src/lib/object-store";
import { OPERATOR } from "../../src/lib/principal";
import { DEFAULT_FILES } from "../../src/modules/files/model";
import { startSmtpSink } from "../helpers/smtp-sink";

// The modes below must come from formsvc itself, not from a strict umask of the machine running the tests.
process.umask(0o022);

const defer = cleanupAfterEach();
const BACKUP_NAME = /^formsvc-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}Z\.db\.zst$/;
// A schedule that never comes round during a test: the job exists, and tests run it with jobs.run("backup").
const NEVER = "0 0 0 1 1 *";

async function serve(config: ConfigOverrides) {
  const dir = tempDir();
  const server = await startTestServer({ dir: dir.dir, config });
  defer(dir.cleanup);
  defer(() => server.close());
  return server;
}

const until = async (what: string, check: () => boolean | Promise<boolean>, timeoutMs = 15_000) => {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(50);
  }
};

const submissionIds = (file: string) => {
  const db = new Database(file, { readonly: true });
  try {
    return new Set(
      db
        .query<{ id: string }, []>("SELECT id FROM submissions")
        .all()
        .map((r) => r.id),
    );
  } finally {
    db.close();
  }
};

const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);

describe.skipIf(onPostgres)("scheduled backups (SQLite)", () => {
  test("a schedule of seconds makes backups named by UTC time, pruned to KEEP, 0600 in a 0700 folder", async () => {
    const server = await serve({ backupSchedule: "* * * * * *", backupKeep: 2 });
    await seedOwner(server);
    const folder = join(server.dir, "backups");
    const made = new Set<string>();
    await until("four backups", () => {
      for (const name of existsSync(folder) ? readdirSync(folder) : []) made.add(name);
      return made.size >= 4;
    });
    await server.jobs.stop();
    const kept = readdirSync(folder).filter((n) => BACKUP_NAME.test(n));
    // One may have finished between the last look and the stop.
    for (const name of kept) made.add(name);
    expect(kept.length).toBe(2);
    // The two kept are the newest made.
    expect(kept.sort()).toEqual(
      [...made]
        .filter((n) => BACKUP_NAME.test(n))
        .sort()
        .slice(-2),
    );
    expect(mode(folder)).toBe("700");
    for (const name of kept) expect(mode(join(folder, name))).toBe("600");
    const health = (await server.json("/healthz")).body;
    expect(health.lastBackup).toEqual({ at: expect.any(String), ok: true });
    const listed = await cliJsonAsync(["backups", "list"], { db: server.db });
    const newestFirst = [...kept].sort().reverse();
    expect(listed.map((b: { name: string }) => b.name)).toEqual(newestFirst);
    expect(listed[0]).toEqual({
      name: newestFirst[0],
      at: expect.stringMatching(/Z$/),
      bytes: expect.any(Number),
      files: 0,
    });
  });

  test("after a restart /healthz shows the newest backup in the store until the server makes its own", async () => {
    const dir = tempDir();
    defer(dir.cleanup);
    const first = await startTestServer({ dir: dir.dir, config: { backupSchedule: NEVER } });
    await seedOwner(first);
    await first.jobs.run("backup");
    const made = (await first.json("/healthz")).body.lastBackup;
    expect(made).toEqual({ at: expect.any(String), ok: true });
    await first.close();
    const again = await startTestServer({ dir: dir.dir, db: first.db, config: { backupSchedule: NEVER } });
    defer(() => again.close());
    await until("the newest backup recalled", async () => (await again.json("/healthz")).body.lastBackup !== null);
    // Named to the second, and made at that second: the time read back from the name is the backup's own.
    expect((await again.json("/healthz")).body.lastBackup).toEqual({ at: made.at, ok: true });
  });

  test("a backup taken under a load of submits restores, passes integrity_check, and holds every submission acknowledged before it began", async () => {
    const server = await serve({ rateLimit: 1_000_000, backupKeep: 3 });
    const owner = await seedOwner(server);
    const acknowledged: string[] = [];
    let stop = false;
    const writer = async () => {
      for (let i = 0; !stop; i++) {
        const res = await server.submit(owner.key, owner.formId, { message: `load ${i}` });
        expect(res.status).toBe(200);
        acknowledged.push(res.body.submissionId);
      }
    };
    const writers = Array.from({ length: 8 }, writer);
    await until("some submissions", () => acknowledged.length >= 200);
    const before = [...acknowledged];
    const made = await server.services.backups.create();
    const during = acknowledged.length - before.length;
    await until("more submissions after the backup", () => acknowledged.length >= before.length + during + 50);
    stop = true;
    await Promise.all(writers);

    const target = join(server.dir, "restored", "formsvc.db");
    const restored = await cliJsonAsync(["restore", made.name, "--db", target], { db: server.db });
    expect(restored).toMatchObject({ db: target, integrity: "ok", forms: 1, owners: 1 });
    const ids = submissionIds(target);
    expect(before.filter((id) => !ids.has(id))).toEqual([]);
    expect(restored.submissions).toBe(ids.size);
    expect(mode(target)).toBe("600");
    expect(mode(join(server.dir, "restored"))).toBe("700");
  });

  test.each([
    ["a database file", (path: string) => writeFileSync(path, "already here")],
    ["only a write-ahead log", (path: string) => writeFileSync(`${path}-wal`, "already here")],
  ])("restore is refused onto a path where %s is, and writes nothing", async (_what, occupy) => {
    const server = await serve({});
    await seedOwner(server);
    const { name } = await server.services.backups.create();
    const target = join(server.dir, "taken.db");
    occupy(target);
    const before = readdirSync(server.dir).sort();
    const res = await runCliAsync(["restore", name, "--db", target], { db: server.db });
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain("restore into a path where no database is");
    expect(readdirSync(server.dir).sort()).toEqual(before);
    const occupied = existsSync(target) ? target : `${target}-wal`;
    expect(readFileSync(occupied, "utf8")).toBe("already here");
  });

  test("a backup to an S3-compatible server, listed and restored from it by name", async () => {
    const s3 = await startS3();
    defer(() => s3.stop());
    const location = `s3://${s3.bucket}/nightly`;
    const server = await serve({ backupTo: location, backupKeep: 1, ...s3.settings });
    const owner = await seedOwner(server);
    for (let i = 0; i < 3; i++) expect((await server.submit(owner.key, owner.formId, { n: i })).status).toBe(200);
    const env = { ...s3.env, FORMSVC_BACKUP_TO: location, FORMSVC_BACKUP_KEEP: "1" };
    const first = await cliJsonAsync(["backups", "create"], { db: server.db, env });
    expect(first).toMatchObject({ name: expect.stringMatching(BACKUP_NAME), location, integrity: "ok", pruned: [] });
    await Bun.sleep(1100); // the next second, so the next backup has a name of its own
    const second = await cliJsonAsync(["backups", "create"], { db: server.db, env });
    expect(second.pruned).toEqual([first.name]);
    expect(await cliJsonAsync(["backups", "list"], { db: server.db, env })).toEqual([
      { name: second.name, at: expect.any(String), bytes: second.bytes, files: 0 },
    ]);

    const target = join(server.dir, "from-s3.db");
    const restored = await cliJsonAsync(["restore", second.name, "--db", target], { db: server.db, env });
    expect(restored).toMatchObject({ from: `${location}/${second.name}`, integrity: "ok", submissions: 3 });
    expect(submissionIds(target).size).toBe(3);
  });

  const FILES_CASES = [
    {
      store: "a folder (the defaults: backups/ and files/ beside the database)",
      config: (_s3: S3Server): ConfigOverrides => ({}),
      env: () => ({}),
      restoredFiles: (target: string) => join(target, "..", "files"),
    },
    {
      store: "an S3-compatible server (s3rver), files restored to another prefix",
      config: (s3: S3Server): ConfigOverrides => ({
        backupTo: `s3://${s3.bucket}/nightly`,
        files: `s3://${s3.bucket}/uploads`,
        ...s3.settings,
      }),
      env: (s3: S3Server) => ({
        ...s3.env,
        FORMSVC_BACKUP_TO: `s3://${s3.bucket}/nightly`,
        FORMSVC_FILES: `s3://${s3.bucket}/restored`,
      }),
      restoredFiles: (_target: string, s3: S3Server) => `s3://${s3.bucket}/restored`,
    },
  ];

  test.each(FILES_CASES)(
    "a backup carries the uploaded files ($store): restored into a fresh path, each is downloadable from a server on it, and pruning takes a backup's files with it",
    async ({ config, env: envOf, restoredFiles }) => {
      const s3 = await startS3();
      defer(() => s3.stop());
      const server = await serve({ ...config(s3), backupKeep: 1, rateLimit: 100_000 });
      const owner = await seedOwner(server);
      await server.services.forms.updateForm(OPERATOR, owner.formId, {
        files: { ...DEFAULT_FILES, maxFileBytes: 1_000_000, types: ["application/pdf", "application/octet-stream"] },
      });
      const upload = async (name: string, bytes: Uint8Array) => {
        const form = new FormData();
        form.append("formId", owner.formId);
        form.append("doc", new Blob([bytes as Uint8Array<ArrayBuffer>]), name);
        const res = await server.json("/api/v1/forms/submit", { method: "POST", key: owner.key, body: form });
        expect(res.status).toBe(200);
        const [row] = await server.query("SELECT data FROM submissions WHERE id = ?", res.body.submissionId);
        return { submissionId: res.body.submissionId as string, file: JSON.parse(row.data).doc.file as string, bytes };
      };
      const pdf = Buffer.from("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n");
      // Several chunks of a stream, and bytes no compression shrinks.
      const big = crypto.getRandomValues(new Uint8Array(600_000));
      const first = await upload("one.pdf", pdf);
      const firstBackup = await server.services.backups.create();
      expect(firstBackup).toMatchObject({ files: 1, filesMissing: 0 });
      await Bun.sleep(1100); // the next second, so the next backup has a name of its own
      const uploaded = [first, await upload("two.bin", big)];
      const made = await server.services.backups.create();
      expect(made).toMatchObject({ files: 2, filesMissing: 0, pruned: [firstBackup.name] });
      const env = envOf(s3);
      const listed = await cliJsonAsync(["backups", "list"], { db: server.db, env });
      expect(listed).toEqual([{ name: made.name, at: expect.any(String), bytes: made.bytes, files: 2 }]);
      // The pruned backup's files went with it.
      const backupStore = openObjectStore(
        (config(s3).backupTo as string | undefined) ?? join(server.dir, "backups"),
        s3.settings,
      );
      const left: string[] = [];
      for await (const o of backupStore.list("")) left.push(o.key);
      expect(left.filter((k) => k.startsWith(firstBackup.name.replace(".db.zst", "")))).toEqual([]);
      expect(left.filter((k) => k.includes("/")).length).toBe(2);

      const target = join(server.dir, "restored", "formsvc.db");
      const restored = await cliJsonAsync(["restore", made.name, "--db", target], { db: server.db, env });
      expect(restored).toMatchObject({
        db: target,
        integrity: "ok",
        files: 2,
        filesTo: restoredFiles(target, s3).replace(/\/restored\/\.\.\//, "/"),
        filesMissing: [],
      });
      const again = await startTestServer({
        db: target,
        dir: join(server.dir, "restored"),
        config: { ...config(s3), ...(config(s3).files ? { files: restoredFiles(target, s3) } : {}) },
      });
      defer(() => again.close());
      for (const u of uploaded) {
        const res = await again.request(`/api/v1/forms/${owner.formId}/submissions/${u.submissionId}/files/${u.file}`, {
          key: owner.key,
        });
        expect(res.status).toBe(200);
        expect(Buffer.from(await res.arrayBuffer()).equals(Buffer.from(u.bytes))).toBe(true);
      }
    },
  );

  test.each(FILES_CASES)(
    "scheduled backups pruned to KEEP take everything of a pruned backup with them, files left by a prune cut short too, and nothing of a kept one ($store)",
    async ({ config }) => {
      const s3 = await startS3();
      defer(() => s3.stop());
      const server = await serve({ ...config(s3), backupSchedule: NEVER, backupKeep: 2, rateLimit: 100_000 });
      const owner = await seedOwner(server);
      await server.services.forms.updateForm(OPERATOR, owner.formId, {
        files: { ...DEFAULT_FILES, types: ["application/octet-stream"] },
      });
      const form = new FormData();
      form.append("formId", owner.formId);
      form.append("doc", new Blob([new Uint8Array(3000).fill(5)]), "a.bin");
      expect((await server.json("/api/v1/forms/submit", { method: "POST", key: owner.key, body: form })).status).toBe(
        200,
      );
      const location = (config(s3).backupTo as string | undefined) ?? join(server.dir, "backups");
      const store = openObjectStore(location, s3.settings);
      // Files whose database is gone: one older than every backup (a prune cut short between the two),
      // one newer (a backup another process is still writing: its database comes last). And a stranger.
      await store.put("formsvc-2020-01-01T00-00-00Z.files/own_1/old", new Uint8Array([1]));
      await store.put("formsvc-2999-01-01T00-00-00Z.files/own_1/writing", new Uint8Array([2]));
      await store.put("notes.txt", new Uint8Array([3]));
      const names: string[] = [];
      for (let i = 0; i < 3; i++) {
        if (i) await Bun.sleep(1100); // the next second, so each backup has a name of its own
        await server.jobs.run("backup");
        names.push((await server.services.backups.list()).map((b) => b.name).find((n) => !names.includes(n))!);
      }
      const stem = (name: string) => name.replace(".db.zst", ".files");
      const kept = names.slice(1);
      const keys: string[] = [];
      for await (const o of store.list("")) keys.push(o.key);
      expect(keys.filter((k) => !k.includes("/")).sort()).toEqual([...kept, "notes.txt"].sort());
      const carried = keys.filter((k) => k.includes("/")).map((k) => k.slice(0, k.indexOf("/")));
      expect([...new Set(carried)].sort()).toEqual(["formsvc-2999-01-01T00-00-00Z.files", ...kept.map(stem)].sort());
      expect(carried.filter((c) => c === stem(kept[0]!) || c === stem(kept[1]!))).toHaveLength(2);
      if (!config(s3).backupTo)
        // No folder of a pruned backup is left in the backup folder, empty or not.
        expect(readdirSync(location).sort()).toEqual(
          [...kept, ...kept.map(stem), "formsvc-2999-01-01T00-00-00Z.files", "notes.txt"].sort(),
        );
    },
  );

  test("a restore refuses a backup whose file does not match its sha256, and leaves nothing behind", async () => {
    const server = await serve({ rateLimit: 100_000 });
    const owner = await seedOwner(server);
    await server.services.forms.updateForm(OPERATOR, owner.formId, {
      files: { ...DEFAULT_FILES, types: ["application/octet-stream"] },
    });
    const form = new FormData();
    form.append("formId", owner.formId);
    form.append("doc", new Blob([new Uint8Array(5000).fill(7)]), "a.bin");
    expect((await server.json("/api/v1/forms/submit", { method: "POST", key: owner.key, body: form })).status).toBe(
      200,
    );
    const made = await server.services.backups.create();
    const carried = join(server.dir, "backups", made.name.replace(".db.zst", ".files"));
    const [ownerDir] = readdirSync(carried);
    const [fileName] = readdirSync(join(carried, ownerDir!));
    writeFileSync(join(carried, ownerDir!, fileName!), new Uint8Array(5000).fill(8));
    const target = join(server.dir, "restored", "formsvc.db");
    const res = await runCliAsync(["restore", made.name, "--db", target], { db: server.db });
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain("does not match its sha256");
    expect(readdirSync(join(server.dir, "restored")).filter((n) => n !== "files")).toEqual([]);
    expect(readdirSync(join(server.dir, "restored", "files", ownerDir!))).toEqual([]);
  });

  test("a failing backup shows in /healthz, counts in /metrics, and emails each owner with a password once", async () => {
    const smtp = await startSmtpSink();
    defer(() => smtp.close());
    const dir = tempDir();
    defer(dir.cleanup);
    // A file where the backup folder should be: no backup can be written there, whoever runs the tests.
    writeFileSync(join(dir.dir, "blocked"), "");
    const server = await startTestServer({
      dir: dir.dir,
      config: { backupSchedule: NEVER, backupTo: join(dir.dir, "blocked", "backups"), smtpUrl: smtp.url },
    });
    defer(() => server.close());
    await withPassword(server, "admin@example.com");
    await seedOwner(server, "keyonly@example.com");
    expect((await server.json("/healthz")).body.lastBackup).toBeNull();

    await server.jobs.run("backup");
    const health = (await server.json("/healthz")).body;
    expect(health.lastBackup).toEqual({ at: expect.any(String), ok: false });
    const metrics = await (await server.request("/metrics")).text();
    expect(metrics).toContain("formsvc_backups_failed_total 1\n");
    const [mail] = await smtp.waitFor(1);
    expect(mail!.to).toMatchObject({ text: "admin@example.com" });
    expect(mail!.subject).toBe("formsvc: a scheduled backup failed");
    expect(mail!.text).toContain("blocked");
    expect(await server.query("SELECT kind, recipient FROM outbox")).toEqual([
      { kind: "backup_alert", recipient: "admin@example.com" },
    ]);
    await Bun.sleep(500);
    expect(smtp.messages.length).toBe(1);
  });
});

describe("backups on PostgreSQL", () => {
  test.each([
    ["backups list", []],
    ["restore", ["restore", "formsvc-2026-11-25T03-00-00Z.db.zst", "--db"]],
  ])("formsvc %s explains to use pg_dump, with a line to copy", async (name, args) => {
    const dir = tempDir();
    defer(dir.cleanup);
    const command = name === "restore" ? [...args, join(dir.dir, "restored.db")] : ["backups", "list"];
    const res = await runCliAsync(command, { env: { FORMSVC_DB: "postgres://formsvc@127.0.0.1:1/formsvc" } });
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain(
      'pg_dump --format=custom --file=formsvc-$(date -u +%Y-%m-%dT%H-%M-%SZ).dump "$FORMSVC_DB"',
    );
    expect(existsSync(join(dir.dir, "restored.db"))).toBe(false);
  });
});
