// `bun bench/notify-ab.ts BEFORE_DIR [SECONDS] [ROUNDS]`: owner notifications on (the submit mix,
// SMTP to the loopback sink, CPU counted until the outbox has drained), the code in BEFORE_DIR (a
// `git archive` of an earlier commit with node_modules linked in) against this tree's, one server
// at a time in the order A B B A per round, each on a fresh database; and this tree with
// notifications off once per round, for the ratio issue 31 sets. Medians at the end.
import { join } from "node:path";
import { BUN, freePort, killAll, log, median, startServer, wrk } from "./harness";
import { MIX_ENV } from "./mix";
import { mixScript, notifyRun, prepareMix, startSmtpSink } from "./submit-mix";

const before = process.argv[2];
if (!before) throw new Error("usage: bun bench/notify-ab.ts BEFORE_DIR [SECONDS] [ROUNDS]");
const seconds = Number(process.argv[3] ?? 3);
const rounds = Number(process.argv[4] ?? 2);
const env = { FORMSVC_RATE_LIMIT: "1000000000", FORMSVC_LOG_LEVEL: "info", ...MIX_ENV };

try {
  const sink = await startSmtpSink();
  const figures: Record<string, { cpuUs: number[]; emailsPerS: number[]; rps: number[] }> = {};
  const keep = (label: string, r: { cpuUs?: number; emailsPerS?: number; rps: number }) => {
    const f = (figures[label] ??= { cpuUs: [], emailsPerS: [], rps: [] });
    f.cpuUs.push(r.cpuUs!);
    f.emailsPerS.push(r.emailsPerS ?? NaN);
    f.rps.push(r.rps);
    log(`${label}: ${JSON.stringify(r)}`);
  };
  let n = 0;
  const once = async (label: string, main: string, notify: boolean) => {
    const setup = await prepareMix(`ab-${++n}`, notify);
    const port = await freePort();
    const server = await startServer([BUN, main, "serve", "--port", String(port)], port, {
      ...env,
      FORMSVC_DB: setup.db,
      ...(notify ? { FORMSVC_SMTP_URL: sink.url, FORMSVC_MAIL_FROM: "formsvc@example.com" } : {}),
    });
    const script = mixScript(`ab-${n}`, setup.key, setup.forms);
    const url = `http://127.0.0.1:${port}/`;
    // A warm-up (its emails drained too), so that each measured load starts on a warm server.
    if (notify) await notifyRun(url, script, server.pid, sink.received, 1);
    else await wrk(url, { script, durationS: 1 });
    keep(
      label,
      notify
        ? await notifyRun(url, script, server.pid, sink.received, seconds)
        : await wrk(url, { script, durationS: seconds, pid: server.pid }),
    );
    server.kill("SIGTERM");
    await server.exited;
  };
  const A = join(before, "src/main.ts");
  const B = "src/main.ts";
  for (let i = 0; i < rounds; i++) {
    await once("A notifications on (before)", A, true);
    await once("B notifications on (after)", B, true);
    await once("B notifications off", B, false);
    await once("B notifications on (after)", B, true);
    await once("A notifications on (before)", A, true);
  }
  const off = median(figures["B notifications off"]!.cpuUs);
  console.log("\n| code | CPU µs per notified submit (until drained) | × notifications off | emails/s | req/s |");
  console.log("|---|---|---|---|---|");
  for (const [label, f] of Object.entries(figures)) {
    const cpu = median(f.cpuUs);
    console.log(
      `| ${label} | ${cpu.toFixed(1)} | ${(cpu / off).toFixed(2)} | ${median(f.emailsPerS).toFixed(0)} | ${median(f.rps).toFixed(0)} |`,
    );
  }
} finally {
  killAll();
}
