import { Database } from "bun:sqlite";
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { migrate } from "../../src/db/migrate";
import { migrations } from "../../src/db/migrations";
import { openDatabase } from "../../src/db/open";
import { onSqlite, testDatabase } from "../helpers/engine";
import { cliJson, readDatabase, runCli, spawnServe, tempDir } from "../helpers/harness";
import { droppedAsNull } from "../helpers/openapi-check";

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));

async function scratch() {
  const t = tempDir();
  cleanups.push(t.cleanup);
  return { dir: t.dir, db: await testDatabase(t.dir) };
}

async function serve(db: string) {
  const server = await spawnServe(db);
  cleanups.push(() => server.proc.kill("SIGKILL"));
  return server;
}

describe("first run", () => {
  test("init creates an owner, a working key and a sample form, and prints curl examples", async () => {
    const { db } = await scratch();
    const created = cliJson(["init", "--owner", "Me@Example.com"], { db });
    expect(created.owner).toBe("me@example.com");
    expect(created.key.key).toStartWith("fsk_");
    expect(created.form.formType).toBe("contact");
    expect(created.examples.join("\n")).toContain(`"formId":"${created.form.id}"`);

    const server = await serve(db);
    const res = await server.fetch(`${server.url}/api/v1/forms/${created.form.id}`, {
      headers: { "x-api-key": created.key.key },
    });
    expect(res.status).toBe(200);
    server.proc.kill("SIGTERM");
    expect(await server.proc.exited).toBe(0);
  });

  /** serve's stderr from start to a SIGTERM: what it says to a person. */
  async function banner(db: string, env: Record<string, string> = {}): Promise<string> {
    const server = await spawnServe(db, env);
    cleanups.push(() => server.proc.kill("SIGKILL"));
    server.proc.kill("SIGTERM");
    expect(await server.proc.exited).toBe(0);
    return new Response(server.proc.stderr).text();
  }

  test("serve prints one line with the URL on stdout, and on an empty database the one first-run path on stderr", async () => {
    const { db } = await scratch();
    const server = await serve(db);
    server.proc.kill("SIGTERM");
    expect(await server.proc.exited).toBe(0);
    // After that line, stdout is the JSON log only: machine-readable.
    const [first, ...rest] = (await server.allOutput()).trimEnd().split("\n");
    expect(first).toBe(`formsvc listening on ${server.url}`);
    for (const line of rest) expect(JSON.parse(line)).toHaveProperty("level");
    const stderr = await new Response(server.proc.stderr).text();
    expect(stderr).toContain(`formsvc dashboard: ${server.url}/dashboard\n`);
    expect(stderr).toMatch(
      new RegExp(`first run: set the first owner's email and password at ${server.url}/dashboard/setup\\?token=fsu_`),
    );
    expect(stderr).toContain(
      `then create a form in the dashboard and copy its snippet into your page: it posts to ${server.url}/f/{formId}`,
    );
    // One path: no second way in that makes an owner the browser then misses.
    expect(stderr).not.toContain("init --owner");
    expect(stderr).not.toContain("keys create");
    expect(stderr).not.toContain("made on the command line");
  });

  test("after init, the first-run banner says its owner has no password and how to log in as it", async () => {
    const { db } = await scratch();
    cliJson(["init", "--owner", "me@example.com"], { db });
    const stderr = await banner(db);
    expect(stderr).toContain("first run: set the first owner's email and password at");
    expect(stderr).toContain(
      "1 owner made on the command line (init, keys create) has no password, and the link makes a new owner who sees none of their forms;",
    );
    expect(stderr).toContain("to log in as one instead: npx bun src/main.ts owners set-password EMAIL");
  });

  test("once an owner has a password, serve prints no first-run hint: no setup link, no API key hint", async () => {
    const { db } = await scratch();
    expect(
      runCli(["owners", "set-password", "me@example.com", "--password-stdin"], {
        db,
        stdin: "a long enough password\n",
      }).code,
    ).toBe(0);
    const stderr = await banner(db);
    expect(stderr).toContain("formsvc dashboard: ");
    expect(stderr).not.toContain("first run");
    expect(stderr).not.toContain("API key");
    expect(stderr).not.toContain("init --owner");
    expect(stderr).not.toContain("keys create");
  });
});

describe("shutdown", () => {
  test("SIGTERM while submissions are in flight exits 0 and keeps every acknowledged one", async () => {
    const { db } = await scratch();
    const created = cliJson(["init", "--owner", "me@example.com"], { db });
    const server = await serve(db);
    const acknowledged: string[] = [];
    const submit = async () => {
      const res = await server
        .fetch(`${server.url}/api/v1/forms/submit`, {
          method: "POST",
          headers: { "x-api-key": created.key.key, "content-type": "application/json" },
          body: JSON.stringify({ formId: created.form.id, data: { message: "hello" } }),
        })
        .catch(droppedAsNull);
      if (res?.status === 200) acknowledged.push((await res.json()).submissionId);
    };
    const load = Promise.all(
      Array.from({ length: 8 }, async () => {
        for (let i = 0; i < 25; i++) await submit();
      }),
    );
    await Bun.sleep(50);
    server.proc.kill("SIGTERM");
    await load;
    expect(await server.proc.exited).toBe(0);
    expect(acknowledged.length).toBeGreaterThan(0);
    const stored = new Set((await readDatabase<{ id: string }>(db, "SELECT id FROM submissions")).map((r) => r.id));
    for (const id of acknowledged) expect(stored.has(id)).toBe(true);
  });
});

// Snapshots of a SQLite file before its schema is migrated: a PostgreSQL database is the operator's to back up (pg_dump).
describe.if(onSqlite)("upgrades", () => {
  test("a database with pending migrations is snapshotted to backups/ before it is migrated", async () => {
    const { dir, db } = await scratch();
    const old = openDatabase(db);
    migrate(old, migrations.slice(0, 1));
    old.run(
      "INSERT INTO owners (id, email, created_at) VALUES ('own_old', 'old@example.com', '2026-01-01T00:00:00.000Z')",
    );
    old.close();

    const res = runCli(["keys", "list", "--json"], { db });
    expect(res.code).toBe(0);
    expect(res.stderr).toContain("snapshot written to");
    const backups = readdirSync(join(dir, "backups"));
    expect(backups.length).toBe(1);
    const snapshot = new Database(join(dir, "backups", backups[0]!), { readonly: true });
    expect(snapshot.query("SELECT email FROM owners").all()).toEqual([{ email: "old@example.com" }]);
    expect(snapshot.query<{ v: number }, []>("SELECT max(version) AS v FROM schema_migrations").get()!.v).toBe(1);
    snapshot.close();
  });

  test("a new database is created without a snapshot", async () => {
    const { dir, db } = await scratch();
    expect(runCli(["keys", "list"], { db }).code).toBe(0);
    expect(existsSync(join(dir, "backups"))).toBe(false);
  });
});
