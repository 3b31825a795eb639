// What the bench scripts share: servers on core 0 and wrk on core 1 against 127.0.0.1, RSS and CPU
// from /proc, start-up time, and the page-depth check. Kills what it started when the process exits.
import { spawnSync, type Subprocess } from "bun";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import type { Store } from "../src/db/store";
import { createCursorCodec, type Position } from "../src/lib/cursor";
import { createSubmissionsRepo } from "../src/modules/submissions/repo";

export const QUICK = process.argv.includes("--quick");
export const DURATION_S = QUICK ? 3 : 8;

export const CONNECTIONS = 64;
// Pages as a caller gets them by default (limit 50).
export const PAGE_SIZE = 50;

export const ROOT = join(import.meta.dir, "..");
// Databases and scripts. BENCH_WORK=/dev/shm/… puts them on tmpfs, where an fsync costs nothing: a
// stand-in for a fast disk (the 16-core machine's) on which the CPU per request shows as it is.
export const WORK = process.env.BENCH_WORK ?? join(import.meta.dir, ".work");
export const BUN = process.execPath;

export const started: Subprocess[] = [];
export const killAll = () => started.forEach((p) => p.kill("SIGKILL"));
process.on("exit", killAll);
process.on("SIGINT", () => process.exit(130));

export const log = (s: string) => process.stderr.write(`${s}\n`);
export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
/** `cmd` run on one core (`taskset`), or as it is when `core` is null (free to use every core). */
export const pinned = (core: number | null, cmd: string[]) =>
  core !== null && Bun.which("taskset") ? ["taskset", "-c", String(core), ...cmd] : cmd;

export async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

export function ensureWrk(): void {
  if (Bun.which("wrk")) return;
  log("wrk is missing: installing the Debian package (apt-get install -y wrk)");
  spawnSync(["apt-get", "update", "-qq"], { stdout: "ignore", stderr: "inherit" });
  const res = spawnSync(["apt-get", "install", "-y", "-qq", "wrk"], { stdout: "ignore", stderr: "inherit" });
  if (res.exitCode !== 0 || !Bun.which("wrk")) throw new Error("could not install wrk");
}

export async function waitForPort(port: number, proc: Subprocess, timeoutMs = 15_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      await fetch(`http://127.0.0.1:${port}/`);
      return;
    } catch {}
    if (proc.exitCode !== null) throw new Error(`a server exited early (${proc.exitCode})`);
    if (Date.now() > until) throw new Error(`nothing listened on ${port}`);
    await Bun.sleep(20);
  }
}

/** Builds the bench-only fastify + better-sqlite3 baseline in bench/.work (never part of npm install). */
export function ensureFastify(): boolean {
  const dir = join(WORK, "node");
  if (existsSync(join(dir, "node_modules/better-sqlite3/build/Release/better_sqlite3.node"))) return true;
  log(`installing fastify + better-sqlite3 for baseline (c) into ${dir}`);
  mkdirSync(dir, { recursive: true });
  if (!existsSync(join(dir, "package.json")))
    writeFileSync(join(dir, "package.json"), '{"private":true,"type":"module"}\n');
  const install = spawnSync(["npm", "install", "--no-audit", "--no-fund", "fastify@5", "better-sqlite3@12"], {
    cwd: dir,
    stdout: "ignore",
    stderr: "inherit",
  });
  const rebuild = spawnSync(["npm", "rebuild", "better-sqlite3"], { cwd: dir, stdout: "ignore", stderr: "inherit" });
  const ok =
    install.exitCode === 0 &&
    rebuild.exitCode === 0 &&
    existsSync(join(dir, "node_modules/better-sqlite3/build/Release/better_sqlite3.node"));
  if (!ok) log("baseline (c) could not be built; it is left out of this run");
  return ok;
}

/** Starts a server on core 0; its stdout (the JSON request log) is dropped, or written to `logFile`. */
export async function startServer(
  cmd: string[],
  port: number,
  env: Record<string, string> = {},
  logFile?: string,
  core: number | null = 0,
): Promise<Subprocess> {
  const stdout = logFile ? Bun.file(logFile) : "ignore";
  const proc = Bun.spawn(pinned(core, cmd), { cwd: ROOT, env: { ...process.env, ...env }, stdout, stderr: "inherit" });
  started.push(proc);
  await waitForPort(port, proc);
  return proc;
}

export function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) / 1024 : NaN;
}

export interface WrkResult {
  /** Answers in the run (wrk runs only). */
  requests?: number;
  rps: number;
  p50: number;
  p99: number;
  maxRss?: number;
  /** Server CPU (user + system) per request, µs, for runs given the server's pid. */
  cpuUs?: number;
  /** The kernel's part of `cpuUs` (system time: sockets, the WAL's writes, fsync). */
  sysUs?: number;
  /** Answers that were not 2xx or 3xx, and socket errors (connect, read, write, timeout), as wrk counts them. */
  non2xx?: number;
  socketErrors?: number;
}

const toMs = (v: string, unit: string) => Number(v) * ({ us: 0.001, ms: 1, s: 1000 } as Record<string, number>)[unit]!;

/**
 * One bounded wrk run against 127.0.0.1; given the server's pid, its RSS is sampled meanwhile and its
 * CPU (user + system from /proc) around the run is divided by the requests served.
 */
export async function wrk(
  url: string,
  opts: {
    script?: string;
    headers?: string[];
    pid?: number;
    durationS?: number;
    threads?: number;
    /** Open connections, all threads together (default CONNECTIONS). */
    connections?: number;
    /** wrk's core (default 1); null: free to use every core. */
    core?: number | null;
  } = {},
): Promise<WrkResult> {
  if (!url.startsWith("http://127.0.0.1:")) throw new Error("benchmarks target 127.0.0.1 only");
  const args = [
    "wrk",
    `-t${opts.threads ?? 1}`,
    `-c${opts.connections ?? CONNECTIONS}`,
    `-d${opts.durationS ?? DURATION_S}s`,
    "--timeout",
    "5s",
    "--latency",
  ];
  for (const h of opts.headers ?? []) args.push("-H", h);
  if (opts.script) args.push("-s", opts.script);
  const cpu0 = opts.pid ? cpuMs(opts.pid) : 0;
  const sys0 = opts.pid ? cpuMs(opts.pid, "system") : 0;
  const proc = Bun.spawn(pinned(opts.core === undefined ? 1 : opts.core, [...args, url]), {
    stdout: "pipe",
    stderr: "inherit",
  });
  let maxRss = 0;
  const sampler = opts.pid ? setInterval(() => (maxRss = Math.max(maxRss, rssMb(opts.pid!))), 200) : undefined;
  const out = await new Response(proc.stdout).text();
  clearInterval(sampler);
  await proc.exited;
  const cpu = opts.pid ? cpuMs(opts.pid) - cpu0 : NaN;
  const sys = opts.pid ? cpuMs(opts.pid, "system") - sys0 : NaN;
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]);
  const pct = (p: string) => {
    const m = new RegExp(`\\s${p}%\\s+([\\d.]+)(us|ms|s)`).exec(out);
    return m ? toMs(m[1]!, m[2]!) : NaN;
  };
  const non2xx = /Non-2xx or 3xx responses: (\d+)/.exec(out);
  if (non2xx) log(`  warning: ${non2xx[1]} non-2xx answers from ${url}`);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  const socketErrors = socket ? socket.slice(1).reduce((n, x) => n + Number(x), 0) : 0;
  if (socketErrors) log(`  warning: ${socket![0]} (${url})`);
  const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? NaN);
  return {
    requests,
    rps,
    p50: pct("50"),
    p99: pct("99"),
    non2xx: non2xx ? Number(non2xx[1]) : 0,
    socketErrors,
    ...(opts.pid ? { maxRss, cpuUs: (cpu * 1000) / requests, sysUs: (sys * 1000) / requests } : {}),
  };
}

/** CPU time (user + system, or the kernel's part alone) a process has used so far, in ms, from /proc (clock ticks of 10 ms). */
export function cpuMs(pid: number, part: "all" | "system" = "all"): number {
  // The fields after the command name, which is in parentheses and may hold spaces.
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (((part === "all" ? Number(fields[11]) : 0) + Number(fields[12])) * 1000) / 100;
}

export function postScript(name: string, path: string, body: unknown, headers: Record<string, string>): string {
  const file = join(WORK, `${name}.lua`);
  const lines = [
    `wrk.method = "POST"`,
    `wrk.path = ${JSON.stringify(path)}`,
    `wrk.body = ${JSON.stringify(JSON.stringify(body))}`,
    `wrk.headers["Content-Type"] = "application/json"`,
  ];
  for (const [k, v] of Object.entries(headers)) lines.push(`wrk.headers[${JSON.stringify(k)}] = ${JSON.stringify(v)}`);
  writeFileSync(file, `${lines.join("\n")}\n`);
  return file;
}

/**
 * Page 1 and page 9,000 (or the last page of a smaller form) of a form's submissions: their paths,
 * the deep one with a cursor made as the server makes it, and the keyset query alone for both.
 */
export async function pagedPaths(
  store: Store,
  formId: string,
  rows: number,
): Promise<{ page1: string; page9000: string; storeMs: { page1: number; page9000: number } }> {
  const secret = (await store.sql.get<{ value: string }>("SELECT value FROM settings WHERE key = 'cursor_secret'"))!
    .value;
  const pageNo = Math.min(9000, rows / PAGE_SIZE - 1);
  const at = (await store.sql.get<{ created_at: string; id: string }>(
    "SELECT created_at, id FROM submissions WHERE form_id = ? ORDER BY created_at DESC, id DESC LIMIT 1 OFFSET ?",
    [formId, (pageNo - 1) * PAGE_SIZE - 1],
  ))!;
  const storeMs = await storePageTimes(store, formId, { createdAt: at.created_at, id: at.id });
  const cursor = createCursorCodec(secret).encode(`submissions:${formId}`, { createdAt: at.created_at, id: at.id });
  const base = `/api/v1/forms/${formId}/submissions`;
  return { page1: base, page9000: `${base}?cursor=${encodeURIComponent(cursor)}`, storeMs };
}

/**
 * The keyset query alone, page 1 against page 9,000, read straight from the store: the HTTP figures
 * are answered from the page cache, and this shows what a page costs when it is not cached. The two
 * are timed in turns, so a neighbour's burst on this shared machine lands on both alike.
 */
async function storePageTimes(
  store: Store,
  formId: string,
  deep: Position,
): Promise<{ page1: number; page9000: number }> {
  const repo = createSubmissionsRepo(store.sql);
  const time = async (after: Position | null) => {
    const t0 = performance.now();
    await repo.listSubmissionsByForm(formId, "inbox", after, PAGE_SIZE + 1);
    return performance.now() - t0;
  };
  const page1: number[] = [];
  const page9000: number[] = [];
  for (let i = 0; i < 1100; i++) {
    const [a, b] = [await time(null), await time(deep)];
    // The first hundred warm the page cache and the JIT.
    if (i >= 100) (page1.push(a), page9000.push(b));
  }
  return { page1: median(page1), page9000: median(page9000) };
}

export async function startupMs(db: string, command: string[]): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < (QUICK ? 3 : 5); i++) {
    const port = await freePort();
    const t0 = performance.now();
    const proc = Bun.spawn([...command, "serve", "--port", String(port)], {
      cwd: ROOT,
      env: { ...process.env, FORMSVC_DB: db, FORMSVC_LOG_LEVEL: "silent" },
      stdout: "ignore",
      stderr: "ignore",
    });
    started.push(proc);
    for (;;) {
      const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) break;
      if (performance.now() - t0 > 10_000) throw new Error("serve did not answer within 10 s");
      await Bun.sleep(2);
    }
    times.push(performance.now() - t0);
    proc.kill("SIGTERM");
    await proc.exited;
  }
  return median(times);
}
