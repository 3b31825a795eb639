// `bun bench/profile-submit.ts [off|on|queue] [SECONDS]`: the submit mix (bench/submit-mix.ts) against one
// server started with `bun --cpu-prof-md`, for SECONDS under load (with notifications on, until the
// outbox has drained; `queue`: notifications on with no SMTP, so what queueing costs without sending);
// the profile, in markdown, lands in bench/.work/profiles/.
import { join } from "node:path";
import { BUN, freePort, killAll, log, startServer, WORK, wrk } from "./harness";
import { MIX_ENV, mixScript, notifyRun, prepareMix, startSmtpSink } from "./submit-mix";

const mode = process.argv[2] ?? "off";
const notify = mode === "on" || mode === "queue";
const seconds = Number(process.argv[3] ?? 8);
try {
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
} finally {
  killAll();
}
