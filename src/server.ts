import type { Config } from "./config";
import { openStore, type Store } from "./db/store";
import { createApp, type App } from "./app";
import { systemClock, type Clock } from "./lib/clock";
import { createLogger, type Logger } from "./lib/log";
import { governMemory } from "./lib/memory";
import { createJobs } from "./jobs";
import { startJobs, type Scheduler } from "./jobs/scheduler";
import { createServices, type Services } from "./services";

export interface RunningServer {
  url: string;
  port: number;
  app: App;
  store: Store;
  services: Services;
  jobs: Scheduler;
  /** Stops accepting, lets in-flight requests finish, then closes the store. */
  stop(): Promise<void>;
}

/** Opens the store, builds the app and listens; what `formsvc serve` runs, and what tests start. */
export async function startServer(
  config: Config,
  opts: {
    clock?: Clock;
    log?: Logger;
    rateClock?: Clock;
    rateMaxBuckets?: number;
    /** Whether jobs run on their schedules (the wall clock's); else only when asked (`jobs.run`). */
    timedJobs?: boolean;
  } = {},
): Promise<RunningServer> {
  const log = opts.log ?? createLogger(config.logLevel);
  // The server role: no statement waits for another process's write lock (store.ts).
  const store = await openStore(config.db, { role: "server" });
  let services: Services;
  try {
    services = await createServices({ store, clock: opts.clock ?? systemClock, config, log });
  } catch (e) {
    await store.close();
    throw e;
  }
  const app = createApp({
    store,
    services,
    config,
    log,
    rateClock: opts.rateClock,
    rateMaxBuckets: opts.rateMaxBuckets,
  });
  app.listen({
    hostname: config.host,
    port: config.port,
    // No cap of Bun's, not even as a backstop: it would answer 413 bare, before the key check (a
    // keyless 100 MiB request must get its 401) and without our headers. Every body is read by
    // http/body.ts, after the caller check, which refuses one over FORMSVC_MAX_BODY_BYTES by its
    // Content-Length or while it streams; Bun buffers nothing unread (GET and HEAD bodies are
    // dropped), so it never holds more than that. Uploads will pass the same reader with their limit.
    maxRequestBodySize: Number.MAX_SAFE_INTEGER,
    // Never Bun's development error page (paths and source lines), whatever NODE_ENV says.
    development: false,
    // A second `serve` on a port already taken must fail, not quietly take half its connections.
    reusePort: false,
    // The last resort for an error that escapes the app's own handler: still JSON, still no detail.
    error(error) {
      log.error("unhandled error", { error: error.stack ?? error.message });
      return Response.json(
        { error: "internal server error", code: "INTERNAL" },
        { status: 500, headers: { "cache-control": "no-store", "x-content-type-options": "nosniff" } },
      );
    },
  });
  const server = app.server!;
  const jobs = startJobs(createJobs(services, store.sql.traits), log, store.runAlone, opts.timedJobs ?? true);
  if (services.backups.scheduleNotice) log.warn(services.backups.scheduleNotice);
  // /healthz shows the newest backup from before this start until this process makes its own.
  void services.backups.recall();
  await services.outbox.start();
  const memory = governMemory();
  let stopped: Promise<void> | undefined;

  return {
    url: `http://${server.hostname}:${server.port}`,
    port: server.port!,
    app,
    store,
    services,
    jobs,
    stop: () =>
      (stopped ??= (async () => {
        await server.stop(false);
        memory.stop();
        await services.submissions.flush();
        await services.outbox.stop();
        services.close();
        await jobs.stop();
        await store.close();
      })()),
  };
}
