import { afterAll, describe, expect, test } from "bun:test";
import { testDatabase } from "../helpers/engine";
import { cliJson, runCli, tempDir } from "../helpers/harness";

const scratch = tempDir();
afterAll(() => scratch.cleanup());
let n = 0;
const freshDb = () => testDatabase(scratch.dir, `init-${++n}.db`);

/** How many keys (active or not) and forms the database holds for the owner. */
function holdings(db: string, owner: string) {
  return {
    keys: cliJson<unknown[]>(["keys", "list", "--owner", owner], { db }).length,
    forms: cliJson<unknown[]>(["forms", "list", "--owner", owner], { db }).length,
  };
}

describe("formsvc init", () => {
  test("a first run keeps its JSON shape, adding only created: true", async () => {
    const first = cliJson(["init", "--owner", "me@example.com"], { db: await freshDb() });
    expect(Object.keys(first).sort()).toEqual(["created", "examples", "form", "key", "owner"]);
    expect(first.created).toBe(true);
    expect(first.key.key).toStartWith("fsk_");
  });

  test("says that the dashboard shows its form to its owner alone, once that owner has a password, and how to set one", async () => {
    const res = runCli(["init", "--owner", "me@example.com"], { db: await freshDb() });
    expect(res.code).toBe(0);
    const note =
      "The dashboard shows this form to me@example.com alone, once it has a password (the setup link that serve prints makes a separate owner)";
    expect(res.stdout).toContain(`${note}: npx bun src/main.ts owners set-password me@example.com\n`);
    // With --json the note goes to stderr, and stdout stays JSON.
    const json = runCli(["init", "--owner", "you@example.com", "--json"], { db: await freshDb() });
    expect(JSON.parse(json.stdout).created).toBe(true);
    expect(json.stderr).toContain("The dashboard shows this form to you@example.com alone, once it has a password");
  });

  test("run again for the same owner it changes nothing, exits 0 and says what exists and what to run instead", async () => {
    const db = await freshDb();
    cliJson(["init", "--owner", "me@example.com"], { db });
    const again = runCli(["init", "--owner", "Me@Example.com"], { db });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(
      "Owner me@example.com already exists, with 1 active API key and 1 form; nothing was changed.",
    );
    expect(again.stdout).toContain("npx bun src/main.ts keys create --owner me@example.com\n");
    expect(again.stdout).toContain("npx bun src/main.ts init --owner me@example.com --force\n");
    expect(again.stdout).not.toContain("fsk_");
    expect(holdings(db, "me@example.com")).toEqual({ keys: 1, forms: 1 });
  });

  test("with --json, an owner that exists is reported as created: false with its active keys and forms", async () => {
    const db = await freshDb();
    cliJson(["init", "--owner", "me@example.com"], { db });
    cliJson(["forms", "create", "--owner", "me@example.com", "--name", "Second"], { db });
    const extra = cliJson(["keys", "create", "--owner", "me@example.com"], { db });
    expect(runCli(["keys", "revoke", extra.id], { db }).code).toBe(0);
    expect(cliJson(["init", "--owner", "me@example.com"], { db })).toEqual({
      owner: "me@example.com",
      created: false,
      keys: 1,
      forms: 2,
    });
    expect(holdings(db, "me@example.com")).toEqual({ keys: 2, forms: 2 });
  });

  test("an owner that exists without a key is reported too, with how to make one", async () => {
    const db = await freshDb();
    cliJson(["forms", "create", "--owner", "me@example.com", "--name", "Only a form"], { db });
    const res = runCli(["init", "--owner", "me@example.com"], { db });
    expect(res.code).toBe(0);
    expect(res.stdout).toContain("with 0 active API keys and 1 form; nothing was changed");
    expect(res.stdout).toContain("keys create --owner me@example.com");
    expect(holdings(db, "me@example.com")).toEqual({ keys: 0, forms: 1 });
  });

  test("--force makes another key and sample form for an owner that exists, as a first run does", async () => {
    const db = await freshDb();
    const first = cliJson(["init", "--owner", "me@example.com"], { db });
    const forced = cliJson(["init", "--owner", "me@example.com", "--force"], { db });
    expect(Object.keys(forced).sort()).toEqual(Object.keys(first).sort());
    expect(forced).toMatchObject({ owner: "me@example.com", created: true });
    expect(forced.key.id).not.toBe(first.key.id);
    expect(forced.form.id).not.toBe(first.form.id);
    expect(holdings(db, "me@example.com")).toEqual({ keys: 2, forms: 2 });
    // Another owner on the same database is a first run of its own.
    expect(cliJson(["init", "--owner", "you@example.com"], { db }).created).toBe(true);
  });
});
