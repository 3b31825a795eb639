// `npx bun bench/search.ts [N] [--quick]`: full-text search at N submissions on SQLite (default
// 1,000,000; --quick: 100,000), issue 40: realistic bodies (a name from a list with accented ones, a
// subject, a message of 20–60 words drawn from a vocabulary of 5,000 by Zipf's law) over 10 forms of
// one team; 200 mixed searches (word queries; prefix and phrase queries with a form and a date
// filter), p50/p99 wall and CPU per search; commits with and without the index's writer, in turns,
// on copies of the same database; the database's size with and without the index. The seeded
// database is kept in bench/.work and reused. Results: bench/RESULTS.md, "Issue 40 (search)".
import { Database } from "bun:sqlite";
import { copyFileSync, existsSync, mkdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../src/config";
import { openStore } from "../src/db/store";
import { isoTime, systemClock } from "../src/lib/clock";
import { newId } from "../src/lib/ids";
import { silentLogger } from "../src/lib/log";
import { OPERATOR, ownerPrincipal } from "../src/lib/principal";
import type { Form } from "../src/modules/forms/model";
import type { SubmissionMeta } from "../src/modules/submissions/meta";
import type { NewSubmission } from "../src/modules/submissions/model";
import { createSubmitPipeline } from "../src/modules/submissions/pipeline";
import { createServices, submitStages } from "../src/services";
import { testPostgres } from "../test/helpers/postgres";

const QUICK = process.argv.includes("--quick");
// `--postgres`: on a fresh database of a private PostgreSQL cluster (test/helpers/postgres.ts): the
// seeding, the searches and the index's size. `--searches`: the searches alone (on the kept
// SQLite database), without the commits and the sizes.
const POSTGRES = process.argv.includes("--postgres");
const SEARCHES_ONLY = process.argv.includes("--searches") || POSTGRES;
const ROWS = Number(process.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? (QUICK ? 100_000 : 1_000_000));
const FORMS = 10;
const WORK = join(import.meta.dir, ".work");
const SEEDED = join(WORK, `search-${ROWS}.db`);
const log = (s: string) => process.stderr.write(`${s}\n`);
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
const size = (f: string) => ["", "-wal"].reduce((n, x) => n + (existsSync(f + x) ? statSync(f + x).size : 0), 0);
const fresh = (f: string) => ["", "-wal", "-shm"].forEach((x) => rmSync(f + x, { force: true }));
const quantile = (xs: number[], q: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;

// A deterministic generator, so every run searches the same database for the same things.
let state = 40;
const random = () => {
  state = (state * 1103515245 + 12345) % 2 ** 31;
  return state / 2 ** 31;
};
const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)]!;

const SYLLABLES = [
  "ka",
  "lo",
  "mer",
  "tin",
  "sa",
  "ve",
  "ron",
  "di",
  "pel",
  "qua",
  "bri",
  "sto",
  "nu",
  "fel",
  "gar",
  "zi",
  "ham",
  "or",
  "ex",
  "lu",
];
const VOCABULARY = Array.from({ length: 5_000 }, (_, i) => {
  let w = "";
  for (let n = i + 1; n > 0; n = Math.floor(n / SYLLABLES.length)) w += SYLLABLES[n % SYLLABLES.length];
  return w;
});
// Zipf's law: the word of rank r is drawn with probability ∝ 1/r.
const HARMONIC = VOCABULARY.map((_, i) => 1 / (i + 1));
const CUMULATIVE = HARMONIC.map(
  (
    (sum) => (h: number) =>
      (sum += h)
  )(0),
);
const TOTAL = CUMULATIVE[CUMULATIVE.length - 1]!;
const zipfWord = () => {
  const x = random() * TOTAL;
  let lo = 0;
  let hi = CUMULATIVE.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (CUMULATIVE[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return VOCABULARY[lo]!;
};
const FIRST = [
  "Hans",
  "Anna",
  "José",
  "Zoë",
  "Łukasz",
  "Søren",
  "François",
  "Ingrid",
  "Mehmet",
  "Aiko",
  "Liam",
  "Olivia",
  "Noah",
  "Emma",
  "Mateo",
  "Chloé",
  "Jürgen",
  "Agnès",
  "Björn",
  "Inés",
];
const LAST = [
  "Müller",
  "Schmidt",
  "Núñez",
  "Dvořák",
  "Sørensen",
  "Groß",
  "Lefèvre",
  "Yılmaz",
  "Smith",
  "Brown",
  "García",
  "Nakamura",
  "Öztürk",
  "Kowalski",
  "Rossi",
  "Ångström",
  "Jensen",
  "Weiß",
  "Martín",
  "Dubois",
];
const words = (n: number) => Array.from({ length: n }, zipfWord).join(" ");

const META: SubmissionMeta = {
  browser: "Firefox",
  browserVersion: "120.0",
  os: "Linux",
  osVersion: null,
  device: "desktop",
  country: "DE",
  language: "de",
  referrer: null,
};
const END = Date.parse("2026-11-01T00:00:00Z");
const DAYS = 365;

function submission(form: Form, i: number, total: number): NewSubmission {
  const name = `${pick(FIRST)} ${pick(LAST)}`;
  const email = `${name.split(" ")[0]!.toLowerCase()}.${i}@example.com`;
  const data = {
    name,
    email,
    subject: words(3 + Math.floor(random() * 4)),
    message: words(20 + Math.floor(random() * 41)),
  };
  return {
    id: newId("sub"),
    form,
    status: "inbox",
    json: JSON.stringify({ ...data, _meta: META }),
    meta: META,
    email,
    createdAt: isoTime(END - DAYS * 86_400_000 + (i * DAYS * 86_400_000) / total),
    idempotency: null,
    stages: {},
  };
}

mkdirSync(WORK, { recursive: true });
const open = async (db: string) => {
  const store = await openStore(db);
  const services = await createServices({
    store,
    clock: systemClock,
    config: loadConfig({}, { db, logLevel: "silent" }),
    log: silentLogger,
  });
  return { store, services };
};

const TARGET = POSTGRES ? await (await testPostgres()).newDatabase() : SEEDED;
if (POSTGRES || !existsSync(`${SEEDED}.done`)) {
  if (!POSTGRES) fresh(SEEDED);
  const { store, services } = await open(TARGET);
  const forms: Form[] = [];
  for (let i = 0; i < FORMS; i++)
    forms.push(await services.forms.createForm(OPERATOR, { owner: "bench@example.com", name: `Form ${i}` }));
  const commit = createSubmitPipeline(store.sql, { checks: [], hooks: [], ...submitStages(store.sql) }).commit;
  const started = performance.now();
  for (let i = 0; i < ROWS;) {
    const batch: NewSubmission[] = [];
    for (const stop = Math.min(ROWS, i + 10_000); i < stop; i++) batch.push(submission(forms[i % FORMS]!, i, ROWS));
    const failed = (await commit(batch)).find((o) => o !== null);
    if (failed) throw failed;
    await services.search.indexPending();
    process.stderr.write(`\rseeding: ${i}/${ROWS} (${Math.round((performance.now() - started) / 1000)} s)`);
  }
  log("");
  // As autovacuum would after such a load: the planner's statistics of the lexemes.
  if (POSTGRES) await store.sql.run("ANALYZE");
  await store.close();
  if (!POSTGRES) await Bun.write(`${SEEDED}.done`, "");
}

// Searches, on the seeded database as a key of its team would ask them.
{
  const { store, services } = await open(TARGET);
  const forms = (await services.forms.listAllForms(OPERATOR)).map((f) => f);
  const team = forms[0]!.teamId;
  const caller = { ...ownerPrincipal(forms[0]!.ownerId, team), right: "submissions.read" as const };
  const messages: string[] = [];
  for (let i = 0; i < 50; i++)
    messages.push(
      (await store.sql.get<{ data: string }>("SELECT data FROM submissions WHERE seq = ?", [
        1 + Math.floor(random() * ROWS),
      ]))!.data,
    );
  const someMessage = () => messages.pop()!;
  const sixMonthsAgo = new Date(END - 182 * 86_400_000).toISOString().slice(0, 10);
  const wordQueries = [
    ...Array.from({ length: 40 }, () => VOCABULARY[Math.floor(random() * 200)]!),
    ...Array.from({ length: 30 }, () => VOCABULARY[1000 + Math.floor(random() * 4000)]!),
    ...Array.from(
      { length: 20 },
      () => `${VOCABULARY[Math.floor(random() * 100)]} ${VOCABULARY[100 + Math.floor(random() * 900)]}`,
    ),
    ...Array.from({ length: 10 }, () =>
      pick(["muller", "nunez", "dvorak", "sorensen", "gross", "zoe", "lukasz", "francois"]),
    ),
  ].map((q) => ({ q }));
  const filtered = [
    ...Array.from({ length: 50 }, () => {
      const w = VOCABULARY[20 + Math.floor(random() * 2000)]!;
      return { q: `${w.slice(0, 3 + Math.floor(random() * 2))}*`, formId: pick(forms).id, from: sixMonthsAgo };
    }),
    ...Array.from({ length: 50 }, () => {
      const message = (JSON.parse(someMessage()) as { message: string }).message.split(" ");
      const at = Math.floor(random() * (message.length - 1));
      return { q: `"${message[at]} ${message[at + 1]}"`, formId: pick(forms).id, from: sixMonthsAgo };
    }),
  ];
  const run = async (queries: { q: string; formId?: string; from?: string }[]) => {
    const wall: number[] = [];
    const cpu: number[] = [];
    let hits = 0;
    for (const query of queries) {
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      const page = await services.search.searchJson(caller, { ...query, limit: 50 });
      wall.push(performance.now() - t0);
      const c = process.cpuUsage(c0);
      cpu.push((c.user + c.system) / 1000);
      hits += (JSON.parse(page) as { submissions: unknown[] }).submissions.length;
    }
    return { wall, cpu, hits };
  };
  // Warm: the first searches read the index's pages from disk.
  await run([...wordQueries.slice(0, 20), ...filtered.slice(0, 20)]);
  // Mixed: the two kinds in turns.
  const mixed = wordQueries.flatMap((w, i) => [w, filtered[i]!]);
  const all = await run(mixed);
  const of = (keep: (i: number) => boolean) => ({
    wall: all.wall.filter((_, i) => keep(i)),
    cpu: all.cpu.filter((_, i) => keep(i)),
  });
  const line = (label: string, r: { wall: number[]; cpu: number[] }) =>
    `| ${label} | ${r.wall.length} | ${quantile(r.wall, 0.5).toFixed(1)} | ${quantile(r.wall, 0.99).toFixed(1)} | ${quantile(r.cpu, 0.5).toFixed(1)} | ${quantile(r.cpu, 0.99).toFixed(1)} |`;
  console.log(
    `\n### ${ROWS.toLocaleString("en")} submissions, 200 mixed searches (50 a page; ${all.hits} hits in all)\n`,
  );
  console.log("| queries | n | p50 ms | p99 ms | CPU p50 ms | CPU p99 ms |");
  console.log("|---|---|---|---|---|---|");
  console.log(
    line(
      "words (1–2 words, names)",
      of((i) => i % 2 === 0),
    ),
  );
  console.log(
    line(
      "prefix and phrase, with formId and from",
      of((i) => i % 2 === 1),
    ),
  );
  console.log(
    line(
      "of which prefix (`abc*`)",
      of((i) => i % 2 === 1 && i < 100),
    ),
  );
  console.log(
    line(
      'of which phrase (`"a b"`)',
      of((i) => i % 2 === 1 && i >= 100),
    ),
  );
  if (POSTGRES) {
    const size = await store.sql.get<{ index: number; data: number; submissions: number }>(
      `SELECT CAST(pg_total_relation_size('submission_search') AS INTEGER) AS index,
              CAST((SELECT sum(octet_length(data)) FROM submissions) AS INTEGER) AS data,
              CAST(pg_total_relation_size('submissions') AS INTEGER) AS submissions`,
    );
    console.log(`\n### Size on PostgreSQL\n`);
    console.log("| | bytes |");
    console.log("|---|---|");
    console.log(`| the index (submission_search, with its GIN index) | ${mib(size!.index)} |`);
    console.log(`| submissions' data (sum of \`data\`) | ${mib(size!.data)} |`);
    console.log(`| the submissions table with its indexes and TOAST | ${mib(size!.submissions)} |`);
    console.log(`\nindex ÷ submissions' data: ${(size!.index / size!.data).toFixed(2)}`);
  }
  await store.close();
}

// Commits with and without the index, in turns, each on its own copy of the seeded database: with it,
// the indexer takes the new submissions in every 2,048 of them, as the server's would every 200 ms at
// 10,000 a second; without it, neither the indexer nor the submit pipeline's writer (indexNew) runs.
if (!SEARCHES_ONLY) {
  const SUBMITS = QUICK ? 5_000 : 20_000;
  const BATCH = 64;
  const ROUNDS = 3;
  const results: Record<string, { perSecond: number[]; cpuUs: number[] }> = {
    "with index": { perSecond: [], cpuUs: [] },
    "without index": { perSecond: [], cpuUs: [] },
  };
  for (const label of Object.keys(results)) {
    const db = join(WORK, `search-${label.replace(" ", "-")}.db`);
    fresh(db);
    copyFileSync(SEEDED, db);
  }
  for (let round = 0; round < ROUNDS; round++)
    for (const [label, r] of Object.entries(results)) {
      const db = join(WORK, `search-${label.replace(" ", "-")}.db`);
      const { store, services } = await open(db);
      const stages = submitStages(store.sql);
      const indexing = label === "with index";
      const rows = indexing ? stages.rows : stages.rows.filter((w) => w.name !== "indexNew");
      if (rows.length === stages.rows.length && !indexing) throw new Error("the index's writer was not found");
      const commit = createSubmitPipeline(store.sql, { checks: [], hooks: [], ...stages, rows }).commit;
      const forms = await services.forms.listAllForms(OPERATOR);
      const batches: NewSubmission[][] = [];
      for (let i = 0; i < SUBMITS; i += BATCH)
        batches.push(
          Array.from({ length: BATCH }, (_, j) => submission(forms[(i + j) % FORMS]!, ROWS + i + j, ROWS + SUBMITS)),
        );
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      for (const [i, batch] of batches.entries()) {
        const failed = (await commit(batch)).find((o) => o !== null);
        if (failed) throw failed;
        if (indexing && ((i + 1) % 32 === 0 || i === batches.length - 1)) await services.search.indexPending();
      }
      const seconds = (performance.now() - t0) / 1000;
      const c = process.cpuUsage(c0);
      r.perSecond.push(SUBMITS / seconds);
      r.cpuUs.push((c.user + c.system) / SUBMITS);
      await store.close();
    }
  const base = quantile(results["without index"]!.perSecond, 0.5);
  const baseCpu = quantile(results["without index"]!.cpuUs, 0.5);
  console.log(
    `\n### Commits of ${SUBMITS.toLocaleString("en")} submissions in batches of ${BATCH}, ${ROUNDS} rounds in turns, medians\n`,
  );
  console.log("| writers | submissions/s [rounds] | CPU µs/submission [rounds] | ratio (req/s) | ratio (CPU) |");
  console.log("|---|---|---|---|---|");
  for (const [label, r] of Object.entries(results)) {
    const ps = quantile(r.perSecond, 0.5);
    const cpu = quantile(r.cpuUs, 0.5);
    console.log(
      `| ${label} | ${Math.round(ps).toLocaleString("en")} [${r.perSecond.map((x) => Math.round(x)).join(" ")}] | ${cpu.toFixed(1)} [${r.cpuUs.map((x) => x.toFixed(1)).join(" ")}] | ${(ps / base).toFixed(2)} | ${(cpu / baseCpu).toFixed(2)} |`,
    );
  }
  for (const label of Object.keys(results)) fresh(join(WORK, `search-${label.replace(" ", "-")}.db`));
}

// The database's size with and without the index, each copy VACUUMed (free pages left out).
if (!SEARCHES_ONLY) {
  const withIndex = join(WORK, "search-size-with.db");
  const without = join(WORK, "search-size-without.db");
  for (const f of [withIndex, without]) {
    fresh(f);
    copyFileSync(SEEDED, f);
  }
  const vacuum = (f: string, drop: boolean) => {
    const db = new Database(f);
    if (drop) {
      db.run("DROP TRIGGER submissions_unsearched");
      db.run("DROP TABLE submission_search");
    }
    db.run("VACUUM");
    const stat = (() => {
      try {
        return db
          .query<{ name: string; bytes: number }, []>(
            "SELECT name, sum(pgsize) AS bytes FROM dbstat WHERE name LIKE 'submission%' GROUP BY name ORDER BY name",
          )
          .all();
      } catch {
        return [];
      }
    })();
    const data = db.query<{ n: number }, []>("SELECT sum(length(CAST(data AS BLOB))) AS n FROM submissions").get()!.n;
    db.close();
    return { bytes: size(f), stat, data };
  };
  const a = vacuum(withIndex, false);
  const b = vacuum(without, true);
  const submissionsTable = b.stat
    .filter((s) => s.name === "submissions" || s.name.startsWith("submissions_by"))
    .reduce((n, s) => n + s.bytes, 0);
  console.log(`\n### Size (VACUUMed copies)\n`);
  console.log("| | bytes |");
  console.log("|---|---|");
  console.log(`| database with the index | ${mib(a.bytes)} |`);
  console.log(`| database without it | ${mib(b.bytes)} |`);
  console.log(`| the index (the difference) | ${mib(a.bytes - b.bytes)} |`);
  console.log(`| submissions' data (sum of \`data\`) | ${mib(a.data)} |`);
  if (submissionsTable) console.log(`| the submissions table and its indexes (dbstat) | ${mib(submissionsTable)} |`);
  for (const s of a.stat.filter((s) => s.name.startsWith("submission_search")))
    console.log(`| ${s.name} | ${mib(s.bytes)} |`);
  console.log(`\nindex ÷ submissions' data: ${((a.bytes - b.bytes) / a.data).toFixed(2)}`);
  for (const f of [withIndex, without]) fresh(f);
}
