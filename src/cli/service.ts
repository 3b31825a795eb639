import { Command } from "commander";
import { chmodSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
// Inside the binary, so that `service install` needs nothing beside it.
import envFile from "../../deploy/formsvc.env.example" with { type: "text" };
import unitFile from "../../deploy/formsvc.service" with { type: "text" };
import { AppError } from "../lib/errors";
import { examples } from "./hints";

const UNIT_PATH = "/etc/systemd/system/formsvc.service";
const ENV_PATH = "/etc/formsvc/formsvc.env";
// The unit runs this path: a binary in a home folder would be hidden from it by ProtectHome=.
const BINARY_PATH = "/usr/local/bin/formsvc";

interface InstallFlags {
  print?: boolean;
  force?: boolean;
  root?: string;
}

/**
 * The files `service install` writes, where, and with which mode (the settings may hold secrets).
 * `--force` replaces the unit, never settings a person has written: they are kept as they are.
 */
const files = [
  { path: UNIT_PATH, text: unitFile, mode: 0o644, keep: false },
  { path: ENV_PATH, text: envFile, mode: 0o640, keep: true },
];

export function serviceCommand(): Command {
  const service = new Command("service").description("run formsvc as a systemd service");
  service
    .command("install")
    .description(`write the hardened systemd unit (${UNIT_PATH}) and the settings with their defaults (${ENV_PATH})`)
    .option("--print", "show both files and write nothing")
    .option("--force", "overwrite the unit if it exists (existing settings are kept)")
    .option("--root <dir>", "write under this folder instead of / (to prepare an image)", "/")
    .addHelpText(
      "after",
      examples((me) => [`sudo ${me} service install`, `${me} service install --print`]),
    )
    .action((opts: InstallFlags) => {
      if (opts.print) {
        process.stdout.write(files.map((f) => `# ${f.path}\n${f.text.trimEnd()}\n`).join("\n"));
        return;
      }
      const targets = files.map((f) => ({ ...f, target: join(opts.root ?? "/", f.path) }));
      // All or nothing: a refusal leaves every file as it was.
      const existing = targets.filter((f) => existsSync(f.target)).map((f) => f.target);
      if (existing.length && !opts.force)
        throw new AppError(
          "CONFLICT",
          `${existing.join(" and ")} exist${existing.length === 1 ? "s" : ""}; add --force to overwrite`,
        );
      const kept = targets.filter((f) => f.keep && existsSync(f.target));
      try {
        for (const f of targets) {
          if (kept.includes(f)) continue;
          mkdirSync(dirname(f.target), { recursive: true, mode: 0o755 });
          writeFileSync(f.target, f.text, { mode: f.mode });
          // writeFileSync's mode applies to a new file only.
          chmodSync(f.target, f.mode);
        }
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code !== "EACCES" && code !== "EPERM") throw e;
        throw new AppError("FORBIDDEN", `${(e as Error).message}: run it as root (sudo), or see --print`);
      }
      process.stdout.write(
        [
          ...targets.map((f) =>
            kept.includes(f)
              ? `kept ${f.target} as it was (your settings; \`service install --print\` shows the defaults)`
              : `wrote ${f.target}`,
          ),
          "",
          "Next:",
          ...installBinary(),
          "  sudo useradd --system --home-dir /var/lib/formsvc --shell /usr/sbin/nologin formsvc   # once",
          `  sudo chgrp formsvc ${ENV_PATH}   # the service reads its settings; edit them with sudoedit`,
          "  sudo systemctl daemon-reload && sudo systemctl enable --now formsvc",
          "  journalctl -u formsvc -n 20 --no-pager | grep 'first run'   # the setup link",
          "",
        ].join("\n"),
      );
    });
  return service;
}

/** How the binary gets to the path the unit runs, unless it is there already. */
function installBinary(): string[] {
  if (!Bun.main.startsWith("/$bunfs/")) return [`  npm run build && sudo install -m 0755 dist/formsvc ${BINARY_PATH}`];
  return process.execPath === BINARY_PATH ? [] : [`  sudo install -m 0755 ${process.execPath} ${BINARY_PATH}`];
}
