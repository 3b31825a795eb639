// The PostgreSQL part of `npm run bench`: a private cluster (test/helpers/postgres.ts, PostgreSQL 18
// from npm, 127.0.0.1 only, gone when the bench exits) pinned to one core, a database with a key and
// a form, and what the cluster did during a run (its CPU time, WAL flushes, commits, table reads).
import { SQL } from "bun";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../src/config";
import { openStore } from "../src/db/store";
import { systemClock } from "../src/lib/clock";
import { silentLogger } from "../src/lib/log";
import { createServices } from "../src/services";
import { testPostgres } from "../test/helpers/postgres";
import { OPERATOR } from "../src/lib/principal";

/** `inFlight` callers each running `op` back to back until `until` (performance.now()); how many ops ran, their latencies into `latencies` when given. */
export async function closedLoop(
  inFlight: number,
  op: (i: number) => unknown,
  until: number,
  latencies: number[] | null,
): Promise<number> {
  let n = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async (_, i) => {
      while (performance.now() < until) {
        const t0 = performance.now();
        await op(i);
        latencies?.push(performance.now() - t0);
        n++;
      }
    }),
  );
  return n;
}

export interface BenchPostgres {
  /** The bench's database. */
  url: string;
  /** The cluster's main process: every server process of the cluster is it or one of its children. */
  postmasterPid: number;
  /** CPU time (user + system) the whole cluster has used so far, in ms: live processes and the reaped ones. */
  cpuMs(): number;
  /** Cumulative counters of the bench's database and the cluster's WAL, read through the admin connection. */
  stats(): Promise<PgStats>;
  close(): Promise<void>;
}

export interface PgStats {
  /** Transactions committed in the bench's database (read-only ones too: every statement outside a transaction is one). */
  commits: number;
  /** WAL flushes to disk (pg_stat_io, object wal): the fsyncs that durable commits wait for. */
  walFsyncs: number;
  walBytes: number;
  /** Index and sequential scans started on api_keys and forms: the reads the servers' key and form caches exist to avoid. */
  keyReads: number;
  formReads: number;
  /** Deadlocks PostgreSQL detected in the bench's database (pg_stat_database). */
  deadlocks: number;
}

/** One measurement of bench/pg-limits.ts: an operation run by `inFlight` callers in a loop. */
export interface Rate {
  inFlight: number;
  perSecond: number;
  /** Latency of one operation, ms. */
  p50: number;
  p99: number;
  /** CPU per operation, µs: the client process (Bun's SQL client and the caller), and the whole cluster. */
  clientCpuUs: number;
  serverCpuUs: number;
}

/** What bench/pg-limits.ts prints. */
export interface PgLimits {
  settings: Record<string, string>;
  seconds: number;
  /** Single-row INSERT transactions, synchronous_commit on. */
  commits: Rate[];
  /** `SELECT 1`: the round trip alone. */
  roundTrip: Rate[];
  /** The shared limiter's take, every caller on one bucket (one key), and each on its own. */
  oneBucket: Rate[];
  ownBuckets: Rate[];
}

/** /proc/<pid>/stat fields after the command name: utime 11, stime 12, cutime 13, cstime 14 (clock ticks of 10 ms). */
function procStat(pid: number): string[] | null {
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  } catch {
    return null; // gone meanwhile
  }
}

function childrenOf(parent: number): number[] {
  const pids: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const f = procStat(Number(name));
    if (f && Number(f[1]) === parent) pids.push(Number(name));
  }
  return pids;
}

/** The cluster's CPU time so far, ms: the postmaster (with its reaped children) and every live child. */
export function clusterCpuMs(postmasterPid: number): number {
  const tick = (f: string[] | null, fields: number[]) => (f ? fields.reduce((s, i) => s + Number(f[i]), 0) : 0);
  let ticks = tick(procStat(postmasterPid), [11, 12, 13, 14]);
  for (const pid of childrenOf(postmasterPid)) ticks += tick(procStat(pid), [11, 12]);
  return ticks * 10;
}

/**
 * Starts the cluster, pins it to `core` (null: leaves it free on every core; the postmaster and its children now; backends forked later
 * inherit the postmaster's affinity) and makes the bench's database.
 */
export async function startBenchPostgres(core: number | null): Promise<BenchPostgres> {
  const pg = await testPostgres();
  const url = await pg.newDatabase();
  const dbName = new URL(url).pathname.slice(1);
  const admin = new SQL({ url: pg.adminUrl, max: 1 });
  // pg_stat_user_tables shows its connection's own database only: the bench's, through a connection of its own.
  const tables = new SQL({ url, max: 1 });
  const [{ data_directory }] = await admin`SHOW data_directory`;
  const postmasterPid = Number(readFileSync(join(data_directory, "postmaster.pid"), "utf8").split("\n")[0]);
  if (core !== null && Bun.which("taskset")) {
    for (const pid of [postmasterPid, ...childrenOf(postmasterPid)]) {
      Bun.spawnSync(["taskset", "-a", "-p", "-c", String(core), String(pid)], { stdout: "ignore", stderr: "ignore" });
    }
  }
  return {
    url,
    postmasterPid,
    cpuMs: () => clusterCpuMs(postmasterPid),
    async stats() {
      const [db] = await admin`SELECT xact_commit, deadlocks FROM pg_stat_database WHERE datname = ${dbName}`;
      const [io] = await admin`SELECT COALESCE(sum(fsyncs), 0) AS fsyncs FROM pg_stat_io WHERE object = 'wal'`;
      const [wal] = await admin`SELECT wal_bytes FROM pg_stat_wal`;
      const reads =
        await tables`SELECT relname, COALESCE(seq_scan, 0) + COALESCE(idx_scan, 0) AS n FROM pg_stat_user_tables WHERE relname IN ('api_keys', 'forms')`;
      const readsOf = (name: string) => Number(reads.find((r: { relname: string }) => r.relname === name)?.n ?? 0);
      return {
        commits: Number(db.xact_commit),
        walFsyncs: Number(io.fsyncs),
        walBytes: Number(wal.wal_bytes),
        keyReads: readsOf("api_keys"),
        formReads: readsOf("forms"),
        deadlocks: Number(db.deadlocks),
      };
    },
    close: async () => {
      await tables.close();
      await admin.close();
    },
  };
}

/** A key and a form on the PostgreSQL database, made as the SQLite database's are. */
export async function preparePostgres(url: string): Promise<{ key: string; formId: string }> {
  const config = loadConfig({}, { db: url, logLevel: "silent" });
  const store = await openStore(url);
  const services = await createServices({ store, clock: systemClock, config, log: silentLogger });
  const key = (await services.keys.createKey(OPERATOR, { owner: "bench@example.com", name: "bench" })).key;
  const formId = (
    await services.forms.createForm(OPERATOR, {
      owner: "bench@example.com",
      name: "Submit target",
      formType: "contact",
    })
  ).id;
  services.close();
  await store.close();
  return { key, formId };
}
