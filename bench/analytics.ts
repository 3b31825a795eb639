// `npm run bench:analytics`: period=year analytics on a 1,000,000-submission form vs a 1,000-submission
// form, over HTTP on 127.0.0.1. Rollups make the cost follow days, not submissions: goal big/small ≤ 1.5.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../src/config";
import { openStore } from "../src/db/store";
import { systemClock } from "../src/lib/clock";
import { silentLogger } from "../src/lib/log";
import { startServer } from "../src/server";
import { createServices } from "../src/services";
import { seedSubmissions } from "./seed";

const WORK = join(import.meta.dir, ".work");
const BIG = Number(process.env.BIG ?? 1_000_000);
const SMALL = 1_000;
const REQUESTS = 200;
const db = join(WORK, `analytics-${BIG}.db`);
const meta = `${db}.json`;
mkdirSync(WORK, { recursive: true });

if (!existsSync(meta)) {
  for (const suffix of ["", "-wal", "-shm"]) rmSync(db + suffix, { force: true });
  const store = await openStore(db);
  const services = await createServices({ store, clock: systemClock, config: loadConfig({}, { db, logLevel: "silent" }), log: silentLogger });
  const key = (await services.keys.createKey({ owner: "bench@example.com" })).key;
  const big = await services.forms.createForm({ owner: "bench@example.com", name: "Big" });
  const small = await services.forms.createForm({ owner: "bench@example.com", name: "Small" });
  await seedSubmissions(store.sql, big, BIG, { label: `seeding ${BIG} submissions` });
  await seedSubmissions(store.sql, small, SMALL, { label: `seeding ${SMALL} submissions` });
  await store.close();
  writeFileSync(meta, JSON.stringify({ key, big: big.id, small: small.id }));
}

const { key, big, small } = JSON.parse(readFileSync(meta, "utf8"));
const server = await startServer(loadConfig({}, { db, port: 0, logLevel: "silent", rateLimit: 1_000_000 }));
const timeOne = async (formId: string) => {
  const t0 = performance.now();
  const res = await fetch(`${server.url}/api/v1/forms/${formId}/analytics?period=year`, { headers: { "x-api-key": key } });
  if (res.status !== 200) throw new Error(`analytics answered ${res.status}`);
  await res.arrayBuffer();
  return performance.now() - t0;
};
for (let i = 0; i < 20; i++) await Promise.all([timeOne(big), timeOne(small)]);
const times: Record<string, number[]> = { big: [], small: [] };
for (let i = 0; i < REQUESTS; i++) {
  times.big!.push(await timeOne(big));
  times.small!.push(await timeOne(small));
}
await server.stop();
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const [mb, ms] = [median(times.big!), median(times.small!)];
console.log(`Machine: ${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(1)} GiB; ${new Date().toISOString().slice(0, 10)}; ${REQUESTS} interleaved requests each`);
console.log(`| form | submissions | median ms (period=year) |\n|---|---|---|\n| big | ${BIG} | ${mb.toFixed(3)} |\n| small | ${SMALL} | ${ms.toFixed(3)} |`);
console.log(`ratio big/small: ${(mb / ms).toFixed(2)} (goal ≤ 1.5) ${mb / ms <= 1.5 ? "pass" : "MISS"}`);
