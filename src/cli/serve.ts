import { Command } from "commander";
import { startServer } from "../server";
import { configFor } from "./context";
import { examples, firstRunSteps } from "./hints";

// systemd's default stop timeout is 90 s; we promise to be gone well within it.
const SHUTDOWN_DEADLINE_MS = 10_000;

export function serveCommand(): Command {
  return new Command("serve")
    .description("run the HTTP API")
    .option("--host <host>", "address to listen on (FORMSVC_HOST, default 127.0.0.1)")
    .option("--port <port>", "port to listen on (FORMSVC_PORT, default 3000)")
    .addHelpText(
      "after",
      examples((me) => [`${me} serve`, `${me} --db /var/lib/formsvc/formsvc.db serve --host 0.0.0.0 --port 8080`]),
    )
    .action(async (opts: { host?: string; port?: string }, cmd: Command) => {
      const config = configFor(cmd, { host: opts.host, port: opts.port });
      // Listen for signals before anything starts, so a stop during start-up is clean too.
      const signal = new Promise<string>((resolve) => {
        process.once("SIGTERM", () => resolve("SIGTERM"));
        process.once("SIGINT", () => resolve("SIGINT"));
      });
      const running = await startServer(config);
      // stdout holds this one line and then the JSON request log; what is said to a person goes to stderr.
      process.stdout.write(`formsvc listening on ${running.url}\n`);
      const base = config.publicUrl || running.url;
      process.stderr.write(`formsvc dashboard: ${base}/dashboard\n`);
      // Printed by every process that starts before the first owner has a password: its hash is in
      // the database, so on several instances any link works on any of them.
      const setup = await running.services.accounts.issueSetupToken();
      if (setup)
        process.stderr.write(firstRunSteps(base, setup, await running.services.accounts.ownersWithoutPassword()));

      process.stderr.write(`${await signal} received: finishing in-flight requests\n`);
      const deadline = new Promise<void>((resolve) =>
        setTimeout(() => {
          process.stderr.write("shutdown took too long; exiting\n");
          resolve();
        }, SHUTDOWN_DEADLINE_MS).unref(),
      );
      await Promise.race([running.stop(), deadline]);
    });
}
