// `npx bun bench/lifecycle.ts [--quick]`: what the data lifecycle costs on a database of realistic size
// (1,000,000 submissions over 10 forms, half of them with notifications queued; --quick: 100,000):
// secure_delete and the submissions-by-id index on the submit path, deleting (one, a person, a
// retention backlog, a whole form) with secure_delete off and on, the TRUNCATE checkpoint after an
// erasure, and VACUUM. Results: bench/RESULTS.md; an export's memory: bench/export-memory.ts.
import { createPartialsRepo } from "../src/modules/dropin/partials-repo";
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { join } from "node:path";
import { openStore } from "../src/db/store";
import { loadConfig } from "../src/config";
import { isoTime, systemClock } from "../src/lib/clock";
import { newId } from "../src/lib/ids";
import { silentLogger } from "../src/lib/log";
import { OPERATOR } from "../src/lib/principal";
import { createConfirmationsRepo } from "../src/modules/confirmations/repo";
import type { Form } from "../src/modules/forms/model";
import { createOutboxRepo } from "../src/modules/outbox/repo";
import type { NewSubmission } from "../src/modules/submissions/model";
import { createSubmissionLifecycle } from "../src/modules/submissions/lifecycle";
import { createSubmissionsRepo } from "../src/modules/submissions/repo";
import { createServices, submitPipeline } from "../src/services";
import { seedSubmissions } from "./seed";

const QUICK = process.argv.includes("--quick");
const ROWS = QUICK ? 100_000 : 1_000_000;
const FORMS = 10;
const WORK = join(import.meta.dir, ".work");
const SEEDED = join(WORK, `lifecycle-${ROWS}.db`);
const DB = join(WORK, `lifecycle-${ROWS}-run.db`);
const log = (s: string) => process.stderr.write(`${s}\n`);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const ms = (n: number) => `${n.toFixed(n < 10 ? 2 : 0)} ms`;
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
const time = async <T>(fn: () => T | Promise<T>): Promise<[T, number]> => {
  const t0 = performance.now();
  const out = await fn();
  return [out, performance.now() - t0];
};
const fileSize = (f: string) => (existsSync(f) ? statSync(f).size : 0);

mkdirSync(WORK, { recursive: true });
const config = loadConfig({}, { db: DB, logLevel: "silent" });

// Seeded once and kept; each run works on a fresh copy (it deletes).
if (!existsSync(`${SEEDED}.json`)) {
  for (const suffix of ["", "-wal", "-shm"]) rmSync(SEEDED + suffix, { force: true });
  const store = await openStore(SEEDED);
  const services = await createServices({
    store,
    clock: systemClock,
    config: loadConfig({}, { db: SEEDED, logLevel: "silent" }),
    log: silentLogger,
  });
  const key = (await services.keys.createKey(OPERATOR, { owner: "bench@example.com" })).key;
  const forms: string[] = [];
  for (let i = 0; i < FORMS; i++) {
    const notify = i < FORMS / 2;
    const form = await services.forms.createForm(OPERATOR, {
      owner: "bench@example.com",
      name: `Form ${i}`,
      formType: i % 3 === 0 ? "waitlist" : "contact",
      emailEnabled: notify,
      developerNotifications: notify,
    });
    await seedSubmissions(store.sql, form, ROWS / FORMS, { label: `seeding form ${i + 1} of ${FORMS}` });
    forms.push(form.id);
  }
  await store.close();
  writeFileSync(`${SEEDED}.json`, JSON.stringify({ key, forms }));
}
const { forms } = JSON.parse(readFileSync(`${SEEDED}.json`, "utf8")) as { forms: string[] };
for (const suffix of ["", "-wal", "-shm"]) rmSync(DB + suffix, { force: true });
await Bun.write(DB, Bun.file(SEEDED));

const store = await openStore(DB);
const services = await createServices({ store, clock: systemClock, config, log: silentLogger });
// What this bench measures is SQLite's (pragmas, VACUUM, its files): its statements go through the store as they are.
const { sql } = store;
const repo = createSubmissionsRepo(sql);
const setSecureDelete = (on: boolean) => sql.run(`PRAGMA secure_delete = ${on ? "ON" : "OFF"}`);
const lines: string[] = [];
const report = (s: string) => {
  lines.push(s);
  log(s);
};
report(
  `Machine: ${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(1)} GiB; ${new Date().toISOString().slice(0, 10)}; ${ROWS.toLocaleString("en")} submissions in ${FORMS} forms, database ${mib(fileSize(DB))}`,
);

// 1. The submit path: commits of 50 through the pipeline's writers (fsync'd), secure_delete off and on in turns.
{
  const commit = submitPipeline(sql).commit;
  const form: Form = await services.forms.requireForm(forms[0]!);
  let n = 0;
  const batch = (): NewSubmission[] =>
    Array.from({ length: 50 }, () => {
      const meta = {
        browser: "Chrome",
        browserVersion: "120",
        os: "Windows",
        osVersion: "10",
        device: "desktop" as const,
        country: "DE",
        language: "en",
        referrer: null,
      };
      const json = JSON.stringify({ email: `new${n}@example.com`, message: `Hello ${n++}`, _meta: meta });
      return {
        id: newId("sub"),
        form,
        status: "inbox",
        json,
        meta,
        email: `new${n}@example.com`,
        createdAt: isoTime(Date.now()),
        idempotency: null,
        stages: {},
      };
    });
  const round = async () => {
    const rounds: number[] = [];
    for (let i = 0; i < 40; i++) rounds.push((await time(() => commit(batch())))[1]);
    return median(rounds);
  };
  const times: Record<string, number[]> = { off: [], on: [] };
  for (let r = 0; r < 6; r++) {
    for (const mode of ["off", "on"] as const) {
      await setSecureDelete(mode === "on");
      times[mode]!.push(await round());
    }
  }
  report(
    `submit commit of 50 (median of 6 rounds of 40): secure_delete off ${ms(median(times.off!))}, on ${ms(median(times.on!))}`,
  );
  // With and without the index in turns (dropping and building it takes a second or two on a large table).
  const indexed: Record<string, number[]> = { with: [], without: [] };
  let build = 0;
  for (let r = 0; r < 3; r++) {
    indexed.with!.push(await round());
    await sql.run("DROP INDEX submissions_by_id");
    indexed.without!.push(await round());
    build = (await time(() => sql.run("CREATE UNIQUE INDEX submissions_by_id ON submissions (id)")))[1];
  }
  report(
    `submit commit of 50 with the submissions_by_id index ${ms(median(indexed.with!))}, without ${ms(median(indexed.without!))} (medians of 3 rounds in turns); building it (migration 010) ${ms(build)}`,
  );
  await sql.get("PRAGMA wal_checkpoint(TRUNCATE)");
}

// 2. One submission by id (delete and moves over HTTP), and one person's submissions (erase, export --email).
{
  const someId = (await sql.get<{ id: string }>("SELECT id FROM submissions ORDER BY seq LIMIT 1 OFFSET 12345"))!.id;
  const [, byId] = await time(() => repo.findSubmission(someId));
  const scans: number[] = [];
  for (let i = 0; i < 5; i++)
    scans.push((await time(() => repo.findSubmissionsByEmail(`user${100 + i}@example.com`, null)))[1]);
  const found = (await repo.findSubmissionsByEmail("user100@example.com", null)).length;
  report(
    `a submission by id ${ms(byId)}; one person's submissions (no email index: a full scan), ${found} found: median ${ms(median(scans))}`,
  );
}

// 3. Deleting, secure_delete off and on: one submission, one person's (erase, without its checkpoint), a retention backlog (10,000), a whole form.
{
  const lifecycle = services.lifecycle;
  // The erasure's own steps without its checkpoint (measured on its own below).
  const unshredded = createSubmissionLifecycle({
    repo,
    forms: services.forms,
    submissions: services.submissions,
    pipeline: submitPipeline(sql),
    audit: services.audit,
    clock: systemClock,
    shredder: { shred: async () => ({ vacuumed: false }) },
    confirmations: createConfirmationsRepo(sql),
    outbox: createOutboxRepo(sql),
    partials: createPartialsRepo(sql),
    afterDelete: services.files.removeUnattached,
    related: {},
  });
  const found = (await repo.findSubmissionsByEmail("user1000@example.com", null)).length;
  const one: Record<string, number[]> = { off: [], on: [] };
  const person: Record<string, number[]> = { off: [], on: [] };
  const ids = await sql.all<{ id: string; form_id: string }>(
    "SELECT id, form_id FROM submissions ORDER BY seq DESC LIMIT 400",
  );
  for (let i = 0; i < 10; i++) {
    for (const mode of ["off", "on"] as const) {
      await setSecureDelete(mode === "on");
      const { id, form_id } = ids.pop()!;
      one[mode]!.push((await time(() => lifecycle.deleteSubmission(OPERATOR, form_id, id)))[1]);
      const t0 = performance.now();
      await unshredded.eraseByEmail(OPERATOR, `user${1000 + i * 2 + (mode === "on" ? 1 : 0)}@example.com`, null);
      person[mode]!.push(performance.now() - t0);
    }
  }
  report(
    `delete one submission (a transaction with counters, rollups, outbox, audit): secure_delete off ${ms(median(one.off!))}, on ${ms(median(one.on!))}`,
  );
  report(
    `erase one person's ${found} submissions across ${FORMS} forms (scan, then a transaction per form; no checkpoint): off ${ms(median(person.off!))}, on ${ms(median(person.on!))}`,
  );

  const [, checkpoint] = await time(() => sql.get("PRAGMA wal_checkpoint(TRUNCATE)"));
  report(`wal_checkpoint(TRUNCATE) after those deletions: ${ms(checkpoint)}`);

  const retention: Record<string, number> = {};
  for (const [mode, formId] of [
    ["off", forms[1]!],
    ["on", forms[2]!],
  ] as const) {
    await setSecureDelete(mode === "on");
    const backlog = Math.min(10_000, ROWS / FORMS / 2);
    const cutoff = (await sql.get<{ created_at: string }>(
      "SELECT created_at FROM submissions WHERE form_id = ? ORDER BY created_at LIMIT 1 OFFSET ?",
      [formId, backlog],
    ))!.created_at;
    const days = Math.ceil((Date.now() - Date.parse(cutoff)) / 86_400_000);
    await services.forms.updateForm(OPERATOR, formId, { retentionDays: days });
    const t0 = performance.now();
    const deleted = await lifecycle.expireRetained();
    retention[mode] = performance.now() - t0;
    await services.forms.updateForm(OPERATOR, formId, { retentionDays: null });
    report(
      `retention: ${deleted} submissions in transactions of 500, secure_delete ${mode}: ${ms(retention[mode]!)} (${((retention[mode]! * 1000) / deleted).toFixed(0)} µs each)`,
    );
  }

  for (const [mode, formId] of [
    ["off", forms[3]!],
    ["on", forms[4]!],
  ] as const) {
    await setSecureDelete(mode === "on");
    const count = (await services.forms.requireForm(formId)).submissionCount;
    const [, cascade] = await time(() => services.forms.deleteForm(OPERATOR, formId));
    report(
      `delete a form of ${count.toLocaleString("en")} submissions in one cascading transaction (the event loop held throughout), secure_delete ${mode}: ${ms(cascade)}`,
    );
  }
  await setSecureDelete(true);
  {
    const formId = forms[6]!;
    const count = (await services.forms.requireForm(formId)).submissionCount;
    // How long the event loop is held at a stretch, seen from a timer that should fire every millisecond.
    let last = performance.now();
    let longest = 0;
    const probe = setInterval(() => {
      longest = Math.max(longest, performance.now() - last);
      last = performance.now();
    }, 1);
    const t0 = performance.now();
    await services.lifecycle.deleteForm(OPERATOR, formId);
    const total = performance.now() - t0;
    clearInterval(probe);
    report(
      `delete a form of ${count.toLocaleString("en")} submissions as DELETE /forms/{formId} does (500 per transaction through the delete writers), secure_delete on: ${ms(total)}, the event loop held at most ${ms(longest)} at a stretch`,
    );
  }
  await setSecureDelete(true);
  const wal = fileSize(`${DB}-wal`);
  const [, full] = await time(() => sql.get("PRAGMA wal_checkpoint(TRUNCATE)"));
  report(`wal_checkpoint(TRUNCATE) of a ${mib(wal)} WAL: ${ms(full)}`);
}

// 4. A whole erasure as the command line runs it (scan, delete, checkpoint), after a burst of submits left a WAL behind.
{
  const commit = submitPipeline(sql).commit;
  const form = await services.forms.requireForm(forms[5]!);
  for (let b = 0; b < 40; b++) {
    await commit(
      Array.from({ length: 50 }, (_, i) => {
        const meta = {
          browser: null,
          browserVersion: null,
          os: null,
          osVersion: null,
          device: "unknown" as const,
          country: "ZZ",
          language: null,
          referrer: null,
        };
        return {
          id: newId("sub"),
          form,
          status: "inbox",
          json: JSON.stringify({ email: `burst${b}-${i}@example.com`, _meta: meta }),
          meta,
          email: `burst${b}-${i}@example.com`,
          createdAt: isoTime(Date.now()),
          idempotency: null,
          stages: {},
        };
      }),
    );
  }
  const wal = fileSize(`${DB}-wal`);
  const t0 = performance.now();
  const result = await services.lifecycle.eraseByEmail(OPERATOR, "user4242@example.com", null);
  report(
    `formsvc submissions erase (scan, ${result.erased} deleted in ${result.forms.length} transactions, TRUNCATE checkpoint of a ${mib(wal)} WAL): ${ms(performance.now() - t0)}`,
  );
}

// 5. VACUUM: the whole file rewritten (what a legacy database's first erasure does once).
{
  const before = fileSize(DB);
  const [, vacuum] = await time(() => sql.run("VACUUM"));
  const [, checkpoint] = await time(() => sql.get("PRAGMA wal_checkpoint(TRUNCATE)"));
  report(
    `VACUUM of a ${mib(before)} database: ${ms(vacuum)} (+ checkpoint ${ms(checkpoint)}), ${mib(fileSize(DB))} after`,
  );
}
await store.close();

console.log(lines.join("\n"));
