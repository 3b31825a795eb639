// A scheduled backup's cost on a database of N submissions (default 1,000,000): time against
// `sqlite3 .backup` of the same file in the same run, compressed size, and this process's peak RSS
// while it streams (it should stay flat, not grow with the database). Usage: bun bench/backup.ts [N] [DB]
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../src/config";
import { openStore } from "../src/db/store";
import { systemClock } from "../src/lib/clock";
import { createLogger } from "../src/lib/log";
import { OPERATOR } from "../src/lib/principal";
import { createServices } from "../src/services";
import { seedSubmissions } from "./seed";

const count = Number(process.argv[2] ?? 1_000_000);
const work = mkdtempSync(join(tmpdir(), "formsvc-bench-backup-"));
const db = process.argv[3] ?? join(bench(), `backup-${count}.db`);

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
    },
    null,
    2,
  ),
);
await store.close();
rmSync(work, { recursive: true, force: true });
