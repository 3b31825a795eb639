// `bun bench/profile-get.ts [SECONDS] [--no-prof]`: `GET /api/v1/forms/{id}` with a secret key against one
// server started with `bun --cpu-prof-md` (the profile, in markdown, lands in bench/.work/profiles/), for
// SECONDS under load after a 2 s warm-up; `--no-prof` runs the same load without the profiler, for the
// server CPU per request. The database is the submit mix's (bench/submit-mix.ts), with nothing submitted.
import { join } from "node:path";
import { BUN, freePort, killAll, log, startServer, WORK, wrk } from "./harness";
import { prepareMix } from "./submit-mix";

const profile = !process.argv.includes("--no-prof");
const seconds = Number(process.argv.slice(2).find((a) => !a.startsWith("--")) ?? 8);
try {
  const setup = await prepareMix("profile-get", false);
  const port = await freePort();
  const dir = join(WORK, "profiles");
  const server = await startServer(
    [BUN, ...(profile ? ["--cpu-prof-md", `--cpu-prof-dir=${dir}`] : []), "src/main.ts", "serve", "--port", `${port}`],
    port,
    { FORMSVC_DB: setup.db, FORMSVC_RATE_LIMIT: "1000000000", FORMSVC_LOG_LEVEL: "info" },
  );
  const url = `http://127.0.0.1:${port}/api/v1/forms/${setup.forms[0]}`;
  const headers = [`X-API-Key: ${setup.key}`];
  await wrk(url, { headers, durationS: 2 });
  log(JSON.stringify(await wrk(url, { headers, durationS: seconds, pid: server.pid })));
  server.kill("SIGTERM");
  await server.exited;
  if (profile) log(`profile written to ${dir}`);
} finally {
  killAll();
}
