import { afterAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { testDatabase } from "../helpers/engine";
import { cliJson, readDatabase, runCli, seedForm, seedKey, startTestServer, tempDir } from "../helpers/harness";

const scratch = tempDir();
const db = await testDatabase(scratch.dir, "cli.db");
afterAll(() => scratch.cleanup());

describe("formsvc keys", () => {
  test("create prints the key once as JSON and stores only its SHA-256", async () => {
    const res = runCli(["keys", "create", "--owner", "Dev@Example.com", "--name", "site", "--json"], { db });
    expect(res.code).toBe(0);
    const key = JSON.parse(res.stdout);
    expect(Object.keys(key).sort()).toEqual([
      "createdAt",
      "forms",
      "id",
      "key",
      "kind",
      "name",
      "owner",
      "role",
      "teamId",
    ]);
    expect(key).toMatchObject({ name: "site", owner: "dev@example.com", kind: "secret", forms: null });
    expect(key.key).toMatch(/^fsk_[A-Za-z0-9_-]{43}$/);
    const [row] = await readDatabase<{ hash: string }>(db, "SELECT hash FROM api_keys WHERE id = ?", key.id);
    const dump = JSON.stringify(await readDatabase(db, "SELECT * FROM api_keys"));
    expect(row!.hash).toBe(createHash("sha256").update(key.key).digest("hex"));
    expect(dump).not.toContain(key.key);
  });

  test("create makes a key in a named team with a role, the owner's personal team and admin by default, and refuses an owner's role", async () => {
    const personal = cliJson(["keys", "create", "--owner", "dev@example.com"], { db });
    const dev = await readDatabase<{ id: string }>(db, "SELECT id FROM owners WHERE email = 'dev@example.com'");
    expect([personal.teamId, personal.role]).toEqual([`tm_${dev[0]!.id.slice(4)}`, "admin"]);
    const team = cliJson(["teams", "create", "Agency", "--owner", "dev@example.com"], { db });
    const key = cliJson(["keys", "create", "--owner", "dev@example.com", "--team", team.id, "--role", "viewer"], {
      db,
    });
    expect([key.teamId, key.role]).toEqual([team.id, "viewer"]);
    const before = await readDatabase(db, "SELECT count(*) AS n FROM api_keys");
    const owner = runCli(["keys", "create", "--owner", "dev@example.com", "--role", "owner"], { db });
    expect(owner.code).not.toBe(0);
    expect(owner.stderr).toContain("viewer, editor or admin");
    const nowhere = runCli(["keys", "create", "--owner", "dev@example.com", "--team", "tm_nope"], { db });
    expect(nowhere.code).not.toBe(0);
    expect(nowhere.stderr).toContain("no team tm_nope");
    expect(await readDatabase(db, "SELECT count(*) AS n FROM api_keys")).toEqual(before);
  });

  test("list never shows a secret, and revoke marks the key inactive", () => {
    const key = cliJson(["keys", "create", "--owner", "dev@example.com"], { db });
    const listed = cliJson<any[]>(["keys", "list", "--owner", "dev@example.com"], { db });
    expect(JSON.stringify(listed)).not.toContain(key.key);
    expect(listed.find((k) => k.id === key.id)).toMatchObject({ active: true, prefix: key.key.slice(0, 12) });
    expect(runCli(["keys", "revoke", key.id], { db }).code).toBe(0);
    expect(cliJson<any[]>(["keys", "list"], { db }).find((k) => k.id === key.id).active).toBe(false);
    const missing = runCli(["keys", "revoke", "key_nope"], { db });
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain("no API key");
  });

  test("refuses an invalid owner email on stderr with a non-zero exit", () => {
    const res = runCli(["keys", "create", "--owner", "not-an-email"], { db });
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain("not a valid email");
    expect(res.stdout).toBe("");
  });
});

describe("formsvc forms", () => {
  test("create, show, update (with --no-… flags), list and delete a form", () => {
    const form = cliJson(
      [
        "forms",
        "create",
        "--owner",
        "dev@example.com",
        "--name",
        "Waitlist",
        "--type",
        "waitlist",
        "--description",
        "Beta",
        "--email-notifications",
        "--users-joined",
      ],
      { db },
    );
    expect(form).toMatchObject({
      name: "Waitlist",
      formType: "waitlist",
      description: "Beta",
      emailSettings: { enabled: true, developerNotificationsEnabled: false },
      usersJoinedSettings: { enabled: true, count: 0 },
    });
    expect(cliJson(["forms", "show", form.id], { db })).toEqual(form);

    const updated = cliJson(
      ["forms", "update", form.id, "--no-email-notifications", "--developer-notifications", "--name", "Beta list"],
      { db },
    );
    expect(updated).toMatchObject({
      name: "Beta list",
      description: "Beta",
      emailSettings: { enabled: false, developerNotificationsEnabled: true },
    });
    expect(cliJson(["forms", "update", form.id, "--no-description"], { db })).toMatchObject({
      name: "Beta list",
      description: "",
    });
    expect(cliJson<any[]>(["forms", "list", "--owner", "dev@example.com"], { db }).map((f) => f.id)).toContain(form.id);
    // A filter that matches no one is an empty list, not an error.
    expect(cliJson(["forms", "list", "--owner", "nobody@example.com", "--json"], { db })).toEqual([]);
    expect(cliJson(["keys", "list", "--owner", "nobody@example.com", "--json"], { db })).toEqual([]);

    const refused = runCli(["forms", "delete", form.id], { db });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain("--yes");
    expect(cliJson(["forms", "show", form.id], { db }).id).toBe(form.id);
    expect(runCli(["forms", "delete", form.id, "--yes"], { db }).code).toBe(0);
    expect(runCli(["forms", "show", form.id], { db }).code).not.toBe(0);
  });

  test("checks each flag by its setting's schema, as the API does, and names the flag: nothing the API refuses is stored", () => {
    const form = cliJson(["forms", "create", "--owner", "dev@example.com", "--name", "Schema", "--type", "waitlist"], {
      db,
    });
    const refused: [string[], string][] = [
      [["--files", '{"maxFiles":2,"bogus":1}'], "(--files, --no-files)"],
      [["--files", '{"types":[]}'], "(--files, --no-files)"],
      [["--from-name", "x".repeat(101)], "(--from-name, --no-from-name)"],
      [["--allowed-origins", 'https://a"b.example'], "(--allowed-origins, --no-allowed-origins)"],
      [["--success-url", "https://user:pass@example.com/"], "(--success-url, --no-success-url)"],
    ];
    for (const [flags, named] of refused) {
      const res = runCli(["forms", "update", form.id, ...flags], { db });
      expect([flags[0], res.code, res.stderr]).toEqual([flags[0], 1, expect.stringContaining(named)]);
    }
    expect(cliJson(["forms", "show", form.id], { db })).toEqual(form);
    expect(cliJson(["forms", "update", form.id, "--from-name", "x".repeat(100)], { db }).fromName).toBe(
      "x".repeat(100),
    );
    // A rule between settings names the flag that mends it.
    const doubled = runCli(["forms", "update", form.id, "--double-opt-in"], { db });
    expect(doubled.code).toBe(0);
    const retyped = runCli(["forms", "update", form.id, "--type", "contact"], { db });
    expect([retyped.code, retyped.stderr]).toEqual([1, expect.stringContaining("--no-double-opt-in")]);
  });

  test("defaults to type custom and refuses an unknown type", () => {
    expect(cliJson(["forms", "create", "--owner", "dev@example.com", "--name", "Plain"], { db }).formType).toBe(
      "custom",
    );
    const bad = runCli(["forms", "create", "--owner", "dev@example.com", "--name", "X", "--type", "poll"], { db });
    expect(bad.code).not.toBe(0);
    // The schema's sentence names the API's field, and the CLI adds the flag that sets it.
    expect(bad.stderr).toContain("formType must be one of");
    expect(bad.stderr).toContain("(--type)");
  });

  test("show --json prints exactly what GET /api/v1/forms/{formId} answers", async () => {
    const server = await startTestServer({ dir: scratch.dir });
    try {
      const key = (await seedKey(server, "api@example.com")).key;
      const id = (
        await seedForm(server, "api@example.com", { name: "Same", formType: "waitlist", usersJoinedEnabled: true })
      ).id;
      const api = await server.json(`/api/v1/forms/${id}`, { key });
      expect(cliJson(["forms", "show", id], { db: server.db })).toEqual(api.body);
    } finally {
      await server.close();
    }
  });
});

describe("the command line", () => {
  test("takes the database from --db or FORMSVC_DB", async () => {
    const a = await testDatabase(scratch.dir, "a.db");
    const b = await testDatabase(scratch.dir, "b.db");
    cliJson(["--db", a, "forms", "create", "--owner", "x@example.com", "--name", "in a"]);
    cliJson(["forms", "create", "--owner", "x@example.com", "--name", "in b"], { env: { FORMSVC_DB: b } });
    expect(cliJson<any[]>(["--db", a, "forms", "list"]).map((f) => f.name)).toEqual(["in a"]);
    expect(cliJson<any[]>(["forms", "list"], { env: { FORMSVC_DB: b } }).map((f) => f.name)).toEqual(["in b"]);
  });

  test("--help teaches with examples and exits 0; an unknown command exits non-zero", () => {
    const help = runCli(["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Getting started");
    expect(help.stdout).toContain("/f/{formId}");
    expect(runCli(["forms", "create", "--help"]).stdout).toContain("Example");
    expect(runCli(["frobnicate"]).code).not.toBe(0);
  });
});
