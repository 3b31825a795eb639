import { Command } from "commander";
import { startServer } from "../server";
import { configFor } from "./context";
import { firstRunSteps } from "./hints";

// systemd's default stop timeout is 90 s; we promise to be gone well within it.
const SHUTDOWN_DEADLINE_MS = 10_000;

export function serveCommand(): Command {
  return new Command("serve")
    .description("run the HTTP API")
    .option("--host <host>", "address to listen on (FORMSVC_HOST, default 127.0.0.1)")
    .option("--port <port>", "port to listen on (FORMSVC_PORT, default 3000)")
    .addHelpText("after", "\nExamples:\n  formsvc serve\n  formsvc --db /var/lib/formsvc/formsvc.db serve --host 0.0.0.0 --port 8080\n")
    .action(async (opts: { host?: string; port?: string }, cmd: Command) => {
      const config = configFor(cmd, { host: opts.host, port: opts.port });
      const running = await startServer(config);
      process.stdout.write(`formsvc listening on ${running.url}\n`);
      if (running.services.keys.listKeys().length === 0) process.stdout.write(firstRunSteps(running.url));

      await new Promise<void>((resolve) => {
        const shutdown = (signal: string) => {
          process.stdout.write(`${signal} received: finishing in-flight requests\n`);
          const deadline = setTimeout(() => {
            process.stderr.write("shutdown took too long; exiting\n");
            resolve();
          }, SHUTDOWN_DEADLINE_MS);
          running.stop().then(() => {
            clearTimeout(deadline);
            resolve();
          });
        };
        process.once("SIGTERM", () => shutdown("SIGTERM"));
        process.once("SIGINT", () => shutdown("SIGINT"));
      });
    });
}
