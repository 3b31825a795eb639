import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { runCli, runCliAsync, startTestServer, tempDir, type TestServer } from "../helpers/harness";
import { login, PASSWORD, session } from "../helpers/accounts";
import { testDatabase } from "../helpers/engine";

const scratch = tempDir();
afterAll(() => scratch.cleanup());
let n = 0;
const freshDb = () => testDatabase(scratch.dir, `owners-${++n}.db`);

/** The owner's row as another process sees the file. */
async function ownerRow(server: TestServer, email: string) {
  return (
    await server.query<{ email: string; password_hash: string | null }>(
      "SELECT email, password_hash FROM owners WHERE email = ?",
      email,
    )
  )[0];
}

describe("formsvc owners set-password", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  test("with --password-stdin stores an argon2id hash of the password, without stdin's trailing newline, and creates a new owner", async () => {
    const res = await runCliAsync(["owners", "set-password", "New@Example.com", "--password-stdin", "--json"], {
      db: server.db,
      stdin: `${PASSWORD}\n`,
    });
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toEqual({ owner: "new@example.com", ownerCreated: true, sessionsEnded: 0 });
    const row = (await ownerRow(server, "new@example.com"))!;
    expect(row.password_hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/);
    expect(row.password_hash).not.toContain(PASSWORD);
    expect((await login(server, "new@example.com", PASSWORD)).status).toBe(200);
    expect((await login(server, "new@example.com", `${PASSWORD}\n`)).status).toBe(401);
  });

  test("drops only one trailing newline: the rest of stdin is the password, spaces included", async () => {
    const password = ` ${PASSWORD} \n`;
    const res = await runCliAsync(["owners", "set-password", "spaces@example.com", "--password-stdin"], {
      db: server.db,
      stdin: `${password}\n`,
    });
    expect(res.code).toBe(0);
    expect(res.stdout).toContain("Password set for spaces@example.com (a new owner).");
    expect((await login(server, "spaces@example.com", password)).status).toBe(200);
    expect((await login(server, "spaces@example.com", PASSWORD)).status).toBe(401);
  });

  test("refuses without a terminal and without --password-stdin, saying how to pipe the password, and changes nothing", async () => {
    const db = await freshDb();
    const res = runCli(["owners", "set-password", "me@example.com"], { db });
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain("no terminal to ask for the password on");
    expect(res.stderr).toContain("--password-stdin");
    expect(JSON.parse(runCli(["keys", "list", "--json"], { db }).stdout)).toEqual([]);
    const init = runCli(["init", "--owner", "me@example.com", "--json"], { db });
    expect(JSON.parse(init.stdout).created).toBe(true);
  });

  test("refuses a password shorter than 12 characters and creates no owner", async () => {
    const res = await runCliAsync(["owners", "set-password", "short@example.com", "--password-stdin"], {
      db: server.db,
      stdin: "elevenchars\n",
    });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain("at least 12 characters");
    expect(await ownerRow(server, "short@example.com")).toBeUndefined();
  });

  test("a new password ends the owner's sessions in a running server; the new one logs in", async () => {
    await runCliAsync(["owners", "set-password", "change@example.com", "--password-stdin"], {
      db: server.db,
      stdin: PASSWORD,
    });
    const { cookie } = await login(server, "change@example.com");
    expect((await server.json("/api/v1/auth/me", { headers: session(server, cookie!) })).status).toBe(200);
    const res = await runCliAsync(["owners", "set-password", "change@example.com", "--password-stdin", "--json"], {
      db: server.db,
      stdin: `another ${PASSWORD}\n`,
    });
    expect(JSON.parse(res.stdout)).toEqual({ owner: "change@example.com", ownerCreated: false, sessionsEnded: 1 });
    expect((await server.json("/api/v1/auth/me", { headers: session(server, cookie!) })).status).toBe(401);
    expect((await login(server, "change@example.com", PASSWORD)).status).toBe(401);
    expect((await login(server, "change@example.com", `another ${PASSWORD}`)).status).toBe(200);
  });
});

describe("formsvc init", () => {
  test("without a terminal says how to set a password, and never waits for one", async () => {
    const res = runCli(["init", "--owner", "me@example.com"], { db: await freshDb() });
    expect(res.code).toBe(0);
    expect(res.stdout).toContain(
      "The dashboard shows this form to me@example.com alone, once it has a password (the setup link that serve prints makes a separate owner): npx bun src/main.ts owners set-password me@example.com",
    );
  });

  test("with --json keeps stdout to JSON and says how to set a password on stderr", async () => {
    const res = runCli(["init", "--owner", "me@example.com", "--json"], { db: await freshDb() });
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout).created).toBe(true);
    expect(res.stderr).toContain("owners set-password me@example.com");
  });
});
