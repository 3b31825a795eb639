import { Command } from "commander";
import { existsSync, rmSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { AppError } from "../lib/errors";
import { withServices } from "./context";
import { examples } from "./hints";
import { emit } from "./output";

export function backupCommand(): Command {
  return new Command("backup")
    .description("write a consistent copy of the database, safe while `serve` is running")
    .argument("<file>", "where to write the copy")
    .option("--force", "overwrite an existing file")
    .option("--json", "print only JSON")
    .addHelpText(
      "after",
      examples((me) => [`${me} backup /var/backups/formsvc-$(date +%F).db`]),
    )
    .action((file: string, opts: { force?: boolean; json?: boolean }, cmd: Command) =>
      withServices(cmd, async (_s, { store }) => {
        const target = resolve(file);
        if (existsSync(target)) {
          if (!opts.force) throw new AppError("CONFLICT", `${target} exists; add --force to overwrite it`);
          rmSync(target);
        }
        await store.backup.snapshot(target);
        const bytes = statSync(target).size;
        emit(
          !!opts.json,
          { file: target, bytes, integrity: "ok" },
          () => `Backed up to ${target} (${bytes} bytes, integrity ok).`,
        );
      }),
    );
}
