import { Database } from "bun:sqlite";
import { Command } from "commander";
import { existsSync, rmSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { vacuumInto } from "../db/snapshot";
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
    .addHelpText("after", examples((me) => [`${me} backup /var/backups/formsvc-$(date +%F).db`]))
    .action((file: string, opts: { force?: boolean; json?: boolean }, cmd: Command) =>
      withServices(cmd, (_s, { db }) => {
        const target = resolve(file);
        if (existsSync(target)) {
          if (!opts.force) throw new AppError("CONFLICT", `${target} exists; add --force to overwrite it`);
          rmSync(target);
        }
        vacuumInto(db, target);
        const copy = new Database(target, { readonly: true });
        const check = copy.query<{ integrity_check: string }, []>("PRAGMA integrity_check").get()?.integrity_check;
        copy.close();
        if (check !== "ok") throw new AppError("INTERNAL", `the copy at ${target} failed its integrity check: ${check}`);
        const bytes = statSync(target).size;
        emit(!!opts.json, { file: target, bytes, integrity: "ok" }, () => `Backed up to ${target} (${bytes} bytes, integrity ok).`);
      }),
    );
}
