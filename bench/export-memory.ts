// `npx bun bench/export-memory.ts`: the memory of `formsvc serve` while it streams an export of a
// form of 10,000, 100,000 and 600,000 submissions, as CSV and JSON, each in a fresh process. It reads
// anonymous memory (heap, buffers): RSS also counts the database pages mmap'd while they are read.
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../src/config";
import { openStore } from "../src/db/store";
import { systemClock } from "../src/lib/clock";
import { silentLogger } from "../src/lib/log";
import { createServices } from "../src/services";
import { seedSubmissions } from "./seed";
import { OPERATOR } from "../src/lib/principal";

const SIZES = [10_000, 100_000, 600_000];
const DB = join(import.meta.dir, ".work", "export-memory.db");
if (!existsSync(`${DB}.json`)) {
  for (const suffix of ["", "-wal", "-shm"]) rmSync(DB + suffix, { force: true });
  const store = await openStore(DB);
  const services = await createServices({
    store,
    clock: systemClock,
    config: loadConfig({}, { db: DB, logLevel: "silent" }),
    log: silentLogger,
  });
  const key = (await services.keys.createKey(OPERATOR, { owner: "bench@example.com" })).key;
  const forms: string[] = [];
  for (const n of SIZES) {
    const form = await services.forms.createForm(OPERATOR, { owner: "bench@example.com", name: `${n}` });
    await seedSubmissions(store.sql, form, n, { label: `seeding ${n}` });
    forms.push(form.id);
  }
  await store.close();
  writeFileSync(`${DB}.json`, JSON.stringify({ key, forms }));
}
const { key, forms } = JSON.parse(readFileSync(`${DB}.json`, "utf8")) as { key: string; forms: string[] };

const lines = ["| submissions | format | bytes | anonymous memory before | at most |", "|---|---|---|---|---|"];
for (const [i, formId] of forms.entries()) {
  for (const format of ["csv", "json"]) {
    const proc = Bun.spawn([process.execPath, join(import.meta.dir, "../src/main.ts"), "serve", "--port", "0"], {
      env: { ...process.env, FORMSVC_DB: DB, FORMSVC_LOG_LEVEL: "silent" },
      stdout: "pipe",
      stderr: "ignore",
    });
    const reader = proc.stdout.getReader();
    let out = "";
    while (!/listening on (\S+)/.test(out)) out += new TextDecoder().decode((await reader.read()).value);
    const url = /listening on (\S+)/.exec(out)![1]!;
    const anon = () => Number(/RssAnon:\s+(\d+)/.exec(readFileSync(`/proc/${proc.pid}/status`, "utf8"))![1]) / 1024;
    const before = anon();
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, anon())), 10);
    const res = await fetch(`${url}/api/v1/forms/${formId}/submissions/export?format=${format}`, {
      headers: { "x-api-key": key },
    });
    let bytes = 0;
    const body = res.body!.getReader();
    for (let next = await body.read(); !next.done; next = await body.read()) bytes += next.value.length;
    clearInterval(sampler);
    lines.push(
      `| ${SIZES[i]!.toLocaleString("en")} | ${format} | ${(bytes / 2 ** 20).toFixed(1)} MiB | ${before.toFixed(0)} MiB | ${peak.toFixed(0)} MiB |`,
    );
    process.stderr.write(`${lines.at(-1)}\n`);
    proc.kill();
    await proc.exited;
  }
}
console.log(lines.join("\n"));
