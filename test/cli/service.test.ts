import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runCli, tempDir } from "../helpers/harness";

const DEPLOY = join(import.meta.dir, "../../deploy");
const unit = readFileSync(join(DEPLOY, "formsvc.service"), "utf8");
const env = readFileSync(join(DEPLOY, "formsvc.env.example"), "utf8");

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));

/** An empty folder standing for `/`. */
function root(): string {
  const t = tempDir();
  cleanups.push(t.cleanup);
  return t.dir;
}

const unitAt = (dir: string) => join(dir, "etc/systemd/system/formsvc.service");
const envAt = (dir: string) => join(dir, "etc/formsvc/formsvc.env");
const mode = (path: string) => statSync(path).mode & 0o777;

describe("formsvc service install", () => {
  test("--print shows the hardened unit and the settings with their defaults, each under its path, and writes nothing", () => {
    const dir = root();
    const res = runCli(["service", "install", "--print", "--root", dir]);
    expect(res.code).toBe(0);
    expect(res.stdout).toBe(
      `# /etc/systemd/system/formsvc.service\n${unit.trimEnd()}\n\n# /etc/formsvc/formsvc.env\n${env.trimEnd()}\n`,
    );
    expect(res.stdout).toContain("\nProtectSystem=strict\n");
    expect(res.stdout).toContain("\n# default: 3000\n#FORMSVC_PORT=3000\n");
    expect(readdirSync(dir)).toEqual([]);
  });

  test("writes the unit (0644) and the settings (0640, they may hold secrets) where systemd reads them, and says what to run next", () => {
    const dir = root();
    const res = runCli(["service", "install", "--root", dir]);
    expect(res.code).toBe(0);
    expect(readFileSync(unitAt(dir), "utf8")).toBe(unit);
    expect(readFileSync(envAt(dir), "utf8")).toBe(env);
    expect(mode(unitAt(dir))).toBe(0o644);
    expect(mode(envAt(dir))).toBe(0o640);
    expect(res.stdout).toContain(`wrote ${unitAt(dir)}\nwrote ${envAt(dir)}\n`);
    expect(res.stdout).toContain("systemctl daemon-reload && sudo systemctl enable --now formsvc");
  });

  test("refuses to overwrite a file that exists, writing neither; --force overwrites the unit and keeps the settings", () => {
    const dir = root();
    mkdirSync(join(dir, "etc/formsvc"), { recursive: true });
    writeFileSync(envAt(dir), "FORMSVC_PUBLIC_URL=https://forms.example.com\n");

    const refused = runCli(["service", "install", "--root", dir]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(`${envAt(dir)} exists; add --force to overwrite`);
    expect(readFileSync(envAt(dir), "utf8")).toBe("FORMSVC_PUBLIC_URL=https://forms.example.com\n");
    expect(existsSync(unitAt(dir))).toBe(false);

    const forced = runCli(["service", "install", "--root", dir, "--force"]);
    expect(forced.code).toBe(0);
    // The operator's settings (secrets among them) are never replaced by the defaults.
    expect(readFileSync(envAt(dir), "utf8")).toBe("FORMSVC_PUBLIC_URL=https://forms.example.com\n");
    expect(forced.stdout).toContain(`kept ${envAt(dir)} as it was`);
    expect(readFileSync(unitAt(dir), "utf8")).toBe(unit);
    writeFileSync(unitAt(dir), "old unit\n");
    expect(runCli(["service", "install", "--root", dir, "--force"]).code).toBe(0);
    expect(readFileSync(unitAt(dir), "utf8")).toBe(unit);
  });
});
