import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { settingDocs } from "../../src/config";
import { tempDir } from "../helpers/harness";

const DEPLOY = join(import.meta.dir, "../../deploy");
const envExample = readFileSync(join(DEPLOY, "formsvc.env.example"), "utf8");
const unit = readFileSync(join(DEPLOY, "formsvc.service"), "utf8");

/** The example's paragraphs, each a setting's comment lines and its (commented) assignment. */
const blocks = envExample.split(/\n\s*\n/);

describe("deploy/formsvc.env.example", () => {
  test.each(settingDocs.map((s) => [s.env, s] as const))("documents %s with its default", (env, s) => {
    const block = blocks.find((b) => new RegExp(`^#?${env}=`, "m").test(b));
    expect(block).toBeDefined();
    expect(block).toContain(`# default: ${s.default === "" ? "(unset" : s.default}`);
  });

  test("says FORMSVC_DB takes a PostgreSQL URL, as formsvc does", () => {
    const block = blocks.find((b) => /^#?FORMSVC_DB=/m.test(b))!;
    expect(block).toContain("or a PostgreSQL URL");
    expect(block).not.toContain("only SQLite");
    expect(settingDocs.find((s) => s.env === "FORMSVC_DB")!.doc).toContain("PostgreSQL URL");
  });

  test("names no setting that formsvc does not read", () => {
    const known = new Set(settingDocs.map((s) => s.env));
    const named = [...envExample.matchAll(/^#?(FORMSVC_[A-Z0-9_]+)=/gm)].map((m) => m[1]!);
    expect(named.filter((n) => !known.has(n))).toEqual([]);
  });
});

describe("deploy/formsvc.service", () => {
  test("runs serve as a dedicated user on the state directory, and stops with SIGTERM", () => {
    for (const line of [
      "ExecStart=/usr/local/bin/formsvc serve",
      "User=formsvc",
      "StateDirectory=formsvc",
      "Environment=FORMSVC_DB=/var/lib/formsvc/formsvc.db",
      "EnvironmentFile=-/etc/formsvc/formsvc.env",
      "Restart=on-failure",
      "KillSignal=SIGTERM",
      "TimeoutStopSec=15",
      "ProtectSystem=strict",
      "NoNewPrivileges=yes",
    ])
      expect(unit.split("\n")).toContain(line);
    // Bun's JIT needs writable+executable memory; this setting would make the service crash at start.
    expect(unit).not.toMatch(/^MemoryDenyWriteExecute=(yes|true)/m);
  });

  const analyze = Bun.which("systemd-analyze");
  test.skipIf(!analyze)("passes systemd-analyze verify (skipped where systemd is not installed)", () => {
    const tmp = tempDir();
    try {
      // verify insists that ExecStart= exists; the binary is not installed here, so stand in /bin/true.
      const path = join(tmp.dir, "formsvc.service");
      writeFileSync(path, unit.replaceAll("/usr/local/bin/formsvc", "/bin/true"));
      const res = Bun.spawnSync([analyze!, "verify", path], { stdout: "pipe", stderr: "pipe" });
      expect(res.stderr.toString() + res.stdout.toString()).toBe("");
      expect(res.exitCode).toBe(0);
    } finally {
      tmp.cleanup();
    }
  });
});
