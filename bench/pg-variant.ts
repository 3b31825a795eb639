// `FORMSVC_DB=postgres://… bun bench/pg-variant.ts PORT VARIANT`: formsvc on PostgreSQL as `serve` builds
// it (src/server.ts) but for one thing, the bench's A/B for what the shared rate limiter costs a request:
//   local-buckets  rate limits kept in this process, as on SQLite, instead of one statement per request
//                  on the shared `rate_buckets` table;
//   no-feed        the shared limiter as in `serve`, but no change feed: the caches are never reset by
//                  another transaction's commit. Every take commits and so moves pg_current_snapshot,
//                  which the feed compares; this variant shows what those resets cost on their own.
// Neither is a way to run formsvc (several local-buckets instances would each grant the whole quota; without
// the feed a write by another process goes unseen). No scheduled jobs, no outbox worker: the bench's
// scenarios use neither.
import { createApp } from "../src/app";
import { loadConfig } from "../src/config";
import { openStore, type Store } from "../src/db/store";
import { systemClock } from "../src/lib/clock";
import { createLogger } from "../src/lib/log";
import { createServices } from "../src/services";

const port = Number(process.argv[2]);
const variant = process.argv[3];
if (variant !== "local-buckets" && variant !== "no-feed")
  throw new Error("usage: bun bench/pg-variant.ts PORT local-buckets|no-feed");
const config = loadConfig(process.env, { port });
const log = createLogger(config.logLevel);
const opened = await openStore(config.db, { role: "server" });
const store: Store =
  variant === "local-buckets"
    ? { ...opened, sharedBuckets: undefined }
    : { ...opened, changes: { onChange() {}, sync: () => undefined } };
const services = await createServices({ store, clock: systemClock, config, log });
const app = createApp({ store, services, config, log });
app.listen({
  hostname: "127.0.0.1",
  port,
  maxRequestBodySize: Number.MAX_SAFE_INTEGER,
  development: false,
  reusePort: false,
});
process.stdout.write(`formsvc (${variant}) listening on http://127.0.0.1:${port}\n`);
