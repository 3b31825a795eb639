import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { testDatabase } from "../helpers/engine";
import { runCli, tempDir } from "../helpers/harness";

// Hints must name the command as the operator typed it, which only the compiled binary can show:
// so these tests build one (about a second) and run it through a shell, as a person would.
const scratch = tempDir();
const bin = join(scratch.dir, "bin");
const spaced = join(scratch.dir, "my apps");
let db = 0;
const freshDb = () => testDatabase(scratch.dir, `hints-${++db}.db`);

beforeAll(async () => {
  mkdirSync(bin);
  mkdirSync(spaced);
  const built = await Bun.build({
    entrypoints: [join(import.meta.dir, "../../src/main.ts")],
    compile: { outfile: join(bin, "formsvc") },
  });
  if (!built.success) throw new AggregateError(built.logs, "building the binary failed");
  copyFileSync(join(bin, "formsvc"), join(spaced, "formsvc"));
}, 60_000);
afterAll(() => scratch.cleanup());

/** `line` run by sh in `cwd`, with the test binary's folder first on PATH. */
function shell(line: string, cwd: string) {
  const env = {
    ...(process.env as Record<string, string>),
    PATH: `${bin}:${process.env.PATH}`,
    FORMSVC_LOG_LEVEL: "silent",
  };
  const res = Bun.spawnSync(["sh", "-c", line], { cwd, env, stdout: "pipe", stderr: "pipe" });
  return { code: res.exitCode, stdout: res.stdout.toString(), stderr: res.stderr.toString() };
}

describe("the command named in hints", () => {
  test.each([
    ["./formsvc, from its folder", "./formsvc", () => bin, "./formsvc"],
    ["its absolute path", join(bin, "formsvc"), () => scratch.dir, join(bin, "formsvc")],
    ["its name, found through PATH", "formsvc", () => scratch.dir, "formsvc"],
    ["a path with a space, quoted", `'${join(spaced, "formsvc")}'`, () => scratch.dir, `'${join(spaced, "formsvc")}'`],
  ])("is the binary as it was typed: %s", async (_how, typed, cwd, named) => {
    const db = await freshDb();
    const init = shell(`${typed} --db '${db}' init --owner me@example.com`, cwd());
    expect(init.code).toBe(0);
    expect(init.stdout).toContain(`Start the server:  ${named} serve\n`);
    expect(shell(`${typed} --help`, cwd()).stdout).toContain(`\n  ${named} serve\n`);
    expect(shell(`${typed} keys create --help`, cwd()).stdout).toContain(
      `\n  ${named} keys create --owner you@example.com`,
    );
    expect(shell(`${typed} --db '${await freshDb()}' forms list`, cwd()).stdout).toContain(
      `Create one: ${named} forms create`,
    );
  });

  test("serve's first-run steps name the binary as it was typed", async () => {
    const db = await freshDb();
    expect(shell(`./formsvc --db '${db}' init --owner me@example.com`, bin).code).toBe(0);
    const proc = Bun.spawn(["sh", "-c", `exec ./formsvc --db '${db}' serve --port 0`], {
      cwd: bin,
      stdout: "ignore",
      stderr: "pipe",
    });
    try {
      const reader = proc.stderr.getReader();
      let err = "";
      while (!err.includes("owners set-password")) {
        const { value, done } = await reader.read();
        if (done) break;
        err += new TextDecoder().decode(value);
      }
      expect(err).toContain("to log in as one instead: ./formsvc owners set-password EMAIL");
    } finally {
      proc.kill("SIGTERM");
      await proc.exited;
    }
  });

  test("is `npx bun src/main.ts` from a checkout", async () => {
    const res = runCli(["init", "--owner", "me@example.com"], { db: await freshDb() });
    expect(res.code).toBe(0);
    expect(res.stdout).toContain("Start the server:  npx bun src/main.ts serve\n");
    expect(runCli(["keys", "create", "--help"]).stdout).toContain(
      "\n  npx bun src/main.ts keys create --owner you@example.com",
    );
  });
});
