// `npm run bench:scale` (or `bun bench/scale.ts --quick`, 1/10 of the sizes): formsvc on a database of
// 10,000,000 submissions (issue 20, item 3), seeded through the submit pipeline's writers and cached in
// bench/.work/. Server on core 0, wrk on core 1, 127.0.0.1 only; kills what it started.
import { spawnSync } from "bun";
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../src/config";
import { openStore } from "../src/db/store";
import { systemClock } from "../src/lib/clock";
import { silentLogger } from "../src/lib/log";
import { createServices } from "../src/services";
import { BUN, DURATION_S, ensureWrk, freePort, killAll, log, median, pagedPaths, postScript, QUICK, ROOT, rssMb, startServer, startupMs, WORK, wrk, type WrkResult } from "./harness";
import { seedSubmissions } from "./seed";

const SCALE = QUICK ? 10 : 1;
const SIZES = { big: 8_999_000 / SCALE, export: 1_000_000 / SCALE, small: 1_000 / SCALE };
const TOTAL = SIZES.big + SIZES.export + SIZES.small;
const REPS = QUICK ? 1 : 3;
// Interleaved single analytics requests per form, as bench/analytics.ts times them.
const ANALYTICS_REQUESTS = QUICK ? 50 : 200;
const UA = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36";

interface ScaleDb {
  key: string;
  bigFormId: string;
  exportFormId: string;
  smallFormId: string;
  emptyFormId: string;
  seedSeconds: number;
}

/** One owner and key; a big form, a form to export, a small one, and an empty one to submit to (cached between runs). */
async function prepareDatabase(): Promise<ScaleDb & { db: string }> {
  const db = join(WORK, `scale-${TOTAL}.db`);
  const meta = `${db}.json`;
  if (!existsSync(meta)) {
    for (const suffix of ["", "-wal", "-shm"]) rmSync(db + suffix, { force: true });
    const t0 = performance.now();
    const owner = "bench@example.com";
    const store = await openStore(db);
    const services = await createServices({ store, clock: systemClock, config: loadConfig({}, { db, logLevel: "silent" }), log: silentLogger });
    const key = (await services.keys.createKey({ owner, name: "bench" })).key;
    const form = (name: string) => services.forms.createForm({ owner, name, formType: "feedback" });
    const [big, exported, small, empty] = [await form("Big"), await form("Export"), await form("Small"), await form("Submit target")];
    await seedSubmissions(store.sql, big, SIZES.big, { label: `seeding ${SIZES.big} submissions (big form)` });
    await seedSubmissions(store.sql, exported, SIZES.export, { label: `seeding ${SIZES.export} submissions (export form)` });
    await seedSubmissions(store.sql, small, SIZES.small, { label: `seeding ${SIZES.small} submissions (small form)` });
    await store.close();
    const cached: ScaleDb = { key, bigFormId: big.id, exportFormId: exported.id, smallFormId: small.id, emptyFormId: empty.id, seedSeconds: (performance.now() - t0) / 1000 };
    writeFileSync(meta, JSON.stringify(cached));
  }
  return { db, ...(JSON.parse(readFileSync(meta, "utf8")) as ScaleDb) };
}

/** Median latency of `period=year` analytics, big form and small form requested in turns, one at a time. */
async function analyticsTimes(base: string, key: string, big: string, small: string): Promise<{ big: number; small: number }> {
  const timeOne = async (formId: string) => {
    const t0 = performance.now();
    const res = await fetch(`${base}/api/v1/forms/${formId}/analytics?period=year`, { headers: { "x-api-key": key } });
    if (res.status !== 200) throw new Error(`analytics answered ${res.status}`);
    await res.arrayBuffer();
    return performance.now() - t0;
  };
  for (let i = 0; i < 20; i++) await Promise.all([timeOne(big), timeOne(small)]);
  const times = { big: [] as number[], small: [] as number[] };
  for (let i = 0; i < ANALYTICS_REQUESTS; i++) {
    times.big.push(await timeOne(big));
    times.small.push(await timeOne(small));
  }
  return { big: median(times.big), small: median(times.small) };
}

interface ExportRate {
  rows: number;
  ours: { rowsPerSecond: number; seconds: number; peakRssMb: number };
  sqlite3: { rowsPerSecond: number; seconds: number };
  ratio: number;
  progressLine: string;
}

/** bench/export-rate.ts on the export form (CSV, ours vs `sqlite3 -csv`), or null when it is missing or fails. */
function exportRate(db: string, formId: string): ExportRate | null {
  const script = join(import.meta.dir, "export-rate.ts");
  if (!existsSync(script)) {
    log("export: bench/export-rate.ts missing");
    return null;
  }
  const run = spawnSync([BUN, script, db, formId], { cwd: ROOT, stderr: "inherit" });
  if (run.exitCode !== 0) {
    log(`export: bench/export-rate.ts exited with ${run.exitCode}`);
    return null;
  }
  return JSON.parse(run.stdout.toString()) as ExportRate;
}

async function main() {
  mkdirSync(WORK, { recursive: true });
  ensureWrk();
  const setup = await prepareDatabase();
  const dbBytes = statSync(setup.db).size;
  log(`database: ${setup.db}, ${(dbBytes / 2 ** 30).toFixed(2)} GiB, seeded in ${setup.seedSeconds.toFixed(0)} s`);
  const store = await openStore(setup.db);
  const pages = await pagedPaths(store, setup.bigFormId, SIZES.big);
  await store.close();

  const env = { FORMSVC_DB: setup.db, FORMSVC_RATE_LIMIT: "1000000000", FORMSVC_PUBLIC_RATE_LIMIT: "1000000000", FORMSVC_LOG_LEVEL: "info" };
  const port = await freePort();
  const url = (path: string) => `http://127.0.0.1:${port}${path}`;
  const server = await startServer([BUN, "src/main.ts", "serve", "--port", String(port)], port, env);
  await Bun.sleep(500);
  const idleRss = rssMb(server.pid);

  const key = [`X-API-Key: ${setup.key}`];
  const body = { formId: setup.emptyFormId, data: { email: "ada@example.com", message: "Hello there", rating: 5 } };
  const submitScript = postScript("scale-submit", "/api/v1/forms/submit", body, { "X-API-Key": setup.key, "User-Agent": UA });
  // Warm-up, not recorded: the first requests compile the handlers and JIT the hot path.
  await wrk(url(pages.page1), { headers: key, durationS: 1 });
  await wrk(url(pages.page9000), { headers: key, durationS: 1 });

  const runs: Record<string, WrkResult[]> = {};
  const record = (name: string, r: WrkResult) => (runs[name] ??= []).push(r);
  for (let rep = 1; rep <= REPS; rep++) {
    log(`pages, repetition ${rep}/${REPS}`);
    record("page 1", await wrk(url(pages.page1), { headers: key }));
    record("page 9000", await wrk(url(pages.page9000), { headers: key }));
  }
  log("analytics period=year, big and small form in turns");
  const analytics = await analyticsTimes(url(""), setup.key, setup.bigFormId, setup.smallFormId);
  log(`submit load, ${DURATION_S} s`);
  const submit = await wrk(url("/"), { script: submitScript, pid: server.pid });
  server.kill("SIGTERM");
  await server.exited;

  log("start to first answer");
  const startMs = await startupMs(setup.db, [BUN, "src/main.ts"]);
  const binaryPath = join(ROOT, "dist/formsvc");
  const binaryStartMs = existsSync(binaryPath) ? await startupMs(setup.db, [binaryPath]) : NaN;
  if (!existsSync(binaryPath)) log("dist/formsvc is not built (npm run build): its start is left out of this run");
  log("export of the 1,000,000-row form (bench/export-rate.ts)");
  const exported = exportRate(setup.db, setup.exportFormId);

  const f = (x: number, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : "-");
  const check = (ok: boolean | null) => (ok === null ? "n/a" : ok ? "pass" : "MISS");
  const m = (name: string, k: keyof WrkResult) => median(runs[name]!.map((r) => r[k] ?? NaN));
  const deepRatio = m("page 9000", "p50") / m("page 1", "p50");
  const storeRatio = pages.storeMs.page9000 / pages.storeMs.page1;
  const analyticsRatio = analytics.big / analytics.small;
  const loadRss = submit.maxRss!;
  const lines = [
    `Machine: ${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(1)} GiB; ${new Date().toISOString().slice(0, 10)}; ${QUICK ? "quick" : "full"} run; database of ${TOTAL.toLocaleString("en")} submissions (${(dbBytes / 2 ** 30).toFixed(2)} GiB, seeded in ${f(setup.seedSeconds, 0)} s): big form ${SIZES.big.toLocaleString("en")}, export form ${SIZES.export.toLocaleString("en")}, small form ${SIZES.small.toLocaleString("en")}; server on core 0, wrk on core 1, ${REPS} repetition(s) of ${DURATION_S} s per page.`,
    "",
    "| scenario | req/s | p50 ms | p99 ms |",
    "|---|---|---|---|",
    ...Object.keys(runs).map((n) => `| ${n} (big form) | ${f(m(n, "rps"), 0)} | ${f(m(n, "p50"))} | ${f(m(n, "p99"))} |`),
    `| submit to the empty form | ${f(submit.rps, 0)} | ${f(submit.p50)} | ${f(submit.p99)} |`,
    "",
    "| figure | measured | goal | |",
    "|---|---|---|---|",
    `| start to first answer (from source, median of launches) | ${f(startMs, 0)} ms | ≤ 200 ms | ${check(startMs <= 200)} |`,
    `| start to first answer (dist/formsvc) | ${f(binaryStartMs, 0)} ms | ≤ 200 ms | ${check(Number.isFinite(binaryStartMs) ? binaryStartMs <= 200 : null)} |`,
    `| idle RSS | ${f(idleRss, 1)} MB | ≤ 64 MB | ${check(idleRss <= 64)} |`,
    `| page 9000 / page 1 (p50 latency) | ${f(deepRatio)} | ≤ 1.2 | ${check(deepRatio <= 1.2)} |`,
    `| page 9000 / page 1, keyset query alone (${f(pages.storeMs.page9000 * 1000, 0)} vs ${f(pages.storeMs.page1 * 1000, 0)} µs) | ${f(storeRatio)} | ≤ 1.2 | ${check(storeRatio <= 1.2)} |`,
    `| analytics period=year, big / small form (${f(analytics.big)} vs ${f(analytics.small)} ms, median of ${ANALYTICS_REQUESTS} each) | ${f(analyticsRatio)} | ≤ 1.5 | ${check(analyticsRatio <= 1.5)} |`,
    `| RSS under submit load | ${f(loadRss, 1)} MB | ≤ 128 MB | ${check(loadRss <= 128)} |`,
    exported
      ? `| export CSV, ours / sqlite3 -csv (${exported.rows.toLocaleString("en")} rows: ${f(exported.ours.rowsPerSecond, 0)} vs ${f(exported.sqlite3.rowsPerSecond, 0)} rows/s) | ${f(exported.ratio)} | ≥ 0.5 | ${check(exported.ratio >= 0.5)} |`
      : "| export CSV, ours / sqlite3 -csv | - | ≥ 0.5 | n/a (bench/export-rate.ts missing or failed) |",
    ...(exported ? [`| export peak RSS | ${f(exported.ours.peakRssMb, 1)} MB | bounded | - |`, "", `Export progress line: \`${exported.progressLine}\``] : []),
  ];
  console.log(lines.join("\n"));
}

try {
  await main();
} finally {
  killAll();
}
