// `bun bench/export-rate.ts DB_PATH FORM_ID [--reps N]`: `formsvc submissions export FORM_ID --format csv`
// against its limit, `sqlite3 -csv` selecting the same rows (the same columns in the same order, in
// the same keyset order) from the same file, in turns, each to a file in bench/.work. Both run on one
// core (taskset -c 0), so the ratio is of rows per core-second even on a busy machine. Prints one JSON
// object: { rows, ours: {rowsPerSecond, seconds, cpuSeconds, peakRssMb, peakAnonMb}, binary?: {…},
// sqlite3: {rowsPerSecond, seconds, cpuSeconds}, ratio, cpuRatio, progressLine }; medians of the reps.
// Without arguments it seeds (once, cached) bench/.work/export-1m.db with a 1,000,000-row form and
// a 100,000-row one through the store code, and measures the big one.
import { Database } from "bun:sqlite";
import { OPERATOR } from "../src/lib/principal";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../src/config";
import { openStore } from "../src/db/store";
import { systemClock } from "../src/lib/clock";
import { silentLogger } from "../src/lib/log";
import { createServices } from "../src/services";
import { seedSubmissions } from "./seed";

const ROOT = join(import.meta.dir, "..");
const WORK = join(import.meta.dir, ".work");
const META_COLUMNS = ["browser", "browserVersion", "os", "osVersion", "device", "country", "language", "referrer"];
const log = (s: string) => process.stderr.write(`${s}\n`);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const pinned = (cmd: string[]) => (Bun.which("taskset") ? ["taskset", "-c", "0", ...cmd] : cmd);
const mb = (bytes: number) => Math.round(bytes / 104857.6) / 10;

/** The cached bench database: a 1,000,000-row form and a 100,000-row one. */
async function seeded(): Promise<{ db: string; big: string; small: string }> {
  const db = join(WORK, "export-1m.db");
  if (!existsSync(`${db}.json`)) {
    mkdirSync(WORK, { recursive: true });
    for (const suffix of ["", "-wal", "-shm"]) rmSync(db + suffix, { force: true });
    const store = await openStore(db);
    const services = await createServices({
      store,
      clock: systemClock,
      config: loadConfig({}, { db, logLevel: "silent" }),
      log: silentLogger,
    });
    const big = await services.forms.createForm(OPERATOR, { owner: "bench@example.com", name: "1M" });
    const small = await services.forms.createForm(OPERATOR, { owner: "bench@example.com", name: "100k" });
    await seedSubmissions(store.sql, small, 100_000, { label: "seeding 100,000" });
    await seedSubmissions(store.sql, big, 1_000_000, { label: "seeding 1,000,000" });
    await store.close();
    writeFileSync(`${db}.json`, JSON.stringify({ big: big.id, small: small.id }));
  }
  return { db, ...JSON.parse(readFileSync(`${db}.json`, "utf8")) };
}

/** The cells of a CSV line (RFC 4180 quoting), enough for our header. */
function headerCells(line: string): string[] {
  const cells: string[] = [];
  for (const m of line.matchAll(/(?:^|,)(?:"((?:[^"]|"")*)"|([^,]*))/g))
    cells.push(m[1] !== undefined ? m[1].replaceAll('""', '"') : m[2]!);
  return cells;
}

/** sqlite3's statement for the columns of our header, in its order, in the export's keyset order. */
function baselineQuery(header: string[], formId: string): string {
  const literal = (s: string) => `'${s.replaceAll("'", "''")}'`;
  const path = (keys: string[]) => literal(`$${keys.map((k) => `."${k.replaceAll('"', '\\"')}"`).join("")}`);
  const fields = header.slice(2, header.length - META_COLUMNS.length).map((k) => `data->>${path([k])}`);
  const meta = META_COLUMNS.map((k) => `data->>${path(["_meta", k])}`);
  return `SELECT ${["id", "created_at", ...fields, ...meta].join(", ")} FROM submissions WHERE form_id = ${literal(formId)} AND status = 'inbox' ORDER BY created_at, id`;
}

interface Run {
  seconds: number;
  cpuSeconds: number;
  peakRssMb: number;
  peakAnonMb: number;
  stderr: string;
}

/** Runs `cmd` to completion, its stdout to `out` when given; peak RSS from rusage, anonymous memory sampled from /proc. */
async function timed(cmd: string[], out?: string): Promise<Run> {
  const started = performance.now();
  const proc = Bun.spawn(pinned(cmd), { cwd: ROOT, stdout: out ? Bun.file(out) : "ignore", stderr: "pipe" });
  let peakAnon = 0;
  // taskset execs the command in place, so the pid is the command's.
  const sample = () => {
    try {
      peakAnon = Math.max(
        peakAnon,
        Number(/RssAnon:\s+(\d+)/.exec(readFileSync(`/proc/${proc.pid}/status`, "utf8"))?.[1] ?? 0),
      );
    } catch {}
  };
  const sampler = setInterval(sample, 20);
  const stderr = await new Response(proc.stderr).text();
  const code = await proc.exited;
  clearInterval(sampler);
  const seconds = (performance.now() - started) / 1000;
  if (code !== 0) throw new Error(`${cmd.join(" ")} exited ${code}: ${stderr}`);
  const usage = proc.resourceUsage()!;
  const cpuSeconds = Number(usage.cpuTime.user + usage.cpuTime.system) / 1e6;
  return { seconds, cpuSeconds, peakRssMb: mb(usage.maxRSS), peakAnonMb: mb(peakAnon * 1024), stderr };
}

let [dbPath, formId] = process.argv.slice(2).filter((a, i, all) => !a.startsWith("--") && all[i - 1] !== "--reps");
const repsAt = process.argv.indexOf("--reps");
const reps = repsAt > 0 ? Number(process.argv[repsAt + 1]) : 3;
if (!Number.isInteger(reps) || reps < 1) throw new Error("--reps takes a whole number ≥ 1");
if (dbPath === undefined || formId === undefined) ({ db: dbPath, big: formId } = await seeded());

const db = new Database(dbPath, { readonly: true });
const rows = (
  db.query("SELECT count(*) AS n FROM submissions WHERE form_id = ? AND status = 'inbox'").get(formId) as { n: number }
).n;
db.close();
mkdirSync(WORK, { recursive: true });
const file = join(WORK, `export-rate-${process.pid}.csv`);
const binaryPath = join(ROOT, "dist/formsvc");
const binary = existsSync(binaryPath);
const exportArgs = ["--db", dbPath, "submissions", "export", formId, "--format", "csv", "--out", file];
const runs = { ours: [] as Run[], binary: [] as Run[], sqlite3: [] as Run[] };
let progressLine = "";
try {
  for (let rep = 0; rep < reps; rep++) {
    const ours = await timed([process.execPath, "src/main.ts", ...exportArgs]);
    runs.ours.push(ours);
    progressLine =
      ours.stderr
        .split(/[\r\n]+/)
        .filter(Boolean)
        .at(-1) ?? "";
    const query = baselineQuery(
      headerCells(
        readFileSync(file, "utf8")
          .slice(0, 64 * 1024)
          .split("\r\n")[0]!,
      ),
      formId,
    );
    runs.sqlite3.push(await timed(["sqlite3", "-csv", dbPath, query], file));
    if (binary) runs.binary.push(await timed([binaryPath, ...exportArgs]));
    log(
      `rep ${rep + 1}/${reps}: ours ${ours.seconds.toFixed(2)} s (cpu ${ours.cpuSeconds.toFixed(2)} s, rss ${ours.peakRssMb} MB), sqlite3 ${runs.sqlite3.at(-1)!.seconds.toFixed(2)} s (cpu ${runs.sqlite3.at(-1)!.cpuSeconds.toFixed(2)} s)`,
    );
  }
} finally {
  rmSync(file, { force: true });
}

const summary = (rs: Run[], memory: boolean) => {
  const seconds = median(rs.map((r) => r.seconds));
  const cpuSeconds = median(rs.map((r) => r.cpuSeconds));
  return {
    rowsPerSecond: Math.round(rows / seconds),
    seconds: Math.round(seconds * 1000) / 1000,
    cpuSeconds: Math.round(cpuSeconds * 1000) / 1000,
    ...(memory
      ? { peakRssMb: Math.max(...rs.map((r) => r.peakRssMb)), peakAnonMb: Math.max(...rs.map((r) => r.peakAnonMb)) }
      : {}),
  };
};
const ours = summary(runs.ours, true);
const sqlite3 = summary(runs.sqlite3, false);
console.log(
  JSON.stringify({
    rows,
    ours,
    ...(binary ? { binary: summary(runs.binary, true) } : {}),
    sqlite3,
    ratio: Math.round((ours.rowsPerSecond / sqlite3.rowsPerSecond) * 1000) / 1000,
    cpuRatio: Math.round((sqlite3.cpuSeconds / ours.cpuSeconds) * 1000) / 1000,
    progressLine,
  }),
);
