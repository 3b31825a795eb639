// Idle RSS as bench/run.ts reads it (VmRSS 500 ms after the first answer), fresh database each start:
// `bun bench/idle-rss.ts DIR_A DIR_B [ROUNDS]`, order A B B A per round.
import { rmSync } from "node:fs";
import { BUN, freePort, killAll, log, rssMb, startServer } from "./harness";
const dirs = { A: process.argv[2]!, B: process.argv[3]! };
const rounds = Number(process.argv[4] ?? 2);
const res: Record<"A" | "B", number[]> = { A: [], B: [] };
let n = 0;
try {
  const run = async (label: "A" | "B") => {
    const db = `/tmp/formsvc-idle-${n++}.db`;
    const port = await freePort();
    const server = await startServer([BUN, `${dirs[label]}/src/main.ts`, "serve", "--port", `${port}`], port, {
      FORMSVC_DB: db,
      FORMSVC_LOG_LEVEL: "info",
    });
    await Bun.sleep(500);
    res[label].push(rssMb(server.pid));
    server.kill("SIGTERM");
    await server.exited;
    for (const s of ["", "-wal", "-shm"]) rmSync(db + s, { force: true });
  };
  for (let i = 0; i < rounds; i++) {
    await run("A");
    await run("B");
    await run("B");
    await run("A");
  }
  const med = (x: number[]) => [...x].sort((p, q) => p - q)[Math.floor(x.length / 2)]!;
  log(`A ${res.A.map((x) => x.toFixed(1)).join(" ")} | B ${res.B.map((x) => x.toFixed(1)).join(" ")}`);
  log(`median A ${med(res.A).toFixed(1)} MB, B ${med(res.B).toFixed(1)} MB`);
} finally {
  killAll();
}
