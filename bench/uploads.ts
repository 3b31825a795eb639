// File uploads (issue 27), against one `formsvc serve` on a fresh SQLite database with files in a folder:
// 1. throughput of 1 MB and 20 MB uploads (one at a time, each acknowledged once fsynced and committed)
//    against writing the same bytes with Bun.write in the same run (the limit), with and without fsync;
// 2. the server's memory during a 100 MB upload (anonymous memory and RSS from /proc, sampled every 10 ms);
// 3. a submit without a file to a form whose `files` setting is on, against the same submit to a form
//    with files off: the server's CPU per request (/proc/PID/stat), JSON and multipart, in turns.
// Usage: bun bench/uploads.ts [--quick]
import { closeSync, fsyncSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../src/config";
import { openStore } from "../src/db/store";
import { systemClock } from "../src/lib/clock";
import { createLogger } from "../src/lib/log";
import { OPERATOR } from "../src/lib/principal";
import { createServices } from "../src/services";
import { BUN, cpuMs, freePort, killAll, log, median, QUICK, startServer } from "./harness";

const MB = 1024 * 1024;
const work = mkdtempSync(join(tmpdir(), "formsvc-bench-uploads-"));
const db = join(work, "formsvc.db");
const filesDir = join(work, "files");

const config = loadConfig({}, { db, files: filesDir, logLevel: "silent" });
const store = await openStore(db);
const services = await createServices({ store, clock: systemClock, config, log: createLogger("silent") });
const key = (await services.keys.createKey(OPERATOR, { owner: "bench@example.com", name: "bench-uploads" })).key;
const withFiles = (
  await services.forms.createForm(OPERATOR, {
    owner: "bench@example.com",
    name: "files on",
    files: { maxFileBytes: 200 * MB, maxFiles: 5, maxTotalBytes: 200 * MB, types: ["application/octet-stream"] },
  })
).id;
const withoutFiles = (await services.forms.createForm(OPERATOR, { owner: "bench@example.com", name: "files off" })).id;
await services.close();
await store.close();

const port = await freePort();
const server = await startServer([BUN, "src/main.ts", "serve", "--port", String(port)], port, {
  FORMSVC_DB: db,
  FORMSVC_FILES: filesDir,
  FORMSVC_RATE_LIMIT: "1000000000",
  FORMSVC_LOG_LEVEL: "warn",
  FORMSVC_MAX_UPLOAD_BYTES: String(200 * MB),
});
const base = `http://127.0.0.1:${port}`;
const headers = { "x-api-key": key };

function memory(pid: number): { anon: number; rss: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)![1]) / 1024;
  return { anon: kb("RssAnon"), rss: kb("VmRSS") };
}

async function upload(bytes: Uint8Array): Promise<void> {
  const form = new FormData();
  form.append("formId", withFiles);
  form.append("file", new Blob([bytes as Uint8Array<ArrayBuffer>]), "upload.bin");
  const res = await fetch(`${base}/api/v1/forms/submit`, { method: "POST", headers, body: form });
  if (res.status !== 200) throw new Error(`upload answered ${res.status}: ${await res.text()}`);
}

/** MB/s of `count` uploads of `size` bytes, one at a time, against Bun.write of the same bytes (plain, and fsynced as the store does). */
async function throughput(size: number, count: number) {
  const bytes = crypto.getRandomValues(new Uint8Array(size > 65536 ? 65536 : size));
  const body = new Uint8Array(size);
  for (let at = 0; at < size; at += bytes.length) body.set(bytes.subarray(0, Math.min(bytes.length, size - at)), at);
  body.fill(0xa5, 0, 64); // no magic number by chance: the form takes application/octet-stream only
  await upload(body); // warm-up
  let t = performance.now();
  for (let i = 0; i < count; i++) await upload(body);
  const uploadMs = performance.now() - t;
  t = performance.now();
  for (let i = 0; i < count; i++) await Bun.write(join(work, `limit-${i}.bin`), body);
  const writeMs = performance.now() - t;
  t = performance.now();
  for (let i = 0; i < count; i++) {
    const path = join(work, `limit-sync-${i}.bin`);
    await Bun.write(path, body);
    const fd = openSync(path, "r");
    fsyncSync(fd);
    closeSync(fd);
  }
  const syncMs = performance.now() - t;
  for (let i = 0; i < count; i++) rmSync(join(work, `limit-${i}.bin`), { force: true });
  for (let i = 0; i < count; i++) rmSync(join(work, `limit-sync-${i}.bin`), { force: true });
  const rate = (ms: number) => (size * count) / MB / (ms / 1000);
  return { upload: rate(uploadMs), write: rate(writeMs), writeSync: rate(syncMs) };
}

/** The server's memory while one upload of `megabytes` streams in (chunked, no Content-Length). */
async function bigUpload(megabytes: number) {
  const chunk = new Uint8Array(MB).fill(0xa5);
  const B = "----formsvc-bench";
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      c.enqueue(
        Buffer.from(
          `--${B}\r\nContent-Disposition: form-data; name="formId"\r\n\r\n${withFiles}\r\n--${B}\r\nContent-Disposition: form-data; name="f"; filename="big.bin"\r\n\r\n`,
        ),
      );
    },
    pull(c) {
      if (sent < megabytes * MB) {
        c.enqueue(chunk);
        sent += MB;
      } else {
        c.enqueue(Buffer.from(`\r\n--${B}--\r\n`));
        c.close();
      }
    },
  });
  const before = memory(server.pid);
  const peak = { ...before };
  const sampler = setInterval(() => {
    const now = memory(server.pid);
    peak.anon = Math.max(peak.anon, now.anon);
    peak.rss = Math.max(peak.rss, now.rss);
  }, 10);
  const t = performance.now();
  const res = await fetch(`${base}/api/v1/forms/submit`, {
    method: "POST",
    headers: { ...headers, "content-type": `multipart/form-data; boundary=${B}` },
    body,
    // @ts-expect-error Bun streams a request body given as a stream
    duplex: "half",
  });
  await res.arrayBuffer();
  const ms = performance.now() - t;
  clearInterval(sampler);
  if (res.status !== 200) throw new Error(`the ${megabytes} MB upload answered ${res.status}`);
  return { before, peak, ms };
}

/** Server CPU µs per submit without a file: `requests` of them, 16 at a time. */
async function submitCost(formId: string, kind: "json" | "multipart", requests: number): Promise<number> {
  const one = () => {
    if (kind === "json")
      return fetch(`${base}/api/v1/forms/submit`, {
        method: "POST",
        headers: { ...headers, "content-type": "application/json" },
        body: JSON.stringify({ formId, data: { name: "Ada", message: "no file here" } }),
      });
    const form = new FormData();
    form.append("formId", formId);
    form.append("name", "Ada");
    form.append("message", "no file here");
    return fetch(`${base}/api/v1/forms/submit`, { method: "POST", headers, body: form });
  };
  let next = 0;
  const cpu0 = cpuMs(server.pid);
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next++ < requests) {
        const res = await one();
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`a submit answered ${res.status}`);
      }
    }),
  );
  return ((cpuMs(server.pid) - cpu0) * 1000) / requests;
}

try {
  log(`server pid ${server.pid} on core 0; files in ${filesDir}`);
  const rows: string[] = [];
  for (const [size, count] of [
    [1 * MB, QUICK ? 20 : 100],
    [20 * MB, QUICK ? 3 : 10],
  ] as const) {
    const r = await throughput(size, count);
    rows.push(
      `| ${size / MB} MB × ${count} | ${r.upload.toFixed(0)} | ${r.write.toFixed(0)} | ${r.writeSync.toFixed(0)} | ${(r.upload / r.writeSync).toFixed(2)} × |`,
    );
  }
  console.log("| upload, one at a time | uploads MB/s | Bun.write MB/s | Bun.write + fsync MB/s | uploads / fsynced |");
  console.log("|---|---|---|---|---|");
  for (const row of rows) console.log(row);

  await bigUpload(4); // warm the path
  const big = await bigUpload(100);
  console.log(
    `\n100 MB upload (${big.ms.toFixed(0)} ms): anonymous memory ${big.before.anon.toFixed(1)} → peak ${big.peak.anon.toFixed(1)} MiB (+${(big.peak.anon - big.before.anon).toFixed(1)}); RSS ${big.before.rss.toFixed(1)} → peak ${big.peak.rss.toFixed(1)} MiB (+${(big.peak.rss - big.before.rss).toFixed(1)}, the stored file's page cache included)`,
  );

  const requests = QUICK ? 500 : 2000;
  const cost: Record<string, number[]> = {};
  for (const kind of ["json", "multipart"] as const) await submitCost(withFiles, kind, 200); // warm-up
  for (let round = 0; round < 3; round++)
    for (const kind of ["json", "multipart"] as const)
      for (const [name, formId] of [
        ["files off", withoutFiles],
        ["files on", withFiles],
      ] as const)
        (cost[`${kind}|${name}`] ??= []).push(await submitCost(formId, kind, requests));
  console.log(
    `\n| submit without a file (${requests} × 3, 16 at a time) | files off µs CPU | files on µs CPU | on / off |`,
  );
  console.log("|---|---|---|---|");
  for (const kind of ["json", "multipart"]) {
    const off = median(cost[`${kind}|files off`]!);
    const on = median(cost[`${kind}|files on`]!);
    console.log(
      `| ${kind} | ${off.toFixed(0)} (${cost[`${kind}|files off`]!.map((x) => x.toFixed(0)).join(", ")}) | ${on.toFixed(0)} (${cost[`${kind}|files on`]!.map((x) => x.toFixed(0)).join(", ")}) | ${(on / off).toFixed(2)} × |`,
    );
  }
} finally {
  killAll();
  rmSync(work, { recursive: true, force: true });
}
