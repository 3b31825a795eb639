import { Command } from "commander";
import { describeConfig } from "../config";
import { configFor } from "./context";
import { examples } from "./hints";
import { emit, table } from "./output";

type Source = "flag" | "env" | "default";

export function configCommand(): Command {
  return new Command("config")
    .description("print the effective configuration (defaults < FORMSVC_* environment < flags), secrets redacted")
    .option("--json", "print only JSON")
    .addHelpText(
      "after",
      examples((me) => [`${me} config`, `FORMSVC_PORT=8080 ${me} --db /var/lib/formsvc/formsvc.db config --json`]),
    )
    .action((opts: { json?: boolean }, cmd: Command) => {
      // Invalid settings throw a ConfigError naming every problem at once (stderr, exit 2), as at `serve`.
      const config = configFor(cmd);
      const globalDb = (cmd.optsWithGlobals() as { db?: string }).db;
      const sourceOf = (key: string, env: string): Source =>
        key === "db" && globalDb !== undefined ? "flag" : process.env[env] !== undefined ? "env" : "default";
      const settings = describeConfig(config).map((s) => ({
        ...s,
        value: plain(s.value),
        source: sourceOf(s.key, s.env),
      }));
      emit(!!opts.json, settings, () =>
        table(
          ["SETTING", "VALUE", "FROM", "MEANING"],
          settings.map((s) => [s.env, show(s.value), s.source, s.doc]),
        ),
      );
    });
}

/** URLs and lists as their text, so JSON and the table print the same (already redacted) value. */
function plain(value: unknown): string | number | boolean | null {
  if (value instanceof URL) return value.toString();
  if (Array.isArray(value)) return value.join(",");
  return value as string | number | boolean | null;
}

function show(value: string | number | boolean | null): string {
  return value === "" || value === null ? "(unset)" : String(value);
}
