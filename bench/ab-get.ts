// `bun bench/ab-get.ts SECONDS ROUNDS LABEL=DIR ...`: GET /forms/{id} with a secret key against the
// server of each source tree (a `git archive` of an older commit in /tmp with node_modules linked,
// say, beside this one), one server at a time beside bare GET (b); per round (b), then the trees in
// order and in reverse, each on the submit mix's database with nothing submitted. Medians of server
// CPU per request. Before 2026-11-26 it took two directories: `DIR_A DIR_B SECONDS ROUNDS`.
import { BUN, freePort, killAll, log, median, startServer, wrk } from "./harness";
import { prepareMix } from "./submit-mix";

const [seconds, rounds] = [Number(process.argv[2] ?? 4), Number(process.argv[3] ?? 1)];
const trees = process.argv
  .slice(4)
  .map((s) => ({ label: s.slice(0, s.indexOf("=")), dir: s.slice(s.indexOf("=") + 1) }));
const cpu: Record<string, number[]> = { "(b) bare GET": [] };
const rps: Record<string, number[]> = { "(b) bare GET": [] };
try {
  const setup = await prepareMix("ab-get", false);
  const load = async (label: string, cmd: string[], path: string, env: Record<string, string> = {}) => {
    const port = await freePort();
    const server = await startServer([...cmd, `${port}`], port, env);
    const url = `http://127.0.0.1:${port}${path}`;
    const headers = path === "/" ? [] : [`X-API-Key: ${setup.key}`];
    await wrk(url, { headers, durationS: 1 });
    const r = await wrk(url, { headers, durationS: seconds, pid: server.pid });
    server.kill("SIGTERM");
    await server.exited;
    (cpu[label] ??= []).push(r.cpuUs!);
    (rps[label] ??= []).push(r.rps);
  };
  const run = (t: (typeof trees)[number]) =>
    load(t.label, [BUN, `${t.dir}/src/main.ts`, "serve", "--port"], `/api/v1/forms/${setup.forms[0]}`, {
      FORMSVC_DB: setup.db,
      FORMSVC_RATE_LIMIT: "1000000000",
      FORMSVC_LOG_LEVEL: "info",
    });
  for (let i = 0; i < rounds; i++) {
    await load("(b) bare GET", [BUN, "bench/baselines/bun-get.ts"], "/");
    for (const t of trees) await run(t);
    for (const t of [...trees].reverse()) await run(t);
  }
  const bare = median(cpu["(b) bare GET"]!);
  for (const [label, xs] of Object.entries(cpu))
    log(
      `${label}: server CPU ${median(xs).toFixed(2)} µs/req [${xs.map((x) => x.toFixed(1)).join(" ")}], ` +
        `${median(rps[label]!).toFixed(0)} req/s; (b)/this by CPU ${(bare / median(xs)).toFixed(2)}`,
    );
} finally {
  killAll();
}
