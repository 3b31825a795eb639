// `FORMSVC_DB=postgres://… bun bench/pg-local-buckets.ts PORT`: formsvc on PostgreSQL as `serve` builds
// it (src/server.ts), except that rate limits are kept in this process, as on SQLite, instead of in the
// shared `rate_buckets` table: the bench's A/B for what the shared limiter's statement costs a
// request. Not a way to run formsvc (several such instances would each grant the whole quota); no
// scheduled jobs and no outbox worker, which the bench's scenarios do not use.
import { createApp } from "../src/app";
import { loadConfig } from "../src/config";
import { openStore } from "../src/db/store";
import { systemClock } from "../src/lib/clock";
import { createLogger } from "../src/lib/log";
import { createServices } from "../src/services";

const port = Number(process.argv[2]);
const config = loadConfig(process.env, { port });
const log = createLogger(config.logLevel);
const store = await openStore(config.db, { role: "server" });
const services = await createServices({ store, clock: systemClock, config, log });
const app = createApp({ store: { ...store, sharedBuckets: undefined }, services, config, log });
app.listen({ hostname: "127.0.0.1", port, maxRequestBodySize: Number.MAX_SAFE_INTEGER, development: false, reusePort: false });
process.stdout.write(`formsvc (in-process rate limits) listening on http://127.0.0.1:${port}\n`);
