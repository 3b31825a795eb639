// `npm run bench:analytics`: period=year analytics on a 1,000,000-submission form vs a 1,000-submission
// form, over HTTP on 127.0.0.1, rendered (after a commit to the form) and cached. Rollups make the cost
// follow days, not submissions: goal big/small ≤ 1.5 for a rendered answer.
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
import { OPERATOR } from "../src/lib/principal";

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
  const services = await createServices({
    store,
    clock: systemClock,
    config: loadConfig({}, { db, logLevel: "silent" }),
    log: silentLogger,
  });
  const key = (await services.keys.createKey(OPERATOR, { owner: "bench@example.com" })).key;
  const big = await services.forms.createForm(OPERATOR, { owner: "bench@example.com", name: "Big" });
  const small = await services.forms.createForm(OPERATOR, { owner: "bench@example.com", name: "Small" });
  await seedSubmissions(store.sql, big, BIG, { label: `seeding ${BIG} submissions` });
  await seedSubmissions(store.sql, small, SMALL, { label: `seeding ${SMALL} submissions` });
  await store.close();
  writeFileSync(meta, JSON.stringify({ key, big: big.id, small: small.id }));
}

const { key, big, small } = JSON.parse(readFileSync(meta, "utf8"));
const server = await startServer(loadConfig({}, { db, port: 0, logLevel: "silent", rateLimit: 1_000_000 }));
// A cold answer is rendered from the rollups: a commit to its form drops the cached one. So one
// submission is stored, untimed, before each cold request (dated now, inside the year; each run
// adds REQUESTS + 20 to each form of the cached seed, which moves nothing that a year's cost follows).
const submitTo = async (formId: string) => {
  const res = await fetch(`${server.url}/api/v1/forms/submit`, {
    method: "POST",
    headers: { "x-api-key": key, "content-type": "application/json" },
    body: JSON.stringify({ formId, data: { bench: true } }),
  });
  if (res.status !== 200) throw new Error(`submit answered ${res.status}`);
  await res.arrayBuffer();
};
const timeOne = async (formId: string, cold: boolean) => {
  if (cold) await submitTo(formId);
  const t0 = performance.now();
  const res = await fetch(`${server.url}/api/v1/forms/${formId}/analytics?period=year`, {
    headers: { "x-api-key": key },
  });
  if (res.status !== 200) throw new Error(`analytics answered ${res.status}`);
  await res.arrayBuffer();
  return performance.now() - t0;
};
for (let i = 0; i < 20; i++)
  for (const cold of [true, false]) await Promise.all([timeOne(big, cold), timeOne(small, cold)]);
const times: Record<string, number[]> = {};
// Each round alternates which form goes first: a request right after a cold one (its submit, its render) pays for some of them.
for (let i = 0; i < REQUESTS; i++) {
  for (const cold of [false, true]) {
    for (const [name, formId] of i % 2
      ? [
          ["big", big],
          ["small", small],
        ]
      : [
          ["small", small],
          ["big", big],
        ])
      (times[`${name} ${cold ? "cold" : "cached"}`] ??= []).push(await timeOne(formId, cold));
  }
}
await server.stop();
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const ms = (name: string) => median(times[name]!);
console.log(
  `Machine: ${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(1)} GiB; ${new Date().toISOString().slice(0, 10)}; ${REQUESTS} interleaved requests each`,
);
console.log(
  "| form | submissions | median ms, cold (after a submit to the form) | median ms, cached |\n|---|---|---|---|",
);
console.log(
  `| big | ${BIG} | ${ms("big cold").toFixed(3)} | ${ms("big cached").toFixed(3)} |\n| small | ${SMALL} | ${ms("small cold").toFixed(3)} | ${ms("small cached").toFixed(3)} |`,
);
const cold = ms("big cold") / ms("small cold");
console.log(
  `ratio big/small, cold: ${cold.toFixed(2)} (goal ≤ 1.5) ${cold <= 1.5 ? "pass" : "MISS"}; cached: ${(ms("big cached") / ms("small cached")).toFixed(2)}`,
);
