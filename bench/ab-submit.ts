// `bun bench/ab-submit.ts REPS SECONDS LABEL=DIR ...`: the submit mix (submit-mix.ts) against the
// server of each source tree (a `git archive` of an older commit in /tmp with node_modules linked,
// say, beside this one) and the durable baseline (d), in turns, each tree on its own copy of one
// mix database; medians of server CPU per request, req/s, p99. How issue 31's steps were compared.
import { copyFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import {
  BUN,
  freePort,
  killAll,
  median,
  pinned,
  postScript,
  started,
  waitForPort,
  WORK,
  wrk,
  type WrkResult,
} from "./harness";
import { MIX_ENV } from "./mix";
import { mixScript, prepareMix } from "./submit-mix";

const [reps, seconds, ...specs] = process.argv.slice(2);
const trees = specs.map((s) => ({ label: s.split("=")[0]!, dir: s.slice(s.indexOf("=") + 1) }));
const fresh = (db: string) => ["", "-wal", "-shm"].forEach((x) => rmSync(db + x, { force: true }));
try {
  const mix = await prepareMix("ab-mix", false);
  const servers: { label: string; port: number; pid: number; script: string }[] = [];
  for (const t of trees) {
    const db = join(WORK, `ab-${t.label}.db`);
    fresh(db);
    copyFileSync(mix.db, db);
    const port = await freePort();
    const proc = Bun.spawn(pinned(0, [BUN, "src/main.ts", "serve", "--port", String(port)]), {
      cwd: t.dir,
      env: { ...process.env, FORMSVC_DB: db, FORMSVC_RATE_LIMIT: "1000000000", FORMSVC_LOG_LEVEL: "info", ...MIX_ENV },
      stdout: "ignore",
      stderr: "inherit",
    });
    started.push(proc);
    await waitForPort(port, proc);
    servers.push({ label: t.label, port, pid: proc.pid, script: mixScript(`ab-${t.label}`, mix.key, mix.forms) });
  }
  const dPort = await freePort();
  fresh(join(WORK, "ab-durable.db"));
  const d = Bun.spawn(pinned(0, [BUN, "bench/baselines/bun-durable.ts", String(dPort), join(WORK, "ab-durable.db")]), {
    stdout: "ignore",
    stderr: "inherit",
  });
  started.push(d);
  await waitForPort(dPort, d);
  const plain = postScript("ab-plain", "/submit", { formId: mix.forms[0], data: { email: "ada@example.com" } }, {});
  for (const s of servers) await wrk(`http://127.0.0.1:${s.port}/`, { script: s.script, durationS: 2 });
  const runs: Record<string, WrkResult[]> = {};
  for (let r = 0; r < Number(reps); r++) {
    // Every other repetition in reverse order, so no tree always runs right after (d).
    for (const s of r % 2 ? [...servers].reverse() : servers)
      (runs[s.label] ??= []).push(
        await wrk(`http://127.0.0.1:${s.port}/`, { script: s.script, pid: s.pid, durationS: Number(seconds) }),
      );
    (runs["(d)"] ??= []).push(
      await wrk(`http://127.0.0.1:${dPort}/`, { script: plain, pid: d.pid, durationS: Number(seconds) }),
    );
  }
  for (const [label, rs] of Object.entries(runs))
    console.log(
      `${label}: server CPU ${median(rs.map((x) => x.cpuUs!)).toFixed(1)} µs/req [${rs.map((x) => x.cpuUs!.toFixed(1)).join(" ")}], ` +
        `of which system ${median(rs.map((x) => x.sysUs!)).toFixed(1)}, ` +
        `${median(rs.map((x) => x.rps)).toFixed(0)} req/s, p99 ${median(rs.map((x) => x.p99)).toFixed(1)} ms, ` +
        `max RSS ${Math.max(...rs.map((x) => x.maxRss ?? 0)).toFixed(0)} MB, non-2xx ${rs.map((x) => x.non2xx).join(",")}`,
    );
} finally {
  killAll();
}
