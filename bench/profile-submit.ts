// `bun bench/profile-submit.ts [off|on|queue|durable] [SECONDS]`: the submit mix (bench/submit-mix.ts) against one
// server started with `bun --cpu-prof-md`, for SECONDS under load (with notifications on, until the
// outbox has drained; `queue`: notifications on with no SMTP, so what queueing costs without sending);
// the profile, in markdown, lands in bench/.work/profiles/. `durable`: the durable baseline (d) under the same
// profiler and its own load (ab-submit.ts's), to set each part of a submit's profile beside what (d) pays for it.
import { rmSync } from "node:fs";
import { join } from "node:path";
import { BUN, freePort, killAll, log, postScript, startServer, WORK, wrk } from "./harness";
import { MIX_ENV } from "./mix";
import { mixScript, notifyRun, prepareMix, startSmtpSink } from "./submit-mix";

const mode = process.argv[2] ?? "off";
const notify = mode === "on" || mode === "queue";
const seconds = Number(process.argv[3] ?? 8);

/** The durable baseline (d) under the profiler, with ab-submit.ts's load for it. */
async function profileDurable(): Promise<void> {
  const db = join(WORK, "profile-durable.db");
  for (const x of ["", "-wal", "-shm"]) rmSync(db + x, { force: true });
  const port = await freePort();
  const dir = join(WORK, "profiles");
  const server = await startServer(
    [BUN, "--cpu-prof-md", `--cpu-prof-dir=${dir}`, "bench/baselines/bun-durable.ts", String(port), db],
    port,
  );
  const script = postScript("profile-durable", "/submit", { formId: "f", data: { email: "ada@example.com" } }, {});
  const url = `http://127.0.0.1:${port}/`;
  await wrk(url, { script, durationS: 2 });
  log(JSON.stringify(await wrk(url, { script, durationS: seconds, pid: server.pid })));
  server.kill("SIGTERM");
  await server.exited;
  log(`profile written to ${dir}`);
}

try {
  if (mode === "durable") await profileDurable();
  else {
    const setup = await prepareMix(`profile-${mode}`, notify);
    const sink = mode === "on" ? await startSmtpSink() : null;
    const port = await freePort();
    const dir = join(WORK, "profiles");
    const server = await startServer(
      [BUN, "--cpu-prof-md", `--cpu-prof-dir=${dir}`, "src/main.ts", "serve", "--port", String(port)],
      port,
      {
        FORMSVC_DB: setup.db,
        FORMSVC_RATE_LIMIT: "1000000000",
        FORMSVC_LOG_LEVEL: "info",
        ...MIX_ENV,
        ...(sink ? { FORMSVC_SMTP_URL: sink.url, FORMSVC_MAIL_FROM: "formsvc@example.com" } : {}),
      },
    );
    const script = mixScript("profile", setup.key, setup.forms);
    const url = `http://127.0.0.1:${port}/`;
    await wrk(url, { script, durationS: 2 });
    const r = sink
      ? await notifyRun(url, script, server.pid, sink.received, seconds)
      : await wrk(url, { script, durationS: seconds, pid: server.pid });
    log(JSON.stringify(r));
    server.kill("SIGTERM");
    await server.exited;
    log(`profile written to ${dir}`);
  }
} finally {
  killAll();
}
