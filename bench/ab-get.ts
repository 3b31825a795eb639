// A/B of GET /forms/{id}, server CPU per request, beside bare GET (b): `bun bench/ab-get.ts DIR_A DIR_B [SECONDS] [ROUNDS]`, servers one at a time, order A B B A per round.
import { BUN, freePort, killAll, log, startServer, wrk } from "./harness";
import { prepareMix } from "./submit-mix";
const [a, b] = [process.argv[2]!, process.argv[3]!];
const seconds = Number(process.argv[4] ?? 4);
const rounds = Number(process.argv[5] ?? 1);
const res: Record<string, number[]> = { A: [], B: [], bare: [] };
try {
  const setup = await prepareMix("ab-get", false);
  const run = async (label: string, dir: string) => {
    const port = await freePort();
    const server = await startServer([BUN, `${dir}/src/main.ts`, "serve", "--port", `${port}`], port, {
      FORMSVC_DB: setup.db,
      FORMSVC_RATE_LIMIT: "1000000000",
      FORMSVC_LOG_LEVEL: "info",
    });
    const url = `http://127.0.0.1:${port}/api/v1/forms/${setup.forms[0]}`;
    const headers = [`X-API-Key: ${setup.key}`];
    await wrk(url, { headers, durationS: 1 });
    const r = await wrk(url, { headers, durationS: seconds, pid: server.pid });
    server.kill("SIGTERM");
    await server.exited;
    res[label]!.push(r.cpuUs!);
    log(`${label} ${dir}: ${r.rps.toFixed(0)} req/s, ${r.cpuUs!.toFixed(2)} µs`);
  };
  const bare = async () => {
    const port = await freePort();
    const server = await startServer([BUN, "bench/baselines/bun-get.ts", `${port}`], port);
    const url = `http://127.0.0.1:${port}/`;
    await wrk(url, { durationS: 1 });
    const r = await wrk(url, { durationS: seconds, pid: server.pid });
    server.kill("SIGTERM");
    await server.exited;
    res.bare!.push(r.cpuUs!);
    log(`(b) bare GET: ${r.rps.toFixed(0)} req/s, ${r.cpuUs!.toFixed(2)} µs`);
  };
  for (let i = 0; i < rounds; i++) {
    await run("A", a);
    await bare();
    await run("B", b);
    await run("B", b);
    await bare();
    await run("A", a);
  }
  const med = (x: number[]) => [...x].sort((p, q) => p - q)[Math.floor(x.length / 2)]!;
  log(
    `median A ${med(res.A!).toFixed(2)} µs, B ${med(res.B!).toFixed(2)} µs, B/A ${(med(res.B!) / med(res.A!)).toFixed(3)}, (b) ${med(res.bare!).toFixed(2)} µs: (b)/A ${(med(res.bare!) / med(res.A!)).toFixed(2)}, (b)/B ${(med(res.bare!) / med(res.B!)).toFixed(2)}`,
  );
} finally {
  killAll();
}
