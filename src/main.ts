#!/usr/bin/env bun
import { CommanderError } from "commander";
import { buildProgram } from "./cli/program";
import { ConfigError } from "./config";
import { AppError } from "./lib/errors";

/** The `formsvc` entry point; the only place that ends the process. */
async function main(argv: string[]): Promise<number> {
  try {
    await buildProgram().parseAsync(argv);
    return 0;
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode;
    if (e instanceof AppError || e instanceof ConfigError) {
      process.stderr.write(`error: ${e.message}\n`);
      return e instanceof ConfigError ? 2 : 1;
    }
    process.stderr.write(`error: ${e instanceof Error ? e.message : String(e)}\n`);
    return 1;
  }
}

process.exit(await main(process.argv));
