// `bun bench/drain-cost.ts BEFORE_DIR [SECONDS] [ROUNDS]`: what the outbox's drain costs per email,
// apart from the submits that queued them. The submit mix with owner notifications on and no SMTP
// queues SECONDS of notifications once; then, per round, a copy of that database is drained by the
// code in BEFORE_DIR (a `git archive` with node_modules linked in) and by this tree, in the order
// A B B A, each a server started with SMTP to the loopback sink: its CPU (utime + stime) from spawn
// until the sink has every email, less an idle start's (the same server on a copy with the outbox
// emptied), divided by the emails. Medians at the end.
import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { BUN, cpuMs, freePort, killAll, log, median, startServer, WORK, wrk } from "./harness";
import { MIX_ENV } from "./mix";
import { mixScript, prepareMix, startSmtpSink } from "./submit-mix";

const before = process.argv[2];
if (!before) throw new Error("usage: bun bench/drain-cost.ts BEFORE_DIR [SECONDS] [ROUNDS]");
const seconds = Number(process.argv[3] ?? 3);
const rounds = Number(process.argv[4] ?? 2);
const env = { FORMSVC_RATE_LIMIT: "1000000000", FORMSVC_LOG_LEVEL: "info", ...MIX_ENV };

try {
  const sink = await startSmtpSink();
  const setup = await prepareMix("drain-cost", true);
  // Queued, not sent: no SMTP.
  {
    const port = await freePort();
    const server = await startServer([BUN, "src/main.ts", "serve", "--port", String(port)], port, {
      ...env,
      FORMSVC_DB: setup.db,
    });
    await wrk(`http://127.0.0.1:${port}/`, {
      script: mixScript("drain-cost", setup.key, setup.forms),
      durationS: seconds,
    });
    server.kill("SIGTERM");
    await server.exited;
  }
  const queued = (() => {
    const db = new Database(setup.db, { readonly: true });
    const n = db.query<{ n: number }, []>("SELECT count(*) AS n FROM outbox WHERE status = 'pending'").get()!.n;
    db.close();
    return n;
  })();
  const empty = join(WORK, "drain-cost-empty.db");
  copyFileSync(setup.db, empty);
  {
    const db = new Database(empty);
    db.run("DELETE FROM outbox");
    db.run("PRAGMA wal_checkpoint(TRUNCATE)");
    db.close();
  }
  log(`${queued} notifications queued`);

  let n = 0;
  // CPU ms from spawn until `emails` more have reached the sink, and the seconds it took.
  const drainOnce = async (main: string, source: string, emails: number) => {
    const db = join(WORK, `drain-cost-${++n}.db`);
    copyFileSync(source, db);
    const port = await freePort();
    const got0 = await sink.received();
    const t0 = performance.now();
    const server = await startServer([BUN, main, "serve", "--port", String(port)], port, {
      ...env,
      FORMSVC_DB: db,
      FORMSVC_SMTP_URL: sink.url,
      FORMSVC_MAIL_FROM: "formsvc@example.com",
    });
    while ((await sink.received()) - got0 < emails) {
      if (performance.now() - t0 > 120_000) throw new Error("the outbox did not drain within 120 s");
      await Bun.sleep(10);
    }
    const cpu = cpuMs(server.pid);
    const s = (performance.now() - t0) / 1000;
    server.kill("SIGTERM");
    await server.exited;
    return { cpu, s };
  };
  const figures: Record<string, { us: number[]; perS: number[] }> = {};
  const once = async (label: string, main: string) => {
    const idle = await drainOnce(main, empty, 0);
    const full = await drainOnce(main, setup.db, queued);
    const us = ((full.cpu - idle.cpu) * 1000) / queued;
    const f = (figures[label] ??= { us: [], perS: [] });
    f.us.push(us);
    f.perS.push(queued / full.s);
    log(
      `${label}: ${us.toFixed(1)} µs per email (drain ${full.cpu} ms CPU, idle start ${idle.cpu} ms), ${(queued / full.s).toFixed(0)} emails/s from spawn`,
    );
  };
  const A = join(before, "src/main.ts");
  for (let i = 0; i < rounds; i++) {
    await once("A (before)", A);
    await once("B (after)", "src/main.ts");
    await once("B (after)", "src/main.ts");
    await once("A (before)", A);
  }
  console.log(
    `\n${queued} emails per drain\n\n| code | CPU µs per email (the runs) | emails/s from spawn |\n|---|---|---|`,
  );
  for (const [label, f] of Object.entries(figures))
    console.log(
      `| ${label} | ${median(f.us).toFixed(1)} (${f.us.map((x) => x.toFixed(1)).join(", ")}) | ${median(f.perS).toFixed(0)} |`,
    );
} finally {
  killAll();
}
