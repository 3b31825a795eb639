import { Command } from "commander";
import { existsSync } from "node:fs";
import { isPostgresUrl, redactPassword } from "../config";
import { copyToPostgres } from "../db/copy-to-postgres";
import { AppError } from "../lib/errors";
import { configFor } from "./context";
import { examples } from "./hints";
import { emit, table } from "./output";

export function copyToCommand(): Command {
  return new Command("copy-to")
    .description(
      "copy this SQLite database into an empty PostgreSQL database (ids, timestamps and secrets kept; all or nothing); stop `serve` first",
    )
    .argument("<url>", "the PostgreSQL database, postgres://user:pass@host:5432/formsvc")
    .option("--json", "print only JSON")
    .addHelpText(
      "after",
      examples((me) => [`${me} --db ./data/formsvc.db copy-to postgres://formsvc:secret@db.internal:5432/formsvc`]),
    )
    .action(async (url: string, opts: { json?: boolean }, cmd: Command) => {
      const config = configFor(cmd);
      if (isPostgresUrl(config.db))
        throw new AppError("INVALID_PARAMETER", "copy-to copies a SQLite database: give its file with --db");
      if (!isPostgresUrl(url)) throw new AppError("INVALID_PARAMETER", "the target must be a postgres:// URL");
      // Opening a path that is not there would make an empty database and copy nothing.
      if (!existsSync(config.db))
        throw new AppError("NOT_FOUND", `there is no SQLite database at ${config.db}; give its file with --db`);
      const tables = await copyToPostgres(config.db, url, (line) => process.stderr.write(`${line}\n`));
      const rows = tables.reduce((n, t) => n + t.copied, 0);
      emit(!!opts.json, { target: redactPassword(url), tables }, () =>
        [
          table(
            ["table", "sqlite", "postgres"],
            tables.map((t) => [t.table, t.source, t.copied]),
          ),
          `Copied ${rows} rows; every table's count matches.`,
        ].join("\n"),
      );
    });
}
