// `bun bench/memory.ts [--rounds N] [--seconds S] [--db FILE] [--only load,...] VARIANT...`: idle RSS,
// start to first answer, and peak RSS and req/s under each load, for one or more builds of formsvc
// in turns (A/B/A/B...), a fresh server per load so one load's heap does not carry into the next.
// A VARIANT is a checkout (runs `bun DIR/src/main.ts serve`) or an executable (`dist/formsvc`).
// The database (default: bench/.work/formsvc-100000.db from `npm run bench -- --quick`) is copied
// once per variant into /tmp, so the submits of one do not grow the other's. Server on core 0, wrk
// on core 1, 64 connections, 127.0.0.1 only.
import type { Subprocess } from "bun";
import { copyFileSync, existsSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { basename, join, resolve } from "node:path";
import { openStore } from "../src/db/store";
import { createCursorCodec } from "../src/lib/cursor";

const args = process.argv.slice(2);
const option = (name: string, fallback: string) => {
  const i = args.indexOf(`--${name}`);
  return i < 0 ? fallback : args.splice(i, 2)[1]!;
};
const ROUNDS = Number(option("rounds", "3"));
const SECONDS = Number(option("seconds", "6"));
const SOURCE_DB = resolve(option("db", join(import.meta.dir, ".work/formsvc-100000.db")));
const ONLY = option("only", "");
const variants = args.map((a) => resolve(a));
if (variants.length === 0) throw new Error("name at least one checkout or executable");
const BUN = process.execPath;
const CONNECTIONS = 64;
const PAGE_SIZE = 50;

const started = new Set<Subprocess>();
process.on("exit", () => started.forEach((p) => p.kill("SIGKILL")));
process.on("SIGINT", () => process.exit(130));
const log = (s: string) => process.stderr.write(`${s}\n`);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const pinned = (core: number, cmd: string[]) => (Bun.which("taskset") ? ["taskset", "-c", String(core), ...cmd] : cmd);

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** VmRSS, RssAnon and RssFile of a process, MB. */
function memory(pid: number): { rss: number; anon: number; file: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN) / 1024;
  return { rss: kb("VmRSS"), anon: kb("RssAnon"), file: kb("RssFile") };
}

function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

const meta = JSON.parse(readFileSync(`${SOURCE_DB}.json`, "utf8")) as {
  key: string;
  formId: string;
  pagedFormId: string;
};

/** The deep page's cursor (page 9,000, or the last but one of a smaller form), made as the server makes it. */
async function deepPageCursor(db: string): Promise<string> {
  const store = await openStore(db);
  try {
    const secret = (await store.sql.get<{ value: string }>("SELECT value FROM settings WHERE key = 'cursor_secret'"))!
      .value;
    const rows = (await store.sql.get<{ n: number }>("SELECT count(*) AS n FROM submissions WHERE form_id = ?", [
      meta.pagedFormId,
    ]))!.n;
    const pageNo = Math.min(9000, Math.floor(rows / PAGE_SIZE) - 1);
    const at = (await store.sql.get<{ created_at: string; id: string }>(
      "SELECT created_at, id FROM submissions WHERE form_id = ? ORDER BY created_at DESC, id DESC LIMIT 1 OFFSET ?",
      [meta.pagedFormId, (pageNo - 1) * PAGE_SIZE - 1],
    ))!;
    return createCursorCodec(secret).encode(`submissions:${meta.pagedFormId}`, { createdAt: at.created_at, id: at.id });
  } finally {
    await store.close();
  }
}

interface Load {
  name: string;
  path: string;
  script?: string;
}

function submitScript(): string {
  const file = join("/tmp", `formsvc-memory-submit-${process.pid}.lua`);
  const body = JSON.stringify({
    formId: meta.formId,
    data: { email: "ada@example.com", message: "Hello there", rating: 5 },
  });
  writeFileSync(
    file,
    [
      `wrk.method = "POST"`,
      `wrk.body = ${JSON.stringify(body)}`,
      `wrk.headers["Content-Type"] = "application/json"`,
      `wrk.headers["User-Agent"] = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36"`,
      "",
    ].join("\n"),
  );
  return file;
}

async function loads(cursor: string): Promise<Load[]> {
  const page = `/api/v1/forms/${meta.pagedFormId}/submissions`;
  const all: Load[] = [
    { name: "submit", path: "/api/v1/forms/submit", script: submitScript() },
    { name: "GET form", path: `/api/v1/forms/${meta.formId}` },
    { name: "page 1", path: page },
    { name: "deep page", path: `${page}?cursor=${encodeURIComponent(cursor)}` },
    { name: "analytics year", path: `/api/v1/forms/${meta.pagedFormId}/analytics?period=year` },
  ];
  const only = ONLY ? ONLY.split(",") : [];
  return only.length ? all.filter((l) => only.includes(l.name)) : all;
}

interface Started {
  proc: Subprocess;
  port: number;
  firstAnswerMs: number;
}

async function start(variant: string, db: string): Promise<Started> {
  const port = await freePort();
  const isDir = statSync(variant).isDirectory();
  const cmd = isDir
    ? [BUN, join(variant, "src/main.ts"), "serve", "--port", String(port)]
    : [variant, "serve", "--port", String(port)];
  const env = {
    ...process.env,
    FORMSVC_DB: db,
    FORMSVC_RATE_LIMIT: "1000000000",
    FORMSVC_PUBLIC_RATE_LIMIT: "1000000000",
    FORMSVC_LOG_LEVEL: "info",
  };
  const t0 = performance.now();
  const proc = Bun.spawn(pinned(0, cmd), {
    cwd: isDir ? variant : undefined,
    env,
    stdout: "ignore",
    stderr: "inherit",
  });
  started.add(proc);
  for (;;) {
    if (
      await fetch(`http://127.0.0.1:${port}/healthz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    if (proc.exitCode !== null) throw new Error(`${variant} exited early (${proc.exitCode})`);
    if (performance.now() - t0 > 15_000) throw new Error(`${variant} did not answer within 15 s`);
    await Bun.sleep(2);
  }
  return { proc, port, firstAnswerMs: performance.now() - t0 };
}

async function stop(s: Started): Promise<void> {
  s.proc.kill("SIGTERM");
  await s.proc.exited;
  started.delete(s.proc);
}

interface Run {
  rps: number;
  p99: number;
  peakRss: number;
  peakAnon: number;
  cpuUsPerReq: number;
  /** RSS 2 s after the load stopped. */
  afterRss: number;
}

async function wrk(s: Started, load: Load): Promise<Run> {
  const cmd = [
    "wrk",
    "-t1",
    `-c${CONNECTIONS}`,
    `-d${SECONDS}s`,
    "--timeout",
    "5s",
    "--latency",
    "-H",
    `X-API-Key: ${meta.key}`,
  ];
  if (load.script) cmd.push("-s", load.script);
  const cpu0 = cpuMs(s.proc.pid);
  const proc = Bun.spawn(pinned(1, [...cmd, `http://127.0.0.1:${s.port}${load.path}`]), {
    stdout: "pipe",
    stderr: "inherit",
  });
  let peakRss = 0;
  let peakAnon = 0;
  const sampler = setInterval(() => {
    const m = memory(s.proc.pid);
    peakRss = Math.max(peakRss, m.rss);
    peakAnon = Math.max(peakAnon, m.anon);
  }, 50);
  const out = await new Response(proc.stdout).text();
  clearInterval(sampler);
  await proc.exited;
  const cpu = cpuMs(s.proc.pid) - cpu0;
  await Bun.sleep(2000);
  const afterRss = memory(s.proc.pid).rss;
  const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? NaN);
  const bad = /Non-2xx or 3xx responses: (\d+)/.exec(out);
  if (bad) log(`  warning: ${bad[1]} non-2xx answers (${load.name})`);
  const p99 = /\s99%\s+([\d.]+)(us|ms|s)/.exec(out);
  return {
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]),
    p99: p99 ? Number(p99[1]) * ({ us: 0.001, ms: 1, s: 1000 } as Record<string, number>)[p99[2]!]! : NaN,
    peakRss,
    peakAnon,
    cpuUsPerReq: (cpu * 1000) / requests,
    afterRss,
  };
}

async function main() {
  if (!existsSync(SOURCE_DB)) throw new Error(`${SOURCE_DB} is missing: \`npm run bench -- --quick\` seeds it`);
  const dbs = variants.map((v, i) => {
    const db = join("/tmp", `formsvc-memory-${process.pid}-${i}.db`);
    copyFileSync(SOURCE_DB, db);
    return db;
  });
  const cursor = await deepPageCursor(dbs[0]!);
  const plan = await loads(cursor);
  type Row = {
    idle: number[];
    idleAnon: number[];
    idleFile: number[];
    firstAnswer: number[];
    runs: Record<string, Run[]>;
  };
  const rows: Row[] = variants.map(() => ({ idle: [], idleAnon: [], idleFile: [], firstAnswer: [], runs: {} }));
  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (const load of plan) {
        for (const [i, variant] of variants.entries()) {
          const s = await start(variant, dbs[i]!);
          await Bun.sleep(1500);
          const idle = memory(s.proc.pid);
          const row = rows[i]!;
          row.idle.push(idle.rss);
          row.idleAnon.push(idle.anon);
          row.idleFile.push(idle.file);
          row.firstAnswer.push(s.firstAnswerMs);
          const run = await wrk(s, load);
          (row.runs[load.name] ??= []).push(run);
          log(
            `round ${round + 1} ${load.name.padEnd(14)} ${basename(variant).padEnd(14)} idle ${idle.rss.toFixed(1)} (anon ${idle.anon.toFixed(1)}) ` +
              `peak ${run.peakRss.toFixed(1)} (anon ${run.peakAnon.toFixed(1)}) after ${run.afterRss.toFixed(1)} ${Math.round(run.rps)} req/s ${run.cpuUsPerReq.toFixed(1)} µs/req p99 ${run.p99.toFixed(2)} ms`,
          );
          await stop(s);
        }
      }
    }
  } finally {
    for (const db of dbs) for (const suffix of ["", "-wal", "-shm"]) rmSync(db + suffix, { force: true });
  }
  const f = (x: number) => x.toFixed(1);
  console.log(
    `\nmedians over ${ROUNDS} rounds, ${SECONDS} s per load, ${CONNECTIONS} connections; RSS in MB (anonymous in brackets)\n`,
  );
  console.log(
    `| variant | idle RSS | start to first answer | ${plan.map((l) => `${l.name}: peak RSS, req/s, CPU µs/req, RSS 2 s after`).join(" | ")} |`,
  );
  console.log(`|---|---|---|${plan.map(() => "---").join("|")}|`);
  for (const [i, variant] of variants.entries()) {
    const r = rows[i]!;
    const cells = plan.map((l) => {
      const runs = r.runs[l.name]!;
      return `${f(median(runs.map((x) => x.peakRss)))} (${f(median(runs.map((x) => x.peakAnon)))}), ${Math.round(median(runs.map((x) => x.rps)))}, ${f(median(runs.map((x) => x.cpuUsPerReq)))}, ${f(median(runs.map((x) => x.afterRss)))}`;
    });
    console.log(
      `| ${variant} | ${f(median(r.idle))} (${f(median(r.idleAnon))} + file ${f(median(r.idleFile))}) | ${Math.round(median(r.firstAnswer))} ms | ${cells.join(" | ")} |`,
    );
  }
}

await main();
