import type { Command } from "commander";
import { loadConfig, type Config, type ConfigOverrides } from "../config";
import { openStore } from "../db/store";
import { systemClock } from "../lib/clock";
import { createLogger } from "../lib/log";
import { createServices, type Deps, type Services } from "../services";

/** The effective configuration for a command: defaults < env < the global `--db` and the command's own flags. */
export function configFor(cmd: Command, flags: ConfigOverrides = {}): Config {
  const global = cmd.optsWithGlobals() as { db?: string };
  return loadConfig(process.env, { db: global.db, ...flags });
}

/** Runs `fn` with the services over the configured database, and closes the store after. */
export async function withServices<T>(
  cmd: Command,
  fn: (services: Services, deps: Deps) => T | Promise<T>,
): Promise<T> {
  const config = configFor(cmd);
  const store = await openStore(config.db);
  try {
    const deps: Deps = { store, clock: systemClock, config, log: createLogger("warn", (l) => process.stderr.write(l)) };
    return await fn(await createServices(deps), deps);
  } finally {
    await store.close();
  }
}
