// `bun bench/pg-limits.ts URL POSTMASTER_PID [SECONDS]`: where a PostgreSQL-backed formsvc meets its
// limits, measured on the database alone through Bun's built-in client (what formsvc uses):
//   1. the database's commit rate: single-row INSERT transactions with synchronous_commit on (each
//      waits for its WAL flush), N in flight;
//   2. the shared rate limiter: the statement of src/db/shared-buckets.ts (one per request), N in
//      flight, on one bucket (every request with one key, as in the bench) and on distinct ones,
//      beside `SELECT 1` (the round trip alone).
// Prints one JSON object. Run by bench/run.ts pinned to the load generator's core, with the cluster
// on the servers' core; CPU per operation is read for both sides (this process, and the cluster's
// processes from /proc).
import { SQL } from "bun";
import { postgresSql } from "../src/db/postgres/sql";
import { sharedTokenBuckets } from "../src/db/shared-buckets";
import { closedLoop, clusterCpuMs, type PgLimits, type Rate } from "./postgres";

const [url, pidArg, secondsArg] = process.argv.slice(2);
if (!url?.startsWith("postgres://") || !pidArg)
  throw new Error("usage: bun bench/pg-limits.ts postgres://… POSTMASTER_PID [SECONDS]");
if (!/@(127\.\d+\.\d+\.\d+|localhost|\[::1\])[:/]/.test(url)) throw new Error("benchmarks target loopback only");
const postmasterPid = Number(pidArg);
const SECONDS = Number(secondsArg ?? 3);
// 1 and 2: one group committer per instance; 16: one instance's pool (src/db/postgres/store.ts); 64: the bench's connections.
const CONCURRENCY = [1, 2, 16, 64];

/** Runs `op` with `inFlight` callers in a loop for SECONDS (after a short warm-up); rate, latency and CPU per operation. */
async function measure(inFlight: number, op: (i: number) => unknown): Promise<Rate> {
  const loop = (until: number, latencies: number[] | null) => closedLoop(inFlight, op, until, latencies);
  await loop(performance.now() + 300, null);
  const latencies: number[] = [];
  const cpu0 = process.cpuUsage();
  const server0 = clusterCpuMs(postmasterPid);
  const t0 = performance.now();
  const n = await loop(t0 + SECONDS * 1000, latencies);
  const wall = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const server = clusterCpuMs(postmasterPid) - server0;
  latencies.sort((a, b) => a - b);
  const at = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))]!;
  return {
    inFlight,
    perSecond: n / wall,
    p50: at(0.5),
    p99: at(0.99),
    clientCpuUs: (cpu.user + cpu.system) / n,
    serverCpuUs: (server * 1000) / n,
  };
}

const pool = new SQL({ url, max: Math.max(...CONCURRENCY) });
const settings = Object.fromEntries(
  (
    await pool`SELECT name, setting FROM pg_settings WHERE name IN ('synchronous_commit', 'fsync', 'wal_sync_method', 'commit_delay', 'server_version')`
  ).map((r: { name: string; setting: string }) => [r.name, r.setting]),
);
if (settings.synchronous_commit !== "on" || settings.fsync !== "on")
  throw new Error(`the cluster must commit durably: ${JSON.stringify(settings)}`);

await pool`DROP TABLE IF EXISTS bench_commits`;
await pool`CREATE TABLE bench_commits (id BIGSERIAL PRIMARY KEY, at TIMESTAMPTZ NOT NULL DEFAULT now(), body TEXT NOT NULL)`;
const body = JSON.stringify({ email: "ada@example.com", message: "Hello there", rating: 5 });
const commits: Rate[] = [];
for (const n of CONCURRENCY)
  commits.push(await measure(n, () => pool`INSERT INTO bench_commits (body) VALUES (${body})`));
await pool`DROP TABLE bench_commits`;

// The limiter exactly as the servers run it: the shared buckets over formsvc's own Sql.
const sql = postgresSql(pool);
const buckets = sharedTokenBuckets(sql, "bench", 1_000_000_000, 60, Date.now);
const roundTrip: Rate[] = [];
const oneBucket: Rate[] = [];
const ownBuckets: Rate[] = [];
for (const n of CONCURRENCY) {
  roundTrip.push(await measure(n, () => sql.get("SELECT 1")));
  oneBucket.push(await measure(n, () => buckets.take("one key")));
  ownBuckets.push(await measure(n, (i) => buckets.take(`key ${i}`)));
}
await sql.run("DELETE FROM rate_buckets WHERE name LIKE 'bench:%'").catch(() => {});
await pool.close();
const result: PgLimits = { settings, seconds: SECONDS, commits, roundTrip, oneBucket, ownBuckets };
console.log(JSON.stringify(result));
