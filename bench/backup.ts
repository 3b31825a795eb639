// A scheduled backup's cost on a database of N submissions (default 1,000,000): time against
// `sqlite3 .backup` of the same file in the same run, compressed size, this process's peak RSS while
// it streams (it should stay flat, not grow with the database), and submit throughput of `serve`
// while its schedule keeps a backup running against the same server without one (in turns, wrk on
// core 1, the server and its backups on core 0). Usage: bun bench/backup.ts [N] [DB] [--quick]
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../src/config";
import { openStore } from "../src/db/store";
import { systemClock } from "../src/lib/clock";
import { createLogger } from "../src/lib/log";
import { OPERATOR } from "../src/lib/principal";
import { createServices } from "../src/services";
import { BUN, ensureWrk, freePort, log, median, postScript, QUICK, startServer, wrk, type WrkResult } from "./harness";
import { seedSubmissions } from "./seed";

const count = Number(process.argv[2]?.startsWith("--") === false ? process.argv[2] : 1_000_000);
const work = mkdtempSync(join(tmpdir(), "formsvc-bench-backup-"));
const db = process.argv[3]?.startsWith("--") === false ? process.argv[3] : join(bench(), `backup-${count}.db`);

function bench() {
  const dir = join(import.meta.dir, ".work");
  return existsSync(dir) ? dir : work;
}

const config = loadConfig({}, { db, backupTo: join(work, "backups"), logLevel: "silent" });
const store = await openStore(db);
const services = await createServices({ store, clock: systemClock, config, log: createLogger("silent") });
if (!(await store.sql.get("SELECT 1 AS one FROM forms LIMIT 1"))) {
  const form = await services.forms.createForm(OPERATOR, {
    owner: "bench@example.com",
    name: "Bench",
    formType: "feedback",
  });
  await seedSubmissions(store.sql, form, count, { label: `seeding ${count} submissions` });
}
await store.sql.get("PRAGMA wal_checkpoint(TRUNCATE)");

const time = async (fn: () => unknown) => {
  const t = performance.now();
  await fn();
  return (performance.now() - t) / 1000;
};
// Anonymous memory apart: RSS also counts the database pages SQLite's memory map has read (file-backed).
const anon = () => Number(/RssAnon:\s+(\d+)/.exec(readFileSync("/proc/self/status", "utf8"))?.[1] ?? 0) * 1024;
const rss0 = process.memoryUsage.rss();
const anon0 = anon();
let peak = rss0;
let anonPeak = anon0;
const sampler = setInterval(() => {
  peak = Math.max(peak, process.memoryUsage.rss());
  anonPeak = Math.max(anonPeak, anon());
}, 20);
const sqlite3 = await time(() => Bun.spawnSync(["sqlite3", db, `.backup ${join(work, "sqlite3.db")}`]));
let made: Awaited<ReturnType<typeof services.backups.create>> | undefined;
const ours = await time(async () => (made = await services.backups.create()));
clearInterval(sampler);

// Submit while backups run: a schedule of every second keeps one running (a run asked for while
// another is under way joins it), so the whole load meets a backup.
const key = (await services.keys.createKey(OPERATOR, { owner: "bench@example.com", name: "bench-backup" })).key;
const formId = (await store.sql.get<{ id: string }>("SELECT id FROM forms LIMIT 1"))!.id;
await store.close();
ensureWrk();
const script = postScript(
  "backup-submit",
  "/api/v1/forms/submit",
  { formId, data: { email: "ada@example.com", message: "Hello" } },
  { "X-API-Key": key },
);
const under: Record<"without" | "during", WrkResult[]> = { without: [], during: [] };
for (let rep = 0; rep < (QUICK ? 1 : 3); rep++) {
  for (const mode of ["without", "during"] as const) {
    const port = await freePort();
    const server = await startServer([BUN, "src/main.ts", "serve", "--port", String(port)], port, {
      FORMSVC_DB: db,
      FORMSVC_RATE_LIMIT: "1000000000",
      FORMSVC_LOG_LEVEL: "warn",
      FORMSVC_BACKUP_TO: join(work, "served-backups"),
      FORMSVC_BACKUP_KEEP: "1",
      ...(mode === "during" ? { FORMSVC_BACKUP_SCHEDULE: "* * * * * *" } : {}),
    });
    // The first scheduled backup starts within a second.
    await Bun.sleep(1500);
    // With the server's pid, wrk() also reports its CPU per request.
    const result = await wrk(`http://127.0.0.1:${port}/`, { script, pid: server.pid });
    under[mode].push(result);
    log(`  submit ${mode} a backup: ${result.rps.toFixed(0)} req/s, p99 ${result.p99.toFixed(1)} ms`);
    server.kill("SIGTERM");
    await server.exited;
  }
}
const mid = (mode: "without" | "during", f: (r: WrkResult) => number) => median(under[mode].map(f));
const mib = (b: number) => (b / 1024 / 1024).toFixed(1);
console.log(
  JSON.stringify(
    {
      submissions: count,
      databaseMiB: mib(statSync(db).size),
      sqlite3BackupSeconds: sqlite3.toFixed(2),
      formsvcBackupSeconds: ours.toFixed(2),
      compressedMiB: mib(made!.bytes),
      rssBeforeMiB: mib(rss0),
      rssPeakMiB: mib(peak),
      anonymousBeforeMiB: mib(anon0),
      anonymousPeakMiB: mib(anonPeak),
      submitReqPerSecWithout: mid("without", (r) => r.rps).toFixed(0),
      submitReqPerSecDuringBackups: mid("during", (r) => r.rps).toFixed(0),
      submitDuringOverWithout: (mid("during", (r) => r.rps) / mid("without", (r) => r.rps)).toFixed(2),
      submitP99MsWithout: mid("without", (r) => r.p99).toFixed(1),
      submitP99MsDuringBackups: mid("during", (r) => r.p99).toFixed(1),
      serverCpuUsPerSubmitWithout: mid("without", (r) => r.cpuUs!).toFixed(1),
      serverCpuUsPerSubmitDuringBackups: mid("during", (r) => r.cpuUs!).toFixed(1),
    },
    null,
    2,
  ),
);
rmSync(work, { recursive: true, force: true });
