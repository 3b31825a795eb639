// Issue 32: does a second formsvc instance on one PostgreSQL database add submit throughput? The
// issue's mix: submits spread over 5 forms of one key, one wrk (2 threads of 32 connections) on
// core 1 against one instance or one thread to each of two; PostgreSQL and every instance on core 0,
// as in the PostgreSQL section of bench/run.ts; CPU per request of the instances and the cluster from /proc;
// what grows with the instances: requests per WAL flush (the batch size: each batch's commit is one
// flush), the forms' and keys' reads per request (the caches reloaded after commits, pg_stat_user_tables),
// and the instances' context switches per request; and one instance given only the connections each
// of two gets (the batch sizes of two instances without a second instance). Deadlocks are read from pg_stat_database around the
// whole run, once the instances have ended (a backend reports its statistics when it ends).
//   bun bench/pg-scale.ts [seconds per run (default 5)] [repetitions (default 3)] [--unpinned] [--statements]
// --unpinned: PostgreSQL, the instances and wrk all free to use both cores (the pinned placement
// gives the second instance no CPU of its own). --statements: one run of each target with
// PostgreSQL logging every statement, then what each batch's transaction ran, per submission and
// per request (the log's cost makes that run's req/s meaningless; only the counts are read).
import { SQL } from "bun";
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { loadConfig } from "../src/config";
import { openStore } from "../src/db/store";
import { systemClock } from "../src/lib/clock";
import { silentLogger } from "../src/lib/log";
import { OPERATOR } from "../src/lib/principal";
import { createServices } from "../src/services";
import { CONNECTIONS, cpuMs, startServer, wrk, WORK, BUN } from "./harness";
import { startBenchPostgres } from "./postgres";
import { testPostgres } from "../test/helpers/postgres";

const args = process.argv.slice(2).filter((a) => !a.startsWith("--"));
const unpinned = process.argv.includes("--unpinned");
const statements = process.argv.includes("--statements");
const seconds = Number(args[0] ?? 5);
const reps = statements ? 1 : Number(args[1] ?? 3);
const pg = await startBenchPostgres(unpinned ? null : 0);
const admin = new SQL({ url: (await testPostgres()).adminUrl, max: 1 });
const logFile = join(dirname(String((await admin`SHOW data_directory`)[0].data_directory)), "postgres.log");
// Settings of the database apply to the sessions opened after: the instances' pools, started below.
if (statements) await admin.unsafe(`ALTER DATABASE "${new URL(pg.url).pathname.slice(1)}" SET log_statement = 'all'`);
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
  ports.map((port) =>
    startServer([BUN, "src/main.ts", "serve", "--port", String(port)], port, env, undefined, unpinned ? null : 0),
  ),
);

mkdirSync(WORK, { recursive: true });

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

// The third target gives one instance the connections each of two gets: with the same batch sizes
// as two instances, what two cost beyond it is what one instance's commits cost the other.
const targets = [
  { name: "1 instance", script: script("pg-scale-1", [ports[0]!]), connections: CONNECTIONS },
  { name: "2 instances", script: script("pg-scale-2", ports), connections: CONNECTIONS },
  {
    name: `1 instance, ${CONNECTIONS / 2} connections`,
    script: script("pg-scale-1", [ports[0]!]),
    connections: CONNECTIONS / 2,
  },
];
const core = unpinned ? null : 1;
const before = (await pg.stats()).deadlocks;
for (const t of targets)
  await wrk(`http://127.0.0.1:${ports[0]}/`, {
    script: t.script,
    threads: 2,
    durationS: 2,
    core,
    connections: t.connections,
  });
interface Run {
  rps: number;
  p99: number;
  errors: number;
  requests: number;
  /** CPU per request, µs: both formsvc instances (the idle one too), and the whole cluster. */
  formsvcUs: number;
  postgresUs: number;
  /** Requests per WAL flush: about the submissions per batch (a batch's commit is one flush). */
  perFlush: number;
  /** Reads of the forms and api_keys tables per request: the caches' reloads (and each batch's read of its forms). */
  formReads: number;
  keyReads: number;
  /** The formsvc instances' context switches (voluntary and not) per request. */
  switches: number;
}
const results: Record<string, Run[]> = {};
const formsvcCpuMs = () => servers.reduce((ms, s) => ms + cpuMs(s.pid), 0);
/** Context switches of a process so far, from /proc/PID/status. */
const switchesOf = (pid: number) =>
  [...readFileSync(`/proc/${pid}/status`, "utf8").matchAll(/ctxt_switches:\s+(\d+)/g)].reduce(
    (n, m) => n + Number(m[1]),
    0,
  );
const formsvcSwitches = () => servers.reduce((n, s) => n + switchesOf(s.pid), 0);
const logged: Record<string, string> = {};
for (let rep = 0; rep < reps; rep++)
  for (const t of targets) {
    const from = statSync(logFile).size;
    const [formsvc0, postgres0, switches0, stats0] = [formsvcCpuMs(), pg.cpuMs(), formsvcSwitches(), await pg.stats()];
    const r = await wrk(`http://127.0.0.1:${ports[0]}/`, {
      script: t.script,
      threads: 2,
      durationS: seconds,
      core,
      connections: t.connections,
    });
    const requests = r.requests ?? NaN;
    const [formsvc1, postgres1, switches1] = [formsvcCpuMs(), pg.cpuMs(), formsvcSwitches()];
    const stats1 = await pg.stats();
    (results[t.name] ??= []).push({
      rps: r.rps,
      p99: r.p99,
      errors: (r.non2xx ?? 0) + (r.socketErrors ?? 0),
      requests,
      formsvcUs: ((formsvc1 - formsvc0) * 1000) / requests,
      postgresUs: ((postgres1 - postgres0) * 1000) / requests,
      perFlush: requests / (stats1.walFsyncs - stats0.walFsyncs),
      formReads: (stats1.formReads - stats0.formReads) / requests,
      keyReads: (stats1.keyReads - stats0.keyReads) / requests,
      switches: (switches1 - switches0) / requests,
    });
    if (statements) {
      await Bun.sleep(500); // answered requests' last statements (the change feed's publish) reach the log
      logged[t.name] = readFileSync(logFile).subarray(from).toString("utf8");
    }
  }
for (const s of servers) {
  s.kill("SIGTERM");
  await s.exited;
}
await Bun.sleep(1200);
const deadlocks = (await pg.stats()).deadlocks - before;
await pg.close();
await admin.close();
if (statements) {
  for (const [name, text] of Object.entries(logged)) {
    const { requests } = results[name]![0]!;
    console.log(`\n${name}: ${requests} requests\n${statementTable(text, requests)}`);
  }
  process.exit(0);
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const one = median(results["1 instance"]!.map((r) => r.rps));
console.log(
  `| submit to 5 forms of one key${unpinned ? " (unpinned)" : ""} | req/s (median of ${reps} × ${seconds} s) | p99 ms (median) | CPU µs/req formsvc + PostgreSQL (median) | req per WAL flush | form / key reads per req | formsvc context switches per req | non-2xx + socket errors |`,
);
console.log("|---|---|---|---|---|---|---|---|");
for (const [name, rs] of Object.entries(results)) {
  const m = (f: (r: Run) => number, digits = 0) => median(rs.map(f)).toFixed(digits);
  console.log(
    `| ${name} | ${m((r) => r.rps)} (${rs.map((r) => r.rps.toFixed(0)).join(", ")}) | ${m((r) => r.p99, 1)} | ${m((r) => r.formsvcUs)} + ${m((r) => r.postgresUs)} | ${m((r) => r.perFlush, 1)} | ${m((r) => r.formReads, 3)} / ${m((r) => r.keyReads, 3)} | ${m((r) => r.switches, 2)} | ${rs.reduce((n, r) => n + r.errors, 0)} |`,
  );
}
console.log(
  `\n2 instances / 1: ${(median(results["2 instances"]!.map((r) => r.rps)) / one).toFixed(2)}; deadlocks (pg_stat_database) across the whole run: ${deadlocks}`,
);
process.exit(0);

/**
 * What the log shows: each transaction that inserted submissions (a batch), by statement, per batch
 * and per submission; and every statement outside those batches per request. Statements are named
 * by their first words, with numbers and placeholders kept as they are.
 */
function statementTable(text: string, requests: number): string {
  const open = new Map<string, string[]>();
  const inBatches = new Map<string, number>();
  const outside = new Map<string, number>();
  let batches = 0;
  let submissions = 0;
  const add = (to: Map<string, number>, k: string) => to.set(k, (to.get(k) ?? 0) + 1);
  const name = (s: string) =>
    s
      .replace(/\s+/g, " ")
      .replace(/VALUES \(.*$/, "VALUES (…)")
      .slice(0, 90);
  for (const m of text.matchAll(/\[(\d+)\] LOG: {2}(?:statement|execute [^:]*): ([^\n]*(?:\n\t[^\n]*)*)/g)) {
    const [, pid, statement] = m as unknown as [string, string, string];
    const s = statement.trim();
    const tx = open.get(pid!);
    if (/^BEGIN/i.test(s)) open.set(pid!, [s]);
    else if (tx && /^(COMMIT|ROLLBACK)/i.test(s)) {
      tx.push(s);
      open.delete(pid!);
      const rows = tx.filter((x) => x.startsWith("INSERT INTO submissions"));
      if (rows.length === 0) for (const x of tx) add(outside, name(x));
      else {
        batches += 1;
        for (const r of rows) submissions += (r.match(/\), \(/g)?.length ?? 0) + 1;
        for (const x of tx) add(inBatches, name(x));
      }
    } else if (tx) tx.push(s);
    else add(outside, name(s));
  }
  const lines = [
    `${batches} batches, ${submissions} submissions (${(submissions / batches).toFixed(1)} per batch)`,
    "",
    "| statement in a batch's transaction | per batch | per submission |",
    "|---|---|---|",
  ];
  const total = [...inBatches.values()].reduce((a, b) => a + b, 0);
  for (const [k, n] of [...inBatches].sort((a, b) => b[1] - a[1]))
    lines.push(`| \`${k}\` | ${(n / batches).toFixed(2)} | ${(n / submissions).toFixed(3)} |`);
  lines.push(`| **all** | **${(total / batches).toFixed(2)}** | **${(total / submissions).toFixed(3)}** |`, "");
  lines.push("| statement outside the batches | per request |", "|---|---|");
  const rest = [...outside.values()].reduce((a, b) => a + b, 0);
  for (const [k, n] of [...outside].sort((a, b) => b[1] - a[1]).slice(0, 12))
    lines.push(`| \`${k}\` | ${(n / requests).toFixed(3)} |`);
  lines.push(`| **all** | **${(rest / requests).toFixed(3)}** |`);
  return lines.join("\n");
}
