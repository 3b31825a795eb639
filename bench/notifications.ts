// `bun bench/notifications.ts [--quick]` (issue 29): what an owner notification costs the server,
// per submission, from the submit until the outbox has sent every email, in two scenarios on one
// server, interleaved in each repetition: formsvc's default email to the owner alone, and a
// Mustache template sent to 3 confirmed recipients. The CPU is the server's (user + system, from
// /proc, as bench/run.ts reads it); the emails go to a real SMTP server on loopback (smtp-server),
// which counts them without parsing.
import { rmSync } from "node:fs";
import { join } from "node:path";
import { countingSmtpServer } from "./baselines/smtp-sink";
import { loadConfig } from "../src/config";
import { openStore } from "../src/db/store";
import { systemClock } from "../src/lib/clock";
import { silentLogger } from "../src/lib/log";
import { OPERATOR } from "../src/lib/principal";
import { createServices } from "../src/services";
import { BUN, cpuMs, freePort, log, median, QUICK, startServer, WORK } from "./harness";

const SUBMISSIONS = QUICK ? 300 : 1500;
const REPS = 3;
const CONCURRENCY = 16;
const RECIPIENTS = ["team@example.com", "sales@example.com", "desk@example.com"];
const TEMPLATE = {
  subject: "{{form.name}}: {{name}}",
  text: "New message from {{name}} <{{email}}>\n\n{{message}}\n\n{{#fields}}{{name}}: {{value}}\n{{/fields}}Submission {{submission.id}}",
};

/** A real SMTP server on loopback that accepts and counts every message (its body read and dropped). */
async function countingSink(): Promise<{ port: number; count: () => number; close: () => void }> {
  const { server, count } = countingSmtpServer();
  const port = await freePort();
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
  return { port, count, close: () => server.close() };
}

const db = join(WORK, "notifications.db");
for (const suffix of ["", "-wal", "-shm"]) rmSync(db + suffix, { force: true });
const store = await openStore(db);
const services = await createServices({
  store,
  clock: systemClock,
  config: loadConfig({}, { db, logLevel: "silent" }),
  log: silentLogger,
});
const key = (await services.keys.createKey(OPERATOR, { owner: "bench@example.com", name: "bench" })).key;
const email = { emailEnabled: true, developerNotifications: true };
const plain = await services.forms.createForm(OPERATOR, {
  owner: "bench@example.com",
  name: "Default email",
  formType: "contact",
  ...email,
});
const team = await services.forms.createForm(OPERATOR, {
  owner: "bench@example.com",
  name: "Team, template",
  formType: "contact",
  notificationTemplate: TEMPLATE,
  ...email,
});
// Confirmed as their links would confirm them: the bench measures sending, not confirming.
await store.sql.run("UPDATE forms SET recipients = ? WHERE id = ?", [
  JSON.stringify(RECIPIENTS.map((e) => ({ email: e, confirmed: true }))),
  team.id,
]);
await store.close();

const sink = await countingSink();
const port = await freePort();
const server = await startServer([BUN, "src/main.ts", "serve", "--port", String(port)], port, {
  FORMSVC_DB: db,
  FORMSVC_SMTP_URL: `smtp://127.0.0.1:${sink.port}`,
  FORMSVC_MAIL_FROM: "forms@example.net",
  FORMSVC_RATE_LIMIT: "1000000000",
  FORMSVC_LOG_LEVEL: "warn",
});
const base = `http://127.0.0.1:${port}`;

/** Posts `n` submissions to `formId`, `CONCURRENCY` at a time, each from a new address. */
async function submitAll(formId: string, n: number, tag: string): Promise<void> {
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < n; i = next++) {
      const res = await fetch(`${base}/api/v1/forms/submit`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": key },
        body: JSON.stringify({
          formId,
          data: {
            name: `Ada ${tag}-${i}`,
            email: `ada.${tag}.${i}@example.com`,
            message: "Hello! Could you tell me more about your pricing for teams?",
          },
        }),
      });
      if (res.status !== 200) throw new Error(`submit answered ${res.status}: ${await res.text()}`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

/** Until the sink has `expected` messages and the server's outbox is empty (polled 5 times a second). */
async function drained(expected: number): Promise<void> {
  for (const until = Date.now() + 600_000; Date.now() < until; await Bun.sleep(200)) {
    if (sink.count() < expected) continue;
    const health = (await (await fetch(`${base}/healthz`)).json()) as { outbox?: { pending: number; failed: number } };
    if (health.outbox?.failed) throw new Error(`the outbox failed ${health.outbox.failed} messages`);
    if (health.outbox?.pending === 0) return;
  }
  throw new Error(`the outbox did not drain: ${sink.count()} of ${expected} messages`);
}

interface Run {
  cpuMsPerSubmission: number;
  cpuMsPerEmail: number;
  emailsPerSecond: number;
}

/** One scenario: its submissions, then the drain; server CPU and wall time over both. */
async function run(formId: string, emailsEach: number, tag: string): Promise<Run> {
  const before = sink.count();
  const cpu0 = cpuMs(server.pid);
  const t0 = performance.now();
  await submitAll(formId, SUBMISSIONS, tag);
  await drained(before + SUBMISSIONS * emailsEach);
  const wall = (performance.now() - t0) / 1000;
  const cpu = cpuMs(server.pid) - cpu0;
  const emails = SUBMISSIONS * emailsEach;
  return { cpuMsPerSubmission: cpu / SUBMISSIONS, cpuMsPerEmail: cpu / emails, emailsPerSecond: emails / wall };
}

const scenarios = [
  { name: "default email, owner alone", formId: plain.id, emailsEach: 1 },
  { name: "template, 3 confirmed recipients", formId: team.id, emailsEach: 3 },
] as const;
const results = new Map<string, Run[]>(scenarios.map((s) => [s.name, []]));
// A warm-up of each, not counted: the first submissions pay for Mustache's load and the SMTP connections.
for (const s of scenarios) await run(s.formId, s.emailsEach, `warm-${s.emailsEach}`);
for (let rep = 0; rep < REPS; rep++)
  for (const s of scenarios) {
    const r = await run(s.formId, s.emailsEach, `${rep}-${s.emailsEach}`);
    results.get(s.name)!.push(r);
    log(
      `${s.name}: ${r.cpuMsPerSubmission.toFixed(3)} ms CPU per submission, ${r.cpuMsPerEmail.toFixed(3)} per email, ${r.emailsPerSecond.toFixed(0)} emails/s`,
    );
  }

const row = (name: string) => {
  const runs = results.get(name)!;
  return {
    cpu: median(runs.map((r) => r.cpuMsPerSubmission)),
    perEmail: median(runs.map((r) => r.cpuMsPerEmail)),
    rate: median(runs.map((r) => r.emailsPerSecond)),
  };
};
const [a, b] = scenarios.map((s) => row(s.name)) as [ReturnType<typeof row>, ReturnType<typeof row>];
console.log(
  [
    `${SUBMISSIONS} submissions per run, ${REPS} runs of each scenario interleaved (medians), ${CONCURRENCY} at a time; server CPU from submit until the outbox drained`,
    "",
    "| scenario | server CPU ms per submission | per email | emails/s |",
    "|---|---|---|---|",
    ...scenarios.map((s, i) => {
      const r = i === 0 ? a : b;
      return `| ${s.name} | ${r.cpu.toFixed(3)} | ${r.perEmail.toFixed(3)} | ${r.rate.toFixed(0)} |`;
    }),
    "",
    `template + 3 recipients / default: ${(b.cpu / a.cpu).toFixed(2)}× the CPU per submission, ${(b.perEmail / a.perEmail).toFixed(2)}× per email`,
  ].join("\n"),
);
sink.close();
process.exit(0);
