import { afterAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { buildVersion, RELEASE_TARGETS } from "../../build";
import { tempDir } from "../helpers/harness";

// `npm run release` for this machine's platform alone: one binary build, as the others differ only in
// the Bun runtime `bun build --compile --target` puts in.
const ROOT = join(import.meta.dir, "../..");
const HOST = `${process.platform}-${process.arch}`;
const out = tempDir();
afterAll(() => out.cleanup());

const release = (...args: string[]) =>
  Bun.spawnSync([process.execPath, "build.ts", "--release", ...args], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });

describe("npm run release", () => {
  test("is made for linux-x64, linux-arm64, darwin-arm64 and darwin-x64", () => {
    expect([...RELEASE_TARGETS].sort()).toEqual(["darwin-arm64", "darwin-x64", "linux-arm64", "linux-x64"]);
  });

  test.skipIf(!(RELEASE_TARGETS as readonly string[]).includes(HOST))(
    "builds the binary with SHA256SUMS; it tells its version and build commit, and carries the service files",
    async () => {
      const res = release("--target", HOST, "--out", out.dir);
      expect(res.stderr.toString()).not.toContain("FAILED");
      expect(res.exitCode).toBe(0);
      const name = `formsvc-${HOST}`;
      expect(readdirSync(out.dir).sort()).toEqual(["SHA256SUMS", name]);
      const binary = join(out.dir, name);
      const sum = new Bun.CryptoHasher("sha256").update(await Bun.file(binary).bytes()).digest("hex");
      expect(readFileSync(join(out.dir, "SHA256SUMS"), "utf8")).toBe(`${sum}  ${name}\n`);

      const commit = Bun.spawnSync(["git", "rev-parse", "--short", "HEAD"], { cwd: ROOT }).stdout.toString().trim();
      const version = Bun.spawnSync([binary, "--version"], { stdout: "pipe" }).stdout.toString().trim();
      expect(version).toBe(await buildVersion());
      expect(version).toStartWith(`${JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version}+${commit}`);

      const printed = Bun.spawnSync([binary, "service", "install", "--print"], { stdout: "pipe" }).stdout.toString();
      expect(printed).toContain(readFileSync(join(ROOT, "deploy/formsvc.service"), "utf8").trimEnd());
      expect(printed).toContain(readFileSync(join(ROOT, "deploy/formsvc.env.example"), "utf8").trimEnd());
    },
    120_000,
  );

  test("names a target whose Bun runtime cannot be fetched, with why, and exits 1", () => {
    const other = RELEASE_TARGETS.find((t) => t !== HOST)!;
    const home = join(out.dir, "home");
    // A home with no runtimes cached, and a proxy that refuses: the download fails at once, offline.
    const env: Record<string, string> = { ...(process.env as Record<string, string>), HOME: home };
    delete env.BUN_INSTALL;
    delete env.BUN_INSTALL_CACHE_DIR;
    for (const name of ["HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"]) env[name] = "http://127.0.0.1:9";
    const res = Bun.spawnSync(
      [process.execPath, "build.ts", "--release", "--target", other, "--out", join(out.dir, "offline")],
      { cwd: ROOT, env, stdout: "pipe", stderr: "pipe" },
    );
    expect(res.exitCode).toBe(1);
    expect(res.stderr.toString()).toMatch(new RegExp(`FAILED formsvc-${other}: .*Failed to download`));
    expect(readFileSync(join(out.dir, "offline/SHA256SUMS"), "utf8")).toBe("");
  }, 60_000);

  test("refuses a target it does not release for, naming those it does", () => {
    const res = release("--target", "windows-x64", "--out", join(out.dir, "none"));
    expect(res.exitCode).toBe(2);
    expect(res.stderr.toString()).toContain(
      "unknown target windows-x64: one of linux-x64, linux-arm64, darwin-arm64, darwin-x64",
    );
  });
});
