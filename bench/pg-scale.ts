// Issue 32: does a second formsvc instance on one PostgreSQL database add submit throughput? The
// issue's mix: submits spread over 5 forms of one key, one wrk (2 threads of 32 connections) on
// core 1 against one instance or one thread to each of two; PostgreSQL and every instance on core 0,
// as in the PostgreSQL section of bench/run.ts. Deadlocks are read from pg_stat_database around the
// whole run, once the instances have ended (a backend reports its statistics when it ends).
//   bun bench/pg-scale.ts [seconds per run (default 5)] [repetitions (default 3)]
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../src/config";
import { openStore } from "../src/db/store";
import { systemClock } from "../src/lib/clock";
import { silentLogger } from "../src/lib/log";
import { OPERATOR } from "../src/lib/principal";
import { createServices } from "../src/services";
import { startServer, wrk, WORK, BUN } from "./harness";
import { startBenchPostgres } from "./postgres";

const seconds = Number(process.argv[2] ?? 5);
const reps = Number(process.argv[3] ?? 3);
const pg = await startBenchPostgres(0);
const store = await openStore(pg.url);
const services = await createServices({
  store,
  clock: systemClock,
  config: loadConfig({}, { db: pg.url, logLevel: "silent" }),
  log: silentLogger,
});
const key = (await services.keys.createKey(OPERATOR, { owner: "bench@example.com", name: "bench" })).key;
const formIds: string[] = [];
for (let i = 0; i < 5; i++)
  formIds.push(
    (await services.forms.createForm(OPERATOR, { owner: "bench@example.com", name: `Form ${i}`, formType: "contact" }))
      .id,
  );
services.close();
await store.close();

const env = { FORMSVC_DB: pg.url, FORMSVC_RATE_LIMIT: "1000000000", FORMSVC_LOG_LEVEL: "warn" };
const ports = [3911, 3912];
const servers = await Promise.all(
  ports.map((port) => startServer([BUN, "src/main.ts", "serve", "--port", String(port)], port, env)),
);

/** A wrk script: thread n to ports[n % ports.length], each request to the next of the 5 forms. */
function script(name: string, to: number[]): string {
  const file = join(WORK, `${name}.lua`);
  const bodies = formIds.map((formId) =>
    JSON.stringify({ formId, data: { email: "ada@example.com", message: "Hello there", rating: 5 } }),
  );
  writeFileSync(
    file,
    [
      `local ports = { ${to.map((p) => `"${p}"`).join(", ")} }`,
      `local bodies = { ${bodies.map((b) => JSON.stringify(b)).join(", ")} }`,
      "local threads = 0",
      "function setup(thread)",
      "  threads = threads + 1",
      "  thread.addr = wrk.lookup('127.0.0.1', ports[(threads - 1) % #ports + 1])[1]",
      "end",
      "local n = math.random(0, 4)",
      "function request()",
      "  n = n + 1",
      `  return wrk.format("POST", "/api/v1/forms/submit", { ["Content-Type"] = "application/json", ["X-API-Key"] = "${key}" }, bodies[n % #bodies + 1])`,
      "end",
    ].join("\n") + "\n",
  );
  return file;
}

const targets = [
  { name: "1 instance", script: script("pg-scale-1", [ports[0]!]) },
  { name: "2 instances", script: script("pg-scale-2", ports) },
];
const before = (await pg.stats()).deadlocks;
for (const t of targets) await wrk(`http://127.0.0.1:${ports[0]}/`, { script: t.script, threads: 2, durationS: 2 });
const results: Record<string, { rps: number; p99: number; errors: number }[]> = {};
for (let rep = 0; rep < reps; rep++)
  for (const t of targets) {
    const r = await wrk(`http://127.0.0.1:${ports[0]}/`, { script: t.script, threads: 2, durationS: seconds });
    (results[t.name] ??= []).push({ rps: r.rps, p99: r.p99, errors: (r.non2xx ?? 0) + (r.socketErrors ?? 0) });
  }
for (const s of servers) {
  s.kill("SIGTERM");
  await s.exited;
}
await Bun.sleep(1200);
const deadlocks = (await pg.stats()).deadlocks - before;
await pg.close();
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const one = median(results["1 instance"]!.map((r) => r.rps));
console.log(
  `| submit to 5 forms of one key | req/s (median of ${reps} × ${seconds} s) | p99 ms (median) | non-2xx + socket errors |`,
);
console.log("|---|---|---|---|");
for (const [name, rs] of Object.entries(results))
  console.log(
    `| ${name} | ${median(rs.map((r) => r.rps)).toFixed(0)} (${rs.map((r) => r.rps.toFixed(0)).join(", ")}) | ${median(rs.map((r) => r.p99)).toFixed(1)} | ${rs.reduce((n, r) => n + r.errors, 0)} |`,
  );
console.log(
  `\n2 instances / 1: ${(median(results["2 instances"]!.map((r) => r.rps)) / one).toFixed(2)}; deadlocks (pg_stat_database) across the whole run: ${deadlocks}`,
);
process.exit(0);
