// `bun bench/redis-vs-pg.ts [SECONDS]` (optional, not part of `npm run bench`; needs `redis-server`, e.g.
// Debian's package): the shared rate limiter's take as formsvc runs it on PostgreSQL (src/db/shared-buckets.ts)
// beside the same token bucket in Redis, one Lua script per take through Bun's built-in RedisClient: what
// the "add Redis only if the measurement asks for it" would buy. Both servers on core 0 (run this
// pinned to core 1: `taskset -c 1 npx bun bench/redis-vs-pg.ts`), 127.0.0.1 only, stopped at exit.
// Also shows that a take moves pg_current_snapshot, which the caches' change feed compares.
import { RedisClient, SQL } from "bun";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { postgresSql } from "../src/db/postgres/sql";
import { sharedTokenBuckets } from "../src/db/shared-buckets";
import { closedLoop, clusterCpuMs, preparePostgres, startBenchPostgres } from "./postgres";

const SECONDS = Number(process.argv[2] ?? 3);
if (!Bun.which("redis-server")) {
  console.log("redis-server is not installed (Debian: apt-get install redis-server): nothing measured");
  process.exit(0);
}
const pg = await startBenchPostgres(0);
await preparePostgres(pg.url);
const port = await new Promise<number>((resolve) => {
  const s = createServer().listen(0, "127.0.0.1", () => {
    const p = (s.address() as { port: number }).port;
    s.close(() => resolve(p));
  });
});
const pin = Bun.which("taskset") ? ["taskset", "-c", "0"] : [];
const redis = Bun.spawn(
  [...pin, "redis-server", "--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
  { stdout: "ignore", stderr: "inherit" },
);
process.on("exit", () => redis.kill("SIGKILL"));
await Bun.sleep(300);
const processCpuMs = (pid: number) => {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(f[11]) + Number(f[12])) * 10;
};

/** `op` by `inFlight` callers in a loop for SECONDS: rate, p50, CPU per operation on the client and the server. */
async function measure(label: string, inFlight: number, serverCpuMs: () => number, op: (i: number) => unknown) {
  const loop = (until: number, latencies: number[] | null) => closedLoop(inFlight, op, until, latencies);
  await loop(performance.now() + 300, null);
  const latencies: number[] = [];
  const c0 = process.cpuUsage();
  const s0 = serverCpuMs();
  const t0 = performance.now();
  const n = await loop(t0 + SECONDS * 1000, latencies);
  const wall = (performance.now() - t0) / 1000;
  const c = process.cpuUsage(c0);
  const s = serverCpuMs() - s0;
  latencies.sort((a, b) => a - b);
  console.log(
    `| ${label} | ${inFlight} | ${(n / wall).toFixed(0)} | ${latencies[latencies.length >> 1]!.toFixed(3)} | ${((c.user + c.system) / n).toFixed(1)} | ${((s * 1000) / n).toFixed(1)} |`,
  );
}

const pool = new SQL({ url: pg.url, max: 64 });
const sql = postgresSql(pool);
const snapshot = async () => (await sql.get<{ s: string }>("SELECT CAST(pg_current_snapshot() AS TEXT) AS s"))!.s;
const buckets = sharedTokenBuckets(sql, "keys", 1e9, 60, Date.now);
const [s1, s2] = [await snapshot(), await snapshot()];
await buckets.take("bench");
console.log(`pg_current_snapshot: ${s1}, then ${s2} (nothing written), then ${await snapshot()} (after one take)\n`);

// The same bucket in Redis: refilled for the time since its last use, `cost` taken if it holds enough, in one atomic script.
const client = new RedisClient(`redis://127.0.0.1:${port}`);
const TAKE = `local b = redis.call('HMGET', KEYS[1], 't', 'u')
local cap, cost, now, per = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local t = tonumber(b[1]) or cap
local u = tonumber(b[2]) or now
t = math.min(cap, t + math.max(0, now - u) * per)
local ok = 0
if t >= cost then t = t - cost ok = 1 end
redis.call('HSET', KEYS[1], 't', t, 'u', math.max(u, now))
redis.call('PEXPIRE', KEYS[1], 60000)
return {tostring(t), ok}`;
const sha = (await client.send("SCRIPT", ["LOAD", TAKE])) as string;
const redisTake = () =>
  client.send("EVALSHA", [sha, "1", "keys:bench", "1000000000", "1", String(Date.now()), String(1e9 / 60000)]);

console.log("| operation | in flight | per s | p50 ms | client CPU µs | server CPU µs |");
console.log("|---|---|---|---|---|---|");
// Bun's RedisClient is one pipelined connection that every caller shares; the PostgreSQL pool has a connection per caller in flight.
for (const n of [1, 16, 64]) {
  await measure(
    "PostgreSQL `SELECT 1`",
    n,
    () => clusterCpuMs(pg.postmasterPid),
    () => sql.get("SELECT 1"),
  );
  await measure(
    "PostgreSQL limiter take (one bucket)",
    n,
    () => clusterCpuMs(pg.postmasterPid),
    () => buckets.take("bench"),
  );
  await measure(
    "Redis `PING`",
    n,
    () => processCpuMs(redis.pid),
    () => client.send("PING", []),
  );
  await measure("Redis bucket take (`EVALSHA`, one bucket)", n, () => processCpuMs(redis.pid), redisTake);
}
client.close();
await pool.close();
await pg.close();
process.exit(0);
