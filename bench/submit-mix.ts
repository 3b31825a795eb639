// The realistic submit load of issue 31, and `bun bench/submit-mix.ts [--quick] [--profile]` to run it
// alone: 5 forms of one key, 120 bodies with distinct emails, four user agents, client addresses
// forwarded by a trusted proxy (X-Forwarded-For from 127.0.0.1); once with owner notifications off
// and once on, with SMTP to a real server on loopback, measured until the outbox has drained. Every
// figure beside the durable baseline (d), fastify + better-sqlite3 (c), and bare GET (b), in turns.
import { rmSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { join } from "node:path";
import { MIX_ENV, mixLua, USER_AGENTS } from "./mix";
import { loadConfig } from "../src/config";
import { openStore } from "../src/db/store";
import { systemClock } from "../src/lib/clock";
import { silentLogger } from "../src/lib/log";
import { OPERATOR } from "../src/lib/principal";
import { createOutboxRepo } from "../src/modules/outbox/repo";
import { createServices } from "../src/services";
import {
  BUN,
  CONNECTIONS,
  cpuMs,
  DURATION_S,
  ensureFastify,
  ensureWrk,
  freePort,
  killAll,
  log,
  median,
  pinned,
  postScript,
  QUICK,
  ROOT,
  startServer,
  started,
  waitForPort,
  WORK,
  wrk,
  type WrkResult,
} from "./harness";

export const MIX_FORMS = 5;
const BACKLOG = 100_000;
const EMPTY = "submit mix, notifications on, no SMTP, empty outbox";
const BACKLOG_RUN = `submit mix, notifications on, no SMTP, ${BACKLOG} undeliverable queued`;
/** A fresh database with one key and MIX_FORMS forms, each emailing its owner about every submission when `notify`. */
export async function prepareMix(name: string, notify: boolean): Promise<{ db: string; key: string; forms: string[] }> {
  const db = join(WORK, `${name}.db`);
  for (const suffix of ["", "-wal", "-shm"]) rmSync(db + suffix, { force: true });
  const store = await openStore(db);
  const config = loadConfig({}, { db, logLevel: "silent" });
  const services = await createServices({ store, clock: systemClock, config, log: silentLogger });
  const key = (await services.keys.createKey(OPERATOR, { owner: "bench@example.com", name: "bench" })).key;
  const forms: string[] = [];
  for (let i = 0; i < MIX_FORMS; i++) {
    const form = await services.forms.createForm(OPERATOR, {
      owner: "bench@example.com",
      name: `Mix ${i + 1}`,
      formType: "contact",
      ...(notify ? { emailEnabled: true, developerNotifications: true } : {}),
    });
    forms.push(form.id);
  }
  await store.close();
  return { db, key, forms };
}

/**
 * Queues `count` owner notifications for the first form, as submissions made while mail could not
 * go out leave them: pending and due (the outbox's repo writes them, in one transaction).
 */
export async function queueBacklog(db: string, formId: string, count: number): Promise<void> {
  const store = await openStore(db);
  const outbox = createOutboxRepo(store.sql);
  const now = new Date().toISOString();
  await store.sql.transaction(async () => {
    for (let i = 0; i < count; i++)
      await outbox.insert({
        kind: "notification",
        formId,
        submissionId: null,
        recipient: "bench@example.com",
        replyTo: `backlog${i}@example.com`,
        formName: "Mix 1",
        data: JSON.stringify({ email: `backlog${i}@example.com`, message: "queued while mail was down" }),
        payload: null,
        submittedAt: now,
        createdAt: now,
      });
  });
  await store.close();
}

/** The mix's wrk script (bench/mix.ts), written into WORK. */
export function mixScript(name: string, key: string, forms: string[]): string {
  const file = join(WORK, `${name}.lua`);
  writeFileSync(file, mixLua(key, forms));
  return file;
}

/** An SMTP server on loopback (bench/baselines/smtp-sink.ts, on wrk's core) and how many messages it has taken. */
export async function startSmtpSink(): Promise<{ url: string; received: () => Promise<number> }> {
  const [smtpPort, httpPort] = [await freePort(), await freePort()];
  const proc = Bun.spawn(
    pinned(1, [BUN, join(import.meta.dir, "baselines/smtp-sink.ts"), String(smtpPort), String(httpPort)]),
    { cwd: ROOT, stdout: "ignore", stderr: "inherit" },
  );
  started.push(proc);
  await waitForPort(httpPort, proc);
  return {
    url: `smtp://127.0.0.1:${smtpPort}`,
    received: async () =>
      ((await (await fetch(`http://127.0.0.1:${httpPort}/count`)).json()) as { received: number }).received,
  };
}

/**
 * One wrk run of the mix against a server that emails every submission: its CPU is counted from the
 * start of the load until the sink has every email (the outbox drained), divided by the submissions.
 */
export async function notifyRun(
  url: string,
  script: string,
  pid: number,
  received: () => Promise<number>,
  durationS = DURATION_S,
): Promise<WrkResult & { drainS: number; emailsPerS: number }> {
  const before = await received();
  const cpu0 = cpuMs(pid);
  const r = await wrk(url, { script, durationS });
  const t0 = performance.now();
  const deadline = t0 + 120_000;
  let got = 0;
  while ((got = (await received()) - before) < r.requests!) {
    if (performance.now() > deadline) {
      log(`  warning: the outbox did not drain within 120 s (${got} of ${r.requests})`);
      break;
    }
    await Bun.sleep(20);
  }
  const drainS = (performance.now() - t0) / 1000;
  const cpu = cpuMs(pid) - cpu0;
  return { ...r, cpuUs: (cpu * 1000) / r.requests!, drainS, emailsPerS: got / (durationS + drainS) };
}

async function main() {
  ensureWrk();
  const withFastify = ensureFastify();
  const profile = process.argv.includes("--profile");
  const env = {
    FORMSVC_RATE_LIMIT: "1000000000",
    FORMSVC_PUBLIC_RATE_LIMIT: "1000000000",
    FORMSVC_LOG_LEVEL: "info",
    ...MIX_ENV,
  };
  const off = await prepareMix("mix-off", false);
  const on = await prepareMix("mix-on", true);
  // Notifications on with no SMTP server (they stay queued): an empty outbox against one holding
  // BACKLOG undeliverable messages. What each commit's drain claims must not read the backlog.
  const empty = await prepareMix("mix-empty-outbox", true);
  const backlog = await prepareMix("mix-backlog", true);
  await queueBacklog(backlog.db, backlog.forms[0]!, BACKLOG);
  const sink = await startSmtpSink();
  const ports = {
    off: await freePort(),
    on: await freePort(),
    durable: await freePort(),
    get: await freePort(),
    fastify: await freePort(),
    empty: await freePort(),
    backlog: await freePort(),
  };
  const prof = profile ? ["--cpu-prof", `--cpu-prof-dir=${join(WORK, "profiles")}`] : [];
  const serve = (port: number) => [BUN, ...prof, "src/main.ts", "serve", "--port", String(port)];
  const offServer = await startServer(serve(ports.off), ports.off, { ...env, FORMSVC_DB: off.db });
  const onServer = await startServer(serve(ports.on), ports.on, {
    ...env,
    FORMSVC_DB: on.db,
    FORMSVC_SMTP_URL: sink.url,
    FORMSVC_MAIL_FROM: "formsvc@example.com",
  });
  const emptyServer = await startServer(serve(ports.empty), ports.empty, { ...env, FORMSVC_DB: empty.db });
  const backlogServer = await startServer(serve(ports.backlog), ports.backlog, { ...env, FORMSVC_DB: backlog.db });
  for (const suffix of ["", "-wal", "-shm"]) rmSync(join(WORK, "durable.db") + suffix, { force: true });
  const durable = await startServer(
    [BUN, "bench/baselines/bun-durable.ts", String(ports.durable), join(WORK, "durable.db")],
    ports.durable,
  );
  const get = await startServer([BUN, "bench/baselines/bun-get.ts", String(ports.get)], ports.get);
  let fastify: { pid: number } | null = null;
  if (withFastify) {
    rmSync(join(WORK, "fastify.db"), { force: true });
    const script = join(WORK, "node/fastify-sqlite.mjs");
    writeFileSync(script, await Bun.file(join(import.meta.dir, "baselines/fastify-sqlite.mjs")).text());
    fastify = await startServer(["node", script, String(ports.fastify), join(WORK, "fastify.db")], ports.fastify);
  }
  const url = (port: number, path = "/") => `http://127.0.0.1:${port}${path}`;
  const offScript = mixScript("mix-off", off.key, off.forms);
  const onScript = mixScript("mix-on", on.key, on.forms);
  const oneBody = { formId: off.forms[0], data: { email: "ada@example.com", message: "Hello there", rating: 5 } };
  const oneScript = postScript("mix-one", "/api/v1/forms/submit", oneBody, {
    "X-API-Key": off.key,
    "User-Agent": USER_AGENTS[0]!,
  });
  const plainScript = postScript("plain", "/submit", oneBody, {});
  const emptyScript = mixScript("mix-empty-outbox", empty.key, empty.forms);
  const backlogScript = mixScript("mix-backlog", backlog.key, backlog.forms);
  const getForm = url(ports.off, `/api/v1/forms/${off.forms[0]}`);

  // Warm-up, not recorded.
  await wrk(url(ports.off), { script: offScript, durationS: 2 });
  await notifyRun(url(ports.on), onScript, onServer.pid, sink.received, 1);
  await wrk(getForm, { headers: [`X-API-Key: ${off.key}`], durationS: 1 });
  await wrk(url(ports.empty), { script: emptyScript, durationS: 1 });
  await wrk(url(ports.backlog), { script: backlogScript, durationS: 1 });

  const runs: Record<string, WrkResult[]> = {};
  const record = (name: string, r: WrkResult) => (runs[name] ??= []).push(r);
  const reps = QUICK ? 1 : 3;
  for (let rep = 1; rep <= reps; rep++) {
    log(`repetition ${rep}/${reps}`);
    record("submit mix, 5 forms", await wrk(url(ports.off), { script: offScript, pid: offServer.pid }));
    record("(d) durable limit", await wrk(url(ports.durable), { script: plainScript, pid: durable.pid }));
    record("submit, 1 form", await wrk(url(ports.off), { script: oneScript, pid: offServer.pid }));
    if (fastify) record("(c) fastify+sqlite", await wrk(url(ports.fastify), { script: plainScript, pid: fastify.pid }));
    record(
      "submit mix, owner notifications on (until drained)",
      await notifyRun(url(ports.on), onScript, onServer.pid, sink.received),
    );
    record("GET form", await wrk(getForm, { headers: [`X-API-Key: ${off.key}`], pid: offServer.pid }));
    record("(b) bare GET", await wrk(url(ports.get), { pid: get.pid }));
    record(EMPTY, await wrk(url(ports.empty), { script: emptyScript, pid: emptyServer.pid }));
    record(BACKLOG_RUN, await wrk(url(ports.backlog), { script: backlogScript, pid: backlogServer.pid }));
  }
  for (const s of [offServer, onServer, emptyServer, backlogServer]) {
    s.kill("SIGTERM");
    await s.exited;
  }
  const m = (name: string, k: keyof WrkResult | "drainS" | "emailsPerS") =>
    runs[name] ? median(runs[name]!.map((r) => (r as unknown as Record<string, number | undefined>)[k] ?? NaN)) : NaN;
  const f = (x: number, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : "-");
  console.log(
    [
      `Machine: ${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(1)} GiB; ${new Date().toISOString()}; ${reps} repetition(s) of ${DURATION_S} s, ${CONNECTIONS} connections, servers on core 0, wrk on core 1.`,
      "",
      "| scenario | req/s | p50 ms | p99 ms | server CPU µs/req |",
      "|---|---|---|---|---|",
      ...Object.keys(runs).map(
        (n) => `| ${n} | ${f(m(n, "rps"), 0)} | ${f(m(n, "p50"))} | ${f(m(n, "p99"))} | ${f(m(n, "cpuUs"), 1)} |`,
      ),
      "",
      ...mixTargets((n, k) => m(n, k)),
      `Notifications on: drained ${f(m("submit mix, owner notifications on (until drained)", "drainS"))} s after each load; ${f(m("submit mix, owner notifications on (until drained)", "emailsPerS"), 0)} emails/s over load + drain.`,
    ].join("\n"),
  );
}

/** The issue 31 target lines for the mix, from medians by scenario name. */
export function mixTargets(m: (name: string, k: keyof WrkResult) => number): string[] {
  const f = (x: number, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : "-");
  const check = (ok: boolean) => (ok ? "pass" : "MISS");
  const mix = "submit mix, 5 forms";
  const notify = "submit mix, owner notifications on (until drained)";
  const cpuD = m(mix, "cpuUs") / m("(d) durable limit", "cpuUs");
  const rpsD = m(mix, "rps") / m("(d) durable limit", "rps");
  const rpsC = m(mix, "rps") / m("(c) fastify+sqlite", "rps");
  const p99Goal = Math.max(10, 2 * m("(d) durable limit", "p99"));
  const getB = m("GET form", "rps") / m("(b) bare GET", "rps");
  const notifyCpu = m(notify, "cpuUs") / m(mix, "cpuUs");
  const backlogRatio = m(BACKLOG_RUN, "rps") / m(EMPTY, "rps");
  return [
    "| target (issue 31) | measured | goal | |",
    "|---|---|---|---|",
    `| submit mix CPU per request vs (d) | ${f(cpuD)} (${f(m(mix, "cpuUs"), 1)} vs ${f(m("(d) durable limit", "cpuUs"), 1)} µs) | ≤ 2.0 | ${check(cpuD <= 2)} |`,
    `| submit mix req/s vs (d) | ${f(rpsD)} | ≥ 0.6 | ${check(rpsD >= 0.6)} |`,
    `| submit mix req/s vs (c) | ${f(rpsC)} | ≥ 2.5 | ${Number.isFinite(rpsC) ? check(rpsC >= 2.5) : "n/a"} |`,
    `| submit mix p99 | ${f(m(mix, "p99"))} ms | ≤ ${f(p99Goal)} ms (max(10, 2 × (d))) | ${check(m(mix, "p99") <= p99Goal)} |`,
    `| GET form vs (b) | ${f(getB)} | ≥ 0.5 | ${check(getB >= 0.5)} |`,
    `| notifications on (sending counted) vs off, CPU per submit | ${f(notifyCpu)} | ≤ 2.0 | ${check(notifyCpu <= 2)} |`,
    ...(Number.isFinite(backlogRatio)
      ? [
          `| submit with ${BACKLOG} undeliverable messages queued vs an empty outbox | ${f(backlogRatio)} | ≥ 0.9 | ${check(backlogRatio >= 0.9)} |`,
        ]
      : []),
    "",
  ];
}

if (import.meta.main) {
  try {
    await main();
  } finally {
    killAll();
  }
}
