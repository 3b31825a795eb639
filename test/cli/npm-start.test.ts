import { afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { testDatabase } from "../helpers/engine";
import { tempDir } from "../helpers/harness";

const ROOT = join(import.meta.dir, "../..");

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));

/** Every process below `pid`, found with POSIX `ps` (on Linux and macOS alike). */
function descendants(pid: number): number[] {
  const rows = Bun.spawnSync(["ps", "-A", "-o", "pid=,ppid="]).stdout.toString().trim().split("\n");
  const children = new Map<number, number[]>();
  for (const row of rows) {
    const [child, parent] = row.trim().split(/\s+/).map(Number) as [number, number];
    children.set(parent, [...(children.get(parent) ?? []), child]);
  }
  const found: number[] = [];
  for (let queue = [pid]; queue.length;)
    for (const c of children.get(queue.shift()!) ?? []) (found.push(c), queue.push(c));
  return found;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe("npm start", () => {
  test("hands SIGTERM to the server: it drains and exits, and nothing is left running", async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const npm = Bun.spawn(["npm", "start"], {
      cwd: ROOT,
      env: {
        ...(process.env as Record<string, string>),
        FORMSVC_PORT: "0",
        FORMSVC_DB: await testDatabase(tmp.dir),
        FORMSVC_LOG_LEVEL: "warn",
      },
      stdout: "pipe",
      stderr: "pipe",
    });
    let below: number[] = [];
    // Should the test fail, whatever it started does not outlive it.
    cleanups.push(() => [npm.pid, ...below].filter(alive).forEach((pid) => process.kill(pid, "SIGKILL")));

    // Read as it comes: a server left behind would hold the pipe open, and a read to the end would never end.
    let err = "";
    const stderrClosed = (async () => {
      const errReader = npm.stderr.getReader();
      for (let r = await errReader.read(); !r.done; r = await errReader.read())
        err += new TextDecoder().decode(r.value);
    })();
    const reader = npm.stdout.getReader();
    let out = "";
    while (!/listening on (http:\/\/\S+)/.test(out)) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`npm start exited before listening: ${out}${err}`);
      out += new TextDecoder().decode(value);
    }
    const url = /listening on (http:\/\/\S+)/.exec(out)![1]!;
    below = descendants(npm.pid);
    expect(below.length).toBeGreaterThan(0);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);

    npm.kill("SIGTERM");
    await npm.exited;
    for (let waited = 0; below.some(alive) && waited < 5000; waited += 50) await Bun.sleep(50);

    expect(below.filter(alive)).toEqual([]);
    await Promise.race([stderrClosed, Bun.sleep(5000)]);
    expect(err).toContain("SIGTERM received: finishing in-flight requests");
    expect(
      await fetch(`${url}/healthz`).then(
        () => "answered",
        () => "refused",
      ),
    ).toBe("refused");
  }, 30_000);
});
