// `npm run bench` (or `npm run bench -- --quick`): formsvc against baselines measured in the same run.
// Server on core 0, wrk on core 1, 127.0.0.1 only, every run bounded in time; kills what it started.
// The public submit (publishable key + a solved proof of work) needs a fresh solution per request,
// so it and the secret-key submit it is compared with run from bench/load.ts, a bounded number each.
import { spawnSync } from "bun";
import { solveChallenge } from "altcha-lib";
import { deriveKey } from "altcha-lib/algorithms/pbkdf2";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../src/config";
import { openStore } from "../src/db/store";
import { silentLogger } from "../src/lib/log";
import { systemClock } from "../src/lib/clock";
import { createServices } from "../src/services";
import { createPowService } from "../src/modules/spam/pow";
import { createSpamRepo } from "../src/modules/spam/repo";
import {
  BUN,
  cpuMs,
  CONNECTIONS,
  DURATION_S,
  ensureFastify,
  ensureWrk,
  freePort,
  killAll,
  log,
  median,
  pagedPaths,
  pinned,
  postScript,
  QUICK,
  ROOT,
  rssMb,
  started,
  startServer,
  startupMs,
  WORK,
  wrk,
  type WrkResult,
} from "./harness";
import { seedSubmissions } from "./seed";
import { MIX_ENV } from "./mix";
import { mixScript, mixTargets, notifyRun, prepareMix, startSmtpSink } from "./submit-mix";
import {
  preparePostgres,
  startBenchPostgres,
  type BenchPostgres,
  type PgLimits,
  type PgStats,
  type Rate,
} from "./postgres";
import { OPERATOR } from "../src/lib/principal";
import type { FieldRule } from "../src/modules/forms/model";

const REPS = QUICK ? 1 : 3;
const PAGED_ROWS = QUICK ? 100_000 : 1_000_000;
// Requests per load-loop run (each public one with its own solved challenge, solved before the run).
const LOOP_REQUESTS = QUICK ? 5000 : 20_000;
// The page's origin for the public submit: the bench form allows it, as a real site's form would.
const SITE = "https://www.example.com";
const UA =
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36";
// Issue 26's form: six fields, each with a rule, so every post is checked field by field and stored typed.
const DROPIN_FIELDS: FieldRule[] = [
  { name: "name", type: "text", label: "Name", required: true, maxLength: 100 },
  { name: "email", type: "email", label: "Email", required: true },
  { name: "company", type: "text", label: "Company", maxLength: 100 },
  { name: "rating", type: "number", label: "Rating", min: 1, max: 5 },
  { name: "topic", type: "select", label: "Topic", options: ["sales", "support", "press"] },
  { name: "message", type: "textarea", label: "Message", required: true, minLength: 10, maxLength: 2000 },
];

/** One bounded bench/load.ts run on core 1: every line of `bodies` POSTed once, 64 at a time; with the server's CPU per request. */
async function loadLoop(
  name: string,
  url: string,
  bodies: string[],
  headers: Record<string, string>,
  pid?: number,
): Promise<WrkResult> {
  if (!url.startsWith("http://127.0.0.1:")) throw new Error("benchmarks target 127.0.0.1 only");
  const file = join(WORK, `${name}.bodies`);
  writeFileSync(file, `${bodies.join("\n")}\n`);
  const cpu0 = pid ? cpuMs(pid) : 0;
  const proc = Bun.spawn(
    pinned(1, [BUN, join(import.meta.dir, "load.ts"), url, file, JSON.stringify(headers), String(CONNECTIONS)]),
    { stdout: "pipe", stderr: "inherit" },
  );
  const out = JSON.parse(await new Response(proc.stdout).text()) as {
    requests: number;
    rps: number;
    p50: number;
    p99: number;
    statuses: Record<string, number>;
  };
  await proc.exited;
  const cpu = pid ? cpuMs(pid) - cpu0 : NaN;
  const ok = (out.statuses["200"] ?? 0) === out.requests;
  if (!ok) log(`  warning: ${name}: answers ${JSON.stringify(out.statuses)}`);
  return { rps: out.rps, p50: out.p50, p99: out.p99, cpuUs: (cpu * 1000) / out.requests };
}

/**
 * `n` submit bodies for the proof-of-work form, each with its own challenge solved as the widget
 * would (altcha-lib's solver, the widget's payload encoding). Issued in this process with the
 * database's challenge secret, exactly as the server issues them, at the lowest difficulty: the
 * server's verification costs the same whatever the counter (two HMACs, no key derivation).
 */
async function solvedBodies(db: string, formId: string, n: number): Promise<string[]> {
  const store = await openStore(db);
  const repo = createSpamRepo(store.sql);
  const pow = createPowService({
    repo,
    challengeSecret: await repo.findChallengeSecret(),
    clock: systemClock,
    maxCounter: 1,
  });
  const bodies: string[] = [];
  for (let i = 0; i < n; i++) {
    const challenge = await pow.createChallenge(formId);
    const solution = (await solveChallenge({ challenge, deriveKey }))!;
    const altcha = btoa(
      JSON.stringify({ challenge: { parameters: challenge.parameters, signature: challenge.signature }, solution }),
    );
    bodies.push(
      JSON.stringify({ formId, data: { email: "ada@example.com", message: "Hello there", rating: 5 }, altcha }),
    );
  }
  await store.close();
  return bodies;
}

/** A database with a key, a form to submit to, and a form holding PAGED_ROWS submissions (cached between runs). */
async function prepareDatabase(): Promise<{
  db: string;
  key: string;
  formId: string;
  pagedFormId: string;
  powFormId: string;
  publicFormId: string;
  publishableKey: string;
  dropInFormId: string;
  page1: string;
  page9000: string;
  storeMs: { page1: number; page9000: number };
}> {
  const db = join(WORK, `formsvc-${PAGED_ROWS}.db`);
  const meta = `${db}.json`;
  if (!existsSync(meta)) {
    for (const suffix of ["", "-wal", "-shm"]) rmSync(db + suffix, { force: true });
    const config = loadConfig({}, { db, logLevel: "silent" });
    const store = await openStore(db);
    const services = await createServices({ store, clock: systemClock, config, log: silentLogger });
    const key = (await services.keys.createKey(OPERATOR, { owner: "bench@example.com", name: "bench" })).key;
    const formId = (
      await services.forms.createForm(OPERATOR, {
        owner: "bench@example.com",
        name: "Submit target",
        formType: "contact",
      })
    ).id;
    const paged = await services.forms.createForm(OPERATOR, {
      owner: "bench@example.com",
      name: "Paged",
      formType: "feedback",
    });
    await seedSubmissions(store.sql, paged, PAGED_ROWS, { label: `seeding ${PAGED_ROWS} submissions` });
    await store.close();
    writeFileSync(meta, JSON.stringify({ key, formId, pagedFormId: paged.id }));
  }
  const cached = JSON.parse(readFileSync(meta, "utf8"));
  if (!cached.publicFormId) {
    // Forms as "Put a form on your website" sets them up (allowed origin, honeypot, challenge none
    // or pow) and a publishable key bound to them; added to a database cached by an older bench.
    const config = loadConfig({}, { db, logLevel: "silent" });
    const store = await openStore(db);
    const services = await createServices({ store, clock: systemClock, config, log: silentLogger });
    const publicForm = async (name: string, challenge: string) =>
      (
        await services.forms.createForm(OPERATOR, {
          owner: "bench@example.com",
          name,
          formType: "contact",
          allowedOrigins: [SITE],
          challenge,
        })
      ).id;
    cached.publicFormId = await publicForm("Public form", "none");
    cached.powFormId = await publicForm("Public form with pow", "pow");
    cached.publishableKey = (
      await services.keys.createKey(OPERATOR, {
        owner: "bench@example.com",
        name: "site",
        publishable: true,
        forms: [cached.publicFormId, cached.powFormId],
      })
    ).key;
    await store.close();
    writeFileSync(meta, JSON.stringify(cached));
  }
  if (!cached.dropInFormId) {
    // Added to a database cached by an older bench, as the public forms were.
    const config = loadConfig({}, { db, logLevel: "silent" });
    const store = await openStore(db);
    const services = await createServices({ store, clock: systemClock, config, log: silentLogger });
    cached.dropInFormId = (
      await services.forms.createForm(OPERATOR, {
        owner: "bench@example.com",
        name: "Drop-in form",
        formType: "contact",
        allowedOrigins: [SITE],
        fields: DROPIN_FIELDS,
      })
    ).id;
    await store.close();
    writeFileSync(meta, JSON.stringify(cached));
  }
  const { key, formId, pagedFormId, powFormId, publicFormId, publishableKey, dropInFormId } = cached;
  const store = await openStore(db);
  const { page1, page9000, storeMs } = await pagedPaths(store, pagedFormId, PAGED_ROWS);
  await store.close();
  return {
    db,
    key,
    formId,
    pagedFormId,
    powFormId,
    publicFormId,
    publishableKey,
    dropInFormId,
    page1,
    page9000,
    storeMs,
  };
}

/** A wrk script that submits `body` with a distinct email per request (`user<prefix>-<n>@example.com`), so every one asks for its own autoresponse. */
function distinctEmailScript(name: string, formId: string, key: string, prefix: string): string {
  const file = join(WORK, `${name}.lua`);
  const [head, tail] = JSON.stringify({ formId, data: { email: "@@", message: "Hello there", rating: 5 } }).split("@@");
  writeFileSync(
    file,
    [
      `wrk.method = "POST"`,
      `wrk.headers["Content-Type"] = "application/json"`,
      `wrk.headers["X-API-Key"] = ${JSON.stringify(key)}`,
      `wrk.headers["User-Agent"] = ${JSON.stringify(UA)}`,
      "local n = 0",
      "request = function()",
      "  n = n + 1",
      `  return wrk.format(nil, "/api/v1/forms/submit", nil, ${JSON.stringify(head)} .. "user${prefix}-" .. n .. "@example.com" .. ${JSON.stringify(tail)})`,
      "end",
    ].join("\n") + "\n",
  );
  return file;
}

interface PgRequest {
  method: "GET" | "POST";
  path: string;
  body?: unknown;
  headers: Record<string, string>;
}

/**
 * A wrk script for the PostgreSQL section, run with two threads (32 connections each): thread n goes
 * to `ports[n % ports.length]`, so both go to one server, or one thread to each of two. Every scenario
 * of the section (SQLite's too) runs through this one shape, one wrk process on core 1, so only the
 * target differs; two wrk processes would each report latencies of their own that cannot be merged.
 */
function splitScript(name: string, ports: number[], req: PgRequest): string {
  const file = join(WORK, `${name}.lua`);
  const lines = [
    `local ports = { ${ports.map((p) => `"${p}"`).join(", ")} }`,
    "local threads = 0",
    "function setup(thread)",
    "  threads = threads + 1",
    `  thread.addr = wrk.lookup("127.0.0.1", ports[(threads - 1) % #ports + 1])[1]`,
    "end",
    `wrk.method = ${JSON.stringify(req.method)}`,
    `wrk.path = ${JSON.stringify(req.path)}`,
  ];
  if (req.body !== undefined) lines.push(`wrk.body = ${JSON.stringify(JSON.stringify(req.body))}`);
  for (const [k, v] of Object.entries(req.headers))
    lines.push(`wrk.headers[${JSON.stringify(k)}] = ${JSON.stringify(v)}`);
  writeFileSync(file, `${lines.join("\n")}\n`);
  return file;
}

/** What one run of the PostgreSQL section cost, per request: CPU on each side, and what the database did. */
interface PgRun extends WrkResult {
  /** CPU (user + system) of the formsvc process(es) loaded, µs per request. */
  appCpuUs: number;
  /** CPU of the whole PostgreSQL cluster, µs per request (NaN for SQLite). */
  pgCpuUs: number;
  /** Per request: transactions committed (read-only ones too), WAL bytes, reads of api_keys and forms; WAL fsyncs per 1,000 requests. */
  commits: number;
  walBytes: number;
  walFsyncsPerK: number;
  keyReads: number;
  formReads: number;
}

/**
 * One wrk run of the section with the CPU it cost both sides and the database's counters around it.
 * PostgreSQL's backends send their statistics within a second of going idle, so the counters are read
 * again 1.2 s after the run.
 */
async function pgSectionRun(pg: BenchPostgres | null, appPids: number[], url: string, script: string): Promise<PgRun> {
  const appCpu = () => appPids.reduce((sum, pid) => sum + cpuMs(pid), 0);
  const before: PgStats | null = pg ? await pg.stats() : null;
  const app0 = appCpu();
  const pg0 = pg ? pg.cpuMs() : NaN;
  const r = await wrk(url, { script, threads: 2 });
  const n = r.requests!;
  const app = appCpu() - app0;
  const pgCpu = pg ? pg.cpuMs() - pg0 : NaN;
  let after: PgStats | null = null;
  if (pg) {
    await Bun.sleep(1200);
    after = await pg.stats();
  }
  const per = (k: keyof PgStats, scale = 1) => (before && after ? ((after[k] - before[k]) * scale) / n : NaN);
  return {
    ...r,
    appCpuUs: (app * 1000) / n,
    pgCpuUs: (pgCpu * 1000) / n,
    commits: per("commits"),
    walBytes: per("walBytes"),
    walFsyncsPerK: per("walFsyncs", 1000),
    keyReads: per("keyReads"),
    formReads: per("formReads"),
  };
}

/** The PostgreSQL servers' log lines that are errors or answers ≥ 500, and warnings: how many, and the first few distinct texts. */
function serverErrors(files: string[]): { errors: number; warnings: number; samples: string[] } {
  const samples = new Set<string>();
  let errors = 0;
  let warnings = 0;
  for (const file of files) {
    if (!existsSync(file)) continue;
    for (const line of readFileSync(file, "utf8").split("\n")) {
      if (!line.startsWith("{")) continue;
      let entry: { level?: string; msg?: string; status?: number; error?: string; route?: string };
      try {
        entry = JSON.parse(line);
      } catch {
        continue;
      }
      const failed = entry.level === "error" || (typeof entry.status === "number" && entry.status >= 500);
      if (!failed && entry.level !== "warn") continue;
      if (failed) errors++;
      else warnings++;
      if (samples.size < 5)
        samples.add(
          `${entry.level} ${entry.msg}${entry.status ? ` ${entry.status} ${entry.route}` : ""}${entry.error ? `: ${entry.error.split("\n")[0]}` : ""}`,
        );
    }
  }
  return { errors, warnings, samples: [...samples] };
}

/**
 * A fresh database for the outbound comparison: two forms alike but for what goes out. `plain`
 * sends nothing; `outbound` has one standard webhook (to `hookUrl`) and an autoresponse (with the
 * email switch on; SMTP is not configured, so the autoresponses stay queued).
 */
async function prepareOutbound(hookUrl: string): Promise<{ db: string; key: string; plain: string; outbound: string }> {
  const db = join(WORK, "outbound.db");
  for (const suffix of ["", "-wal", "-shm"]) rmSync(db + suffix, { force: true });
  const config = loadConfig({}, { db, logLevel: "silent", webhookAllowPrivate: true });
  const store = await openStore(db);
  const services = await createServices({ store, clock: systemClock, config, log: silentLogger });
  const key = (await services.keys.createKey(OPERATOR, { owner: "bench@example.com", name: "bench" })).key;
  const plain = (
    await services.forms.createForm(OPERATOR, { owner: "bench@example.com", name: "Plain", formType: "contact" })
  ).id;
  const outbound = (
    await services.forms.createForm(OPERATOR, {
      owner: "bench@example.com",
      name: "Outbound",
      formType: "contact",
      emailEnabled: true,
      autoresponse: { subject: "Thanks", text: "We got your message, {{email}}." },
    })
  ).id;
  await store.sql.run(
    "INSERT INTO webhooks (id, form_id, url, format, secret, enabled, created_at) VALUES ('whk_bench', ?, ?, 'standard', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 1, ?)",
    [outbound, hookUrl, new Date().toISOString()],
  );
  await store.close();
  return { db, key, plain, outbound };
}

/**
 * Deliveries per second: `count` webhook deliveries queued (through the submit path's own writers)
 * before `formsvc serve` starts, then timed from its first answer until the receiver has them all.
 */
async function drainRate(count: number, receiverPort: number): Promise<{ perSecond: number; seconds: number }> {
  const db = join(WORK, "drain.db");
  for (const suffix of ["", "-wal", "-shm"]) rmSync(db + suffix, { force: true });
  const config = loadConfig({}, { db, logLevel: "silent", webhookAllowPrivate: true });
  const store = await openStore(db);
  const services = await createServices({ store, clock: systemClock, config, log: silentLogger });
  const form = await services.forms.createForm(OPERATOR, {
    owner: "bench@example.com",
    name: "Drained",
    formType: "contact",
  });
  await store.sql.run(
    "INSERT INTO webhooks (id, form_id, url, format, secret, enabled, created_at) VALUES ('whk_drain', ?, ?, 'standard', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 1, ?)",
    [form.id, `http://127.0.0.1:${receiverPort}/hook`, new Date().toISOString()],
  );
  await seedSubmissions(store.sql, form, count, { days: 1, label: `queuing ${count} deliveries` });
  await store.close();
  const received = async () =>
    ((await (await fetch(`http://127.0.0.1:${receiverPort}/count`)).json()) as { received: number }).received;
  const before = await received();
  const port = await freePort();
  const proc = await startServer([BUN, "src/main.ts", "serve", "--port", String(port)], port, {
    FORMSVC_DB: db,
    FORMSVC_LOG_LEVEL: "warn",
    FORMSVC_WEBHOOK_ALLOW_PRIVATE: "true",
  });
  const t0 = performance.now();
  const deadline = t0 + 120_000;
  while ((await received()) - before < count) {
    if (performance.now() > deadline) throw new Error("the drain did not finish within 120 s");
    await Bun.sleep(20);
  }
  const seconds = (performance.now() - t0) / 1000;
  proc.kill("SIGTERM");
  await proc.exited;
  return { perSecond: count / seconds, seconds };
}

async function main() {
  mkdirSync(WORK, { recursive: true });
  ensureWrk();
  const withFastify = ensureFastify();
  const setup = await prepareDatabase();
  const env = {
    FORMSVC_DB: setup.db,
    FORMSVC_RATE_LIMIT: "1000000000",
    FORMSVC_PUBLIC_RATE_LIMIT: "1000000000",
    FORMSVC_LOG_LEVEL: "info",
  };
  const ports = {
    formsvc: await freePort(),
    binary: await freePort(),
    post: await freePort(),
    durable: await freePort(),
    get: await freePort(),
    fastify: await freePort(),
    outbound: await freePort(),
    silent: await freePort(),
    receiver: await freePort(),
    pgA: await freePort(),
    pgB: await freePort(),
    pgLocal: await freePort(),
    pgNoFeed: await freePort(),
  };

  const formsvc = await startServer([BUN, "src/main.ts", "serve", "--port", String(ports.formsvc)], ports.formsvc, env);
  await Bun.sleep(500);
  const idleRss = rssMb(formsvc.pid);
  // The compiled binary (`npm run build`) is loaded too when it exists: it is what users run.
  const binaryPath = join(ROOT, "dist/formsvc");
  const binary = existsSync(binaryPath)
    ? await startServer([binaryPath, "serve", "--port", String(ports.binary)], ports.binary, env)
    : null;
  if (!binary) log("dist/formsvc is not built (npm run build): the binary is left out of this run");
  await Bun.sleep(500);
  const binaryIdleRss = binary ? rssMb(binary.pid) : NaN;
  const post = await startServer([BUN, "bench/baselines/bun-post.ts", String(ports.post)], ports.post);
  const get = await startServer([BUN, "bench/baselines/bun-get.ts", String(ports.get)], ports.get);
  for (const suffix of ["", "-wal", "-shm"]) rmSync(join(WORK, "durable.db") + suffix, { force: true });
  const durable = await startServer(
    [BUN, "bench/baselines/bun-durable.ts", String(ports.durable), join(WORK, "durable.db")],
    ports.durable,
  );
  let fastify: { pid: number } | null = null;
  if (withFastify) {
    rmSync(join(WORK, "fastify.db"), { force: true });
    // ESM resolves packages from the script's folder: run a copy beside its node_modules.
    const script = join(WORK, "node/fastify-sqlite.mjs");
    writeFileSync(script, readFileSync(join(import.meta.dir, "baselines/fastify-sqlite.mjs")));
    fastify = await startServer(["node", script, String(ports.fastify), join(WORK, "fastify.db")], ports.fastify);
  }

  // Issue 31's submit mix (bench/submit-mix.ts): 5 forms, 120 bodies, 4 user agents, forwarded
  // addresses; one server with owner notifications off, one with them on and SMTP to a loopback sink.
  const mixOff = await prepareMix("mix-off", false);
  const mixOn = await prepareMix("mix-on", true);
  const sink = await startSmtpSink();
  const mixOffPort = await freePort();
  const mixOnPort = await freePort();
  const mixServe = (port: number) => [BUN, "src/main.ts", "serve", "--port", String(port)];
  const mixOffServer = await startServer(mixServe(mixOffPort), mixOffPort, {
    ...env,
    ...MIX_ENV,
    FORMSVC_DB: mixOff.db,
  });
  const mixOnServer = await startServer(mixServe(mixOnPort), mixOnPort, {
    ...env,
    ...MIX_ENV,
    FORMSVC_DB: mixOn.db,
    FORMSVC_SMTP_URL: sink.url,
    FORMSVC_MAIL_FROM: "formsvc@example.com",
  });
  const mixOffScript = mixScript("mix-off", mixOff.key, mixOff.forms);
  const mixOnScript = mixScript("mix-on", mixOn.key, mixOn.forms);

  // The outbound comparison: its own server and database, a receiver that never answers (so the
  // submit pays for queuing only), and one that answers (for the drain figure).
  // Never answers, so it cannot be waited for like the others: given a moment to listen.
  started.push(
    Bun.spawn([BUN, "bench/baselines/receiver.ts", String(ports.silent), "silent"], {
      cwd: ROOT,
      stdout: "ignore",
      stderr: "inherit",
    }),
  );
  await Bun.sleep(300);
  await startServer([BUN, "bench/baselines/receiver.ts", String(ports.receiver), "answer"], ports.receiver);
  const outboundSetup = await prepareOutbound(`http://127.0.0.1:${ports.silent}/hook`);
  const outboundServer = await startServer(
    [BUN, "src/main.ts", "serve", "--port", String(ports.outbound)],
    ports.outbound,
    {
      ...env,
      FORMSVC_DB: outboundSetup.db,
      FORMSVC_WEBHOOK_ALLOW_PRIVATE: "true",
    },
  );

  // PostgreSQL (issue 19): a private cluster, and formsvc instances on one database of it. The cluster
  // and every instance run on core 0 with the SQLite server, wrk on core 1: each engine's whole
  // service (HTTP and database) gets the same one core, as SQLite's in-process database has it.
  log("starting PostgreSQL (test/helpers/postgres.ts) and formsvc on it");
  const pg = await startBenchPostgres(0);
  const pgSetup = await preparePostgres(pg.url);
  const pgEnv = { ...env, FORMSVC_DB: pg.url };
  const pgLogs = ["pg-a", "pg-b", "pg-local", "pg-no-feed"].map((n) => join(WORK, `${n}.log`));
  for (const f of pgLogs) rmSync(f, { force: true });
  const pgServe = (port: number, logFile: string) =>
    startServer([BUN, "src/main.ts", "serve", "--port", String(port)], port, pgEnv, logFile);
  const pgA = await pgServe(ports.pgA, pgLogs[0]!);
  const pgB = await pgServe(ports.pgB, pgLogs[1]!);
  // The limiter's A/B (bench/pg-variant.ts): rate limits in process; the shared limiter without the change feed.
  const pgLocal = await startServer(
    [BUN, "bench/pg-variant.ts", String(ports.pgLocal), "local-buckets"],
    ports.pgLocal,
    pgEnv,
    pgLogs[2],
  );
  const pgNoFeed = await startServer(
    [BUN, "bench/pg-variant.ts", String(ports.pgNoFeed), "no-feed"],
    ports.pgNoFeed,
    pgEnv,
    pgLogs[3],
  );

  const body = { formId: setup.formId, data: { email: "ada@example.com", message: "Hello there", rating: 5 } };
  const submitScript = postScript("submit", "/api/v1/forms/submit", body, { "X-API-Key": setup.key, "User-Agent": UA });
  const plainScript = postScript("plain", "/submit", body, {});
  const key = [`X-API-Key: ${setup.key}`];
  const url = (port: number, path = "/") => `http://127.0.0.1:${port}${path}`;
  const submitUrl = url(ports.formsvc, "/api/v1/forms/submit");
  const challengeHeaders = [`X-API-Key: ${setup.publishableKey}`, `Origin: ${SITE}`, `User-Agent: ${UA}`];
  const secretHeaders = { "Content-Type": "application/json", "X-API-Key": setup.key, "User-Agent": UA };
  const publicHeaders = {
    "Content-Type": "application/json",
    "X-API-Key": setup.publishableKey,
    Origin: SITE,
    "User-Agent": UA,
  };
  const plainBodies = (formId: string, n: number) =>
    Array.from({ length: n }, () => JSON.stringify({ ...body, formId }));
  // Issue 26: one browser form post, urlencoded, its six fields valid under the form's six rules; a
  // distinct email each, as the outbound runs send, so no two stored rows are alike. The secret-key
  // submit names the form in a `formId` field; the drop-in post names it in its address.
  const formPostBodies = (tag: string, n: number, formId?: string) =>
    Array.from({ length: n }, (_, i) =>
      new URLSearchParams({
        ...(formId ? { formId } : {}),
        name: "Ada Lovelace",
        email: `user${tag}-${i}@example.com`,
        company: "Analytical Engines Ltd",
        rating: "5",
        topic: "support",
        message: "I would like to hear more about the analytical engine.",
      }).toString(),
    );
  // What a browser sends with a form post, but for Accept: JSON asked for, as fetch() and Formspree's
  // clients ask, so both paths answer 200 with a small JSON body (a 303 would count as a failure in
  // the load loop, and only the drop-in path would build it).
  const formPostHeaders = {
    "Content-Type": "application/x-www-form-urlencoded",
    Accept: "application/json",
    Origin: SITE,
    Referer: `${SITE}/contact.html`,
    "User-Agent": UA,
  };
  const dropInUrl = url(ports.formsvc, `/f/${setup.dropInFormId}`);

  // Warm-up, not recorded: the first requests compile Elysia's handlers and JIT the hot path.
  await wrk(url(ports.formsvc), { script: submitScript, durationS: 2 });
  await wrk(url(ports.formsvc, `/api/v1/forms/${setup.formId}`), { headers: key, durationS: 1 });
  await wrk(url(mixOffPort), { script: mixOffScript, durationS: 2 });
  await notifyRun(url(mixOnPort), mixOnScript, mixOnServer.pid, sink.received, 1);
  if (binary) await wrk(url(ports.binary), { script: submitScript, durationS: 2 });
  await loadLoop("warm-secret", submitUrl, plainBodies(setup.formId, 1000), secretHeaders);
  await loadLoop("warm-public", submitUrl, await solvedBodies(setup.db, setup.powFormId, 1000), publicHeaders);
  await loadLoop("warm-form-post", submitUrl, formPostBodies("ws", 1000, setup.dropInFormId), {
    ...formPostHeaders,
    "X-API-Key": setup.key,
  });
  await loadLoop("warm-dropin", dropInUrl, formPostBodies("wd", 1000), formPostHeaders);
  await wrk(url(ports.outbound), {
    script: distinctEmailScript("warm-outbound", outboundSetup.outbound, outboundSetup.key, "w"),
    durationS: 2,
  });

  // The PostgreSQL section's scenarios: the same submit (secret key, the SQLite submit's body) and
  // GET /forms/{id}, through one wrk shape (splitScript), against each target.
  const submitReq = (formId: string, k: string): PgRequest => ({
    method: "POST",
    path: "/api/v1/forms/submit",
    body: { ...body, formId },
    headers: { "Content-Type": "application/json", "X-API-Key": k, "User-Agent": UA },
  });
  const getReq = (formId: string, k: string): PgRequest => ({
    method: "GET",
    path: `/api/v1/forms/${formId}`,
    headers: { "X-API-Key": k },
  });
  const pgTargets = [
    {
      name: SQLITE_1,
      ports: [ports.formsvc],
      pids: [formsvc.pid],
      pg: null,
      setup: { key: setup.key, formId: setup.formId },
      submit: true,
    },
    { name: PG_1, ports: [ports.pgA], pids: [pgA.pid], pg, setup: pgSetup, submit: true },
    { name: PG_2, ports: [ports.pgA, ports.pgB], pids: [pgA.pid, pgB.pid], pg, setup: pgSetup, submit: true },
    { name: PG_LOCAL, ports: [ports.pgLocal], pids: [pgLocal.pid], pg, setup: pgSetup, submit: true },
    // GET only: a submit resets its own instance's form cache at each commit anyway.
    { name: PG_NO_FEED, ports: [ports.pgNoFeed], pids: [pgNoFeed.pid], pg, setup: pgSetup, submit: false },
  ];
  const pgScenarios = pgTargets.flatMap((t, i) => [
    ...(t.submit
      ? [
          {
            name: `submit: ${t.name}`,
            target: t,
            script: splitScript(`pg-submit-${i}`, t.ports, submitReq(t.setup.formId, t.setup.key)),
          },
        ]
      : []),
    {
      name: `GET form: ${t.name}`,
      target: t,
      script: splitScript(`pg-get-${i}`, t.ports, getReq(t.setup.formId, t.setup.key)),
    },
  ]);
  // Deadlocks across the whole PostgreSQL section (issue 32: none, 1 instance or 2), read once its servers have ended.
  const deadlocksBefore = (await pg.stats()).deadlocks;
  // Submits first, then GETs, so each GET run follows another GET run (a submit leaves batches and cache drops behind).
  pgScenarios.sort((a, b) => Number(a.name.startsWith("GET")) - Number(b.name.startsWith("GET")));
  for (const sc of pgScenarios)
    await wrk(url(sc.target.ports[0]!), {
      script: sc.script,
      threads: 2,
      durationS: sc.name.startsWith("GET") ? 1 : 2,
    });

  const runs: Record<string, WrkResult[]> = {};
  const record = (name: string, r: WrkResult) => (runs[name] ??= []).push(r);
  const pgRuns: Record<string, PgRun[]> = {};
  for (let rep = 1; rep <= REPS; rep++) {
    log(`repetition ${rep}/${REPS}`);
    record("submit mix, 5 forms", await wrk(url(mixOffPort), { script: mixOffScript, pid: mixOffServer.pid }));
    record("submit", await wrk(url(ports.formsvc), { script: submitScript, pid: formsvc.pid }));
    record("(a) bare POST", await wrk(url(ports.post), { script: plainScript, pid: post.pid }));
    record("(d) durable limit", await wrk(url(ports.durable), { script: plainScript, pid: durable.pid }));
    if (fastify) record("(c) fastify+sqlite", await wrk(url(ports.fastify), { script: plainScript, pid: fastify.pid }));
    record(
      "submit mix, owner notifications on (until drained)",
      await notifyRun(url(mixOnPort), mixOnScript, mixOnServer.pid, sink.received),
    );
    record(
      "GET form",
      await wrk(url(ports.formsvc, `/api/v1/forms/${setup.formId}`), { headers: key, pid: formsvc.pid }),
    );
    record("(b) bare GET", await wrk(url(ports.get), { pid: get.pid }));
    record("submissions page 1", await wrk(url(ports.formsvc, setup.page1), { headers: key, pid: formsvc.pid }));
    // Analytics against GET of the same form (the paged one, PAGED_ROWS submissions over a year): issue 20's ratio.
    record(
      "GET form (paged form)",
      await wrk(url(ports.formsvc, `/api/v1/forms/${setup.pagedFormId}`), { headers: key, pid: formsvc.pid }),
    );
    record(
      "analytics period=year (paged form)",
      await wrk(url(ports.formsvc, `/api/v1/forms/${setup.pagedFormId}/analytics?period=year`), {
        headers: key,
        pid: formsvc.pid,
      }),
    );
    record("submissions page 9000", await wrk(url(ports.formsvc, setup.page9000), { headers: key, pid: formsvc.pid }));
    record(
      "GET challenge (publishable key, issues one)",
      await wrk(url(ports.formsvc, `/api/v1/forms/${setup.powFormId}/challenge`), {
        headers: challengeHeaders,
        pid: formsvc.pid,
      }),
    );
    // Solved before the run, while the server idles; each is accepted once, so each run has its own.
    const publicBodies = await solvedBodies(setup.db, setup.powFormId, LOOP_REQUESTS);
    record(
      "submit, secret key (load loop)",
      await loadLoop("secret", submitUrl, plainBodies(setup.formId, LOOP_REQUESTS), secretHeaders, formsvc.pid),
    );
    record(
      "submit, publishable key, challenge none (load loop)",
      await loadLoop(
        "public-none",
        submitUrl,
        plainBodies(setup.publicFormId, LOOP_REQUESTS),
        publicHeaders,
        formsvc.pid,
      ),
    );
    record(
      "submit, publishable key + solved pow (load loop)",
      await loadLoop("public-pow", submitUrl, publicBodies, publicHeaders, formsvc.pid),
    );
    record(
      FORM_POST_SECRET,
      await loadLoop(
        "form-post-secret",
        submitUrl,
        formPostBodies(`s${rep}`, LOOP_REQUESTS, setup.dropInFormId),
        { ...formPostHeaders, "X-API-Key": setup.key },
        formsvc.pid,
      ),
    );
    record(
      FORM_POST_DROPIN,
      await loadLoop(
        "form-post-dropin",
        dropInUrl,
        formPostBodies(`d${rep}`, LOOP_REQUESTS),
        formPostHeaders,
        formsvc.pid,
      ),
    );
    record(
      "submit, distinct emails, nothing outbound",
      await wrk(url(ports.outbound), {
        script: distinctEmailScript(`plain-${rep}`, outboundSetup.plain, outboundSetup.key, `p${rep}`),
        pid: outboundServer.pid,
      }),
    );
    record(
      "submit, distinct emails, 1 webhook + autoresponse",
      await wrk(url(ports.outbound), {
        script: distinctEmailScript(`outbound-${rep}`, outboundSetup.outbound, outboundSetup.key, `o${rep}`),
        pid: outboundServer.pid,
      }),
    );
    if (binary) {
      record("submit (dist/formsvc)", await wrk(url(ports.binary), { script: submitScript, pid: binary.pid }));
      record(
        "GET form (dist/formsvc)",
        await wrk(url(ports.binary, `/api/v1/forms/${setup.formId}`), { headers: key, pid: binary.pid }),
      );
    }
    for (const sc of pgScenarios)
      (pgRuns[sc.name] ??= []).push(
        await pgSectionRun(sc.target.pg, sc.target.pids, url(sc.target.ports[0]!), sc.script),
      );
  }
  for (const server of [pgA, pgB, pgLocal, pgNoFeed]) {
    server.kill("SIGTERM");
    await server.exited;
  }
  // A backend reports its statistics when it ends, at the latest.
  await Bun.sleep(1200);
  const pgErrors = { ...serverErrors(pgLogs), deadlocks: (await pg.stats()).deadlocks - deadlocksBefore };
  // The database alone (bench/pg-limits.ts, pinned to wrk's core, the cluster on core 0): its commit rate and the limiter's statement.
  log("measuring PostgreSQL's commit rate and the shared limiter's statement (bench/pg-limits.ts)");
  const limitsRun = spawnSync(
    pinned(1, [BUN, join(import.meta.dir, "pg-limits.ts"), pg.url, String(pg.postmasterPid), QUICK ? "1.5" : "4"]),
    { cwd: ROOT, stderr: "inherit" },
  );
  const limits = limitsRun.exitCode === 0 ? (JSON.parse(limitsRun.stdout.toString()) as PgLimits) : null;
  await pg.close();
  for (const server of [formsvc, binary, outboundServer, mixOffServer, mixOnServer]) {
    server?.kill("SIGTERM");
    await server?.exited;
  }
  const queued = await (async () => {
    const store = await openStore(outboundSetup.db);
    const rows = await store.sql.all<{ kind: string; n: number }>(
      "SELECT kind, CAST(count(*) AS INTEGER) AS n FROM outbox GROUP BY kind",
    );
    await store.close();
    return Object.fromEntries(rows.map((r) => [r.kind, r.n]));
  })();
  const drainCount = QUICK ? 5_000 : 20_000;
  log(`draining ${drainCount} webhook deliveries`);
  const drain = await drainRate(drainCount, ports.receiver);
  const startMs = await startupMs(setup.db, [BUN, "src/main.ts"]);
  // The verification alone, in one process with nothing else running (bench/pow.ts).
  const powOut = spawnSync(pinned(0, [BUN, join(import.meta.dir, "pow.ts"), QUICK ? "20" : "60"]), {
    cwd: ROOT,
    stderr: "inherit",
  }).stdout.toString();
  const powLine = (prefix: string) =>
    powOut.split("\n").find((l) => l.startsWith(prefix)) ?? `${prefix}: (bench/pow.ts printed nothing)`;
  const binaryStartMs = binary ? await startupMs(setup.db, [binaryPath]) : NaN;

  const m = (name: string, f: keyof WrkResult) => (runs[name] ? median(runs[name]!.map((r) => r[f] ?? NaN)) : NaN);
  const rps = (n: string) => m(n, "rps");
  const ratio = (a: number, b: number) => (Number.isFinite(a) && Number.isFinite(b) ? a / b : NaN);
  const check = (ok: boolean | null) => (ok === null ? "n/a" : ok ? "pass" : "MISS");
  const f = (x: number, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : "-");

  const submitRatioA = ratio(rps("submit"), rps("(a) bare POST"));
  const submitRatioD = ratio(rps("submit"), rps("(d) durable limit"));
  const submitRatioC = ratio(rps("submit"), rps("(c) fastify+sqlite"));
  const getRatio = ratio(rps("GET form"), rps("(b) bare GET"));
  const binarySubmitRatio = ratio(rps("submit (dist/formsvc)"), rps("(d) durable limit"));
  const binaryGetRatio = ratio(rps("GET form (dist/formsvc)"), rps("(b) bare GET"));
  const pageRatio = ratio(rps("submissions page 1"), rps("(b) bare GET"));
  const analyticsRatio = ratio(rps("analytics period=year (paged form)"), rps("GET form (paged form)"));
  const analyticsRss = m("analytics period=year (paged form)", "maxRss");
  // The highest RSS sampled under any load of the server: the target holds under every load, not only submit.
  const everyLoad = [
    "submit",
    "GET form",
    "submissions page 1",
    "submissions page 9000",
    "analytics period=year (paged form)",
  ];
  const worstRss = Math.max(...everyLoad.map((n) => Math.max(...(runs[n] ?? []).map((r) => r.maxRss ?? NaN))));
  const worstLoad = everyLoad.find((n) => (runs[n] ?? []).some((r) => r.maxRss === worstRss)) ?? "-";
  const deepRatio = ratio(m("submissions page 9000", "p50"), m("submissions page 1", "p50"));
  const storeRatio = ratio(setup.storeMs.page9000, setup.storeMs.page1);
  const outboundRatio = ratio(
    rps("submit, distinct emails, 1 webhook + autoresponse"),
    rps("submit, distinct emails, nothing outbound"),
  );
  const loadRss = m("submit", "maxRss");
  const binaryLoadRss = m("submit (dist/formsvc)", "maxRss");
  const withBinary = (ok: boolean) => (binary ? ok : null);
  const secretCpu = m("submit, secret key (load loop)", "cpuUs");
  const publicNoneCpu = m("submit, publishable key, challenge none (load loop)", "cpuUs");
  const publicCpu = m("submit, publishable key + solved pow (load loop)", "cpuUs");
  const dropInCpuRatio = ratio(m(FORM_POST_DROPIN, "cpuUs"), m(FORM_POST_SECRET, "cpuUs"));
  const publicRatio = ratio(
    rps("submit, publishable key + solved pow (load loop)"),
    rps("submit, secret key (load loop)"),
  );

  const lines = [
    `Machine: ${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(1)} GiB; ${new Date().toISOString().slice(0, 10)}; ${QUICK ? "quick" : "full"} run, ${REPS} repetition(s) of ${DURATION_S} s, ${CONNECTIONS} connections, server on core 0, wrk on core 1; paged form ${PAGED_ROWS} rows.`,
    "",
    "| scenario | req/s | p50 ms | p99 ms | server CPU µs/req |",
    "|---|---|---|---|---|",
    ...Object.keys(runs).map(
      (n) => `| ${n} | ${f(rps(n), 0)} | ${f(m(n, "p50"))} | ${f(m(n, "p99"))} | ${f(m(n, "cpuUs"), 1)} |`,
    ),
    "",
    ...mixTargets(m),
    "| target | measured | goal | |",
    "|---|---|---|---|",
    `| submit vs (d) durable limit | ${f(submitRatioD)} | ≥ 0.6 | ${check(submitRatioD >= 0.6)} |`,
    `| submit vs (a) bare POST, nothing stored (for reference) | ${f(submitRatioA)} | (none) | ${check(null)} |`,
    `| submit vs (c) fastify+sqlite | ${f(submitRatioC)} | ≥ 2.5 | ${check(Number.isFinite(submitRatioC) ? submitRatioC >= 2.5 : null)} |`,
    `| submit p99 | ${f(m("submit", "p99"))} ms | ≤ 10 ms | ${check(m("submit", "p99") <= 10)} |`,
    `| submit (dist/formsvc) vs (d) durable limit | ${f(binarySubmitRatio)} | ≥ 0.6 | ${check(withBinary(binarySubmitRatio >= 0.6))} |`,
    `| submit p99 (dist/formsvc) | ${f(m("submit (dist/formsvc)", "p99"))} ms | ≤ 10 ms | ${check(withBinary(m("submit (dist/formsvc)", "p99") <= 10))} |`,
    `| GET form vs (b) bare GET | ${f(getRatio)} | ≥ 0.5 | ${check(getRatio >= 0.5)} |`,
    `| GET form (dist/formsvc) vs (b) bare GET | ${f(binaryGetRatio)} | ≥ 0.5 | ${check(withBinary(binaryGetRatio >= 0.5))} |`,
    `| submissions page 1 vs (b) | ${f(pageRatio)} | ≥ 0.5 | ${check(pageRatio >= 0.5)} |`,
    `| analytics year vs GET form, same form | ${f(analyticsRatio)} | ≥ 0.25 | ${check(analyticsRatio >= 0.25)} |`,
    `| page 9000 / page 1 (p50 latency) | ${f(deepRatio)} | ≤ 1.2 | ${check(deepRatio <= 1.2)} |`,
    `| page 9000 / page 1, keyset query alone (${f(setup.storeMs.page9000 * 1000, 0)} vs ${f(setup.storeMs.page1 * 1000, 0)} µs, no page cache) | ${f(storeRatio)} | ≤ 1.2 | ${check(storeRatio <= 1.2)} |`,
    `| idle RSS | ${f(idleRss, 1)} MB | ≤ 64 MB | ${check(idleRss <= 64)} |`,
    `| RSS under submit load | ${f(loadRss, 1)} MB | ≤ 128 MB | ${check(loadRss <= 128)} |`,
    `| RSS under analytics year load | ${f(analyticsRss, 1)} MB | ≤ 128 MB | ${check(analyticsRss <= 128)} |`,
    `| RSS under every load, highest sample of any run (${worstLoad}) | ${f(worstRss, 1)} MB | ≤ 128 MB | ${check(worstRss <= 128)} |`,
    `| idle RSS (dist/formsvc) | ${f(binaryIdleRss, 1)} MB | ≤ 64 MB | ${check(withBinary(binaryIdleRss <= 64))} |`,
    `| RSS under submit load (dist/formsvc) | ${f(binaryLoadRss, 1)} MB | ≤ 128 MB | ${check(withBinary(binaryLoadRss <= 128))} |`,
    `| start to first answer (from source) | ${f(startMs, 0)} ms | ≤ 200 ms | ${check(startMs <= 200)} |`,
    `| start to first answer (dist/formsvc) | ${f(binaryStartMs, 0)} ms | ≤ 200 ms | ${check(withBinary(binaryStartMs <= 200))} |`,
    "",
    `Public submit (bench/load.ts, ${LOOP_REQUESTS} requests per run, ${CONNECTIONS} at a time, in turns with the secret-key submit; server CPU from /proc):`,
    "",
    "| submit | req/s | p50 ms | p99 ms | server CPU µs/req |",
    "|---|---|---|---|---|",
    ...[
      "submit, secret key (load loop)",
      "submit, publishable key, challenge none (load loop)",
      "submit, publishable key + solved pow (load loop)",
    ].map((n) => `| ${n} | ${f(rps(n), 0)} | ${f(m(n, "p50"))} | ${f(m(n, "p99"))} | ${f(m(n, "cpuUs"), 1)} |`),
    "",
    `Publishable + pow vs secret: ${f(publicRatio)} of the throughput, +${f(publicCpu - secretCpu, 1)} µs of server CPU per request: +${f(publicNoneCpu - secretCpu, 1)} µs for the public path (origin check, CORS headers, per-visitor bucket), +${f(publicCpu - publicNoneCpu, 1)} µs for the proof of work (decode, check, verify, and record the solution in its own commit).`,
    `${powLine("verifySolution")}`,
    `${powLine("the whole check")}`,
    `| submit with 1 webhook + autoresponse vs nothing outbound (same server, distinct emails; what queuing two outbox rows costs, see bench/queue-cost.ts) | ${f(outboundRatio)} | (none) | ${check(null)} |`,
    "",
    `Outbox rows queued by the outbound runs: ${Object.entries(queued)
      .map(([k, n]) => `${k} ${n}`)
      .join(", ")}.`,
    `Drain: ${drainCount} webhook deliveries (standard, signed) to a loopback receiver in ${f(drain.seconds)} s: ${f(drain.perSecond, 0)} deliveries/s.`,
    "",
    `Drop-in (issue 26; bench/load.ts, ${LOOP_REQUESTS} requests per run, ${CONNECTIONS} at a time, after the public submits): one form with ${DROPIN_FIELDS.length} field rules, each post urlencoded with its ${DROPIN_FIELDS.length} fields (a distinct email each) and Accept: application/json:`,
    "",
    "| submit | req/s | p50 ms | p99 ms | server CPU µs/req |",
    "|---|---|---|---|---|",
    ...[FORM_POST_SECRET, FORM_POST_DROPIN].map(
      (n) => `| ${n} | ${f(rps(n), 0)} | ${f(m(n, "p50"))} | ${f(m(n, "p99"))} | ${f(m(n, "cpuUs"), 1)} |`,
    ),
    "",
    "| target | measured | goal | |",
    "|---|---|---|---|",
    `| drop-in POST /f/ vs secret-key submit, CPU per request | ${f(dropInCpuRatio)} | ≤ 1.15 | ${check(dropInCpuRatio <= 1.15)} |`,
    "",
    ...postgresLines(pgRuns, limits, pgErrors),
  ];
  console.log(lines.join("\n"));
}

const FORM_POST_SECRET = "form post, 6 fields checked, secret key (/api/v1/forms/submit)";
const FORM_POST_DROPIN = "form post, 6 fields checked, drop-in (/f/{formId})";
const SQLITE_1 = "SQLite, 1 instance";
const PG_1 = "PostgreSQL, 1 instance";
const PG_2 = "PostgreSQL, 2 instances";
const PG_LOCAL = "PostgreSQL, 1 instance, rate limits in process (A/B)";
const PG_NO_FEED = "PostgreSQL, 1 instance, shared limiter, no change feed (A/B)";

/** The PostgreSQL section of the report: its table, the ratios, the database's own limits, and the servers' errors. */
function postgresLines(
  pgRuns: Record<string, PgRun[]>,
  limits: PgLimits | null,
  errors: { errors: number; warnings: number; samples: string[]; deadlocks: number },
): string[] {
  const m = (name: string, k: keyof PgRun) => (pgRuns[name] ? median(pgRuns[name]!.map((r) => r[k] ?? NaN)) : NaN);
  const f = (x: number, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : "-");
  const ratio = (a: number, b: number) => f(a / b);
  const [sqlite, pg1, pg2, local, noFeed] = [SQLITE_1, PG_1, PG_2, PG_LOCAL, PG_NO_FEED];
  const errs = (n: string) => (pgRuns[n] ?? []).reduce((s, r) => s + (r.non2xx ?? 0) + (r.socketErrors ?? 0), 0);
  const row = (n: string) => {
    const busy = (m(n, "rps") * (m(n, "appCpuUs") + (Number.isFinite(m(n, "pgCpuUs")) ? m(n, "pgCpuUs") : 0))) / 1e6;
    return `| ${n} | ${f(m(n, "rps"), 0)} | ${f(m(n, "p50"))} | ${f(m(n, "p99"))} | ${errs(n)} | ${f(m(n, "appCpuUs"), 1)} | ${f(m(n, "pgCpuUs"), 1)} | ${f(busy)} | ${f(m(n, "commits"))} | ${f(m(n, "walFsyncsPerK"), 1)} | ${f(m(n, "keyReads"))} / ${f(m(n, "formReads"))} |`;
  };
  const lines = [
    `PostgreSQL (issue 19): a private PostgreSQL ${limits?.settings.server_version ?? ""} cluster (test/helpers/postgres.ts; fsync and synchronous_commit on) and every formsvc instance pinned to core 0 with the SQLite server; one wrk on core 1 with 2 threads of 32 connections, both threads to one instance or one to each of two; FORMSVC_RATE_LIMIT 1e9 (never refuses, every request still takes from the bucket).`,
    "",
    "| scenario | req/s | p50 ms | p99 ms | non-2xx + socket errors (all reps) | formsvc CPU µs/req | PostgreSQL CPU µs/req | core 0 busy (CPU s per s) | commits/req | WAL fsyncs per 1k req | scans of api_keys / forms per req |",
    "|---|---|---|---|---|---|---|---|---|---|---|",
    ...Object.keys(pgRuns).map(row),
    "",
    "| ratio | submit | GET form |",
    "|---|---|---|",
    `| PostgreSQL, 1 instance vs SQLite | ${ratio(m(`submit: ${pg1}`, "rps"), m(`submit: ${sqlite}`, "rps"))} | ${ratio(m(`GET form: ${pg1}`, "rps"), m(`GET form: ${sqlite}`, "rps"))} |`,
    `| PostgreSQL, 2 instances vs 1 | ${ratio(m(`submit: ${pg2}`, "rps"), m(`submit: ${pg1}`, "rps"))} | ${ratio(m(`GET form: ${pg2}`, "rps"), m(`GET form: ${pg1}`, "rps"))} |`,
    `| PostgreSQL, 1 instance, shared limiter vs rate limits in process | ${ratio(m(`submit: ${pg1}`, "rps"), m(`submit: ${local}`, "rps"))} | ${ratio(m(`GET form: ${pg1}`, "rps"), m(`GET form: ${local}`, "rps"))} |`,
    `| PostgreSQL, 1 instance, shared limiter vs the same without the change feed | - | ${ratio(m(`GET form: ${pg1}`, "rps"), m(`GET form: ${noFeed}`, "rps"))} |`,
  ];
  if (limits) {
    const at = (rates: Rate[], n: number) => rates.find((r) => r.inFlight === n);
    const cell = (r: Rate | undefined) =>
      r ? `${f(r.perSecond, 0)} / ${f(r.p50)} ms / ${f(r.clientCpuUs, 1)} + ${f(r.serverCpuUs, 1)} µs` : "-";
    lines.push(
      "",
      `The database alone (bench/pg-limits.ts on core 1, Bun's SQL client, ${limits.seconds} s each; wal_sync_method ${limits.settings.wal_sync_method}, commit_delay ${limits.settings.commit_delay}). Each cell: operations/s / p50 latency / CPU per operation, client + PostgreSQL:`,
      "",
      "| in flight | INSERT transactions (synchronous_commit on) | SELECT 1 (round trip) | limiter take, one bucket | limiter take, own buckets |",
      "|---|---|---|---|---|",
      ...limits.commits.map(
        (c) =>
          `| ${c.inFlight} | ${cell(c)} | ${cell(at(limits.roundTrip, c.inFlight))} | ${cell(at(limits.oneBucket, c.inFlight))} | ${cell(at(limits.ownBuckets, c.inFlight))} |`,
      ),
    );
    const cpuDiff = (a: string, b: string) =>
      `${f(m(a, "appCpuUs") - m(b, "appCpuUs"), 1)} + ${f(m(a, "pgCpuUs") - m(b, "pgCpuUs"), 1)}`;
    const fsyncsPerS = (n: string) => (m(n, "rps") * m(n, "walFsyncsPerK")) / 1000;
    const best = Math.max(...limits.commits.map((c) => c.perSecond));
    lines.push(
      "",
      `Commit rate used: submit on 1 instance flushed the WAL ${f(fsyncsPerS(`submit: ${pg1}`), 0)} times/s and on 2 instances ${f(fsyncsPerS(`submit: ${pg2}`), 0)} times/s, against ${f(limits.commits[0]!.perSecond, 0)} durable commits/s one at a time and ${f(best, 0)}/s at most (group commit batches ${f(1000 / m(`submit: ${pg1}`, "walFsyncsPerK"), 0)} submissions per flush on 1 instance).`,
      `Limiter, CPU per request (formsvc + PostgreSQL), from the A/B runs: GET form, the take itself (no change feed − in process) ${cpuDiff(`GET form: ${noFeed}`, `GET form: ${local}`)} µs and the cache resets its commits cause (shared − no change feed) ${cpuDiff(`GET form: ${pg1}`, `GET form: ${noFeed}`)} µs; submit, shared − in process ${cpuDiff(`submit: ${pg1}`, `submit: ${local}`)} µs.`,
    );
  } else lines.push("", "bench/pg-limits.ts failed: the database's own limits are missing from this run.");
  lines.push(
    "",
    "Scans of api_keys and forms count the key and form caches' misses (a submit's forms scans also hold its foreign-key check); commits count every transaction, read-only statements too.",
    `PostgreSQL servers' logs: ${errors.errors} errors or answers ≥ 500, ${errors.warnings} warnings${errors.samples.length ? `; first: ${errors.samples.join(" | ")}` : ""}. Deadlocks (pg_stat_database) across the section: ${errors.deadlocks}.`,
  );
  return lines;
}

try {
  await main();
} finally {
  killAll();
}
