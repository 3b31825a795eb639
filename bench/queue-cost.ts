// `bun bench/queue-cost.ts [batches]`: what each writer of the submit pipeline costs per submission,
// inside the batch's transaction, for a form with one standard webhook and an autoresponse (every
// submission from a new address, so every one queues both). The SQL alone: synchronous=OFF takes
// the fsync out, which the batch shares whatever it holds. Batches of 64, medians.
import { join } from "node:path";
import { OPERATOR } from "../src/lib/principal";
import { loadConfig } from "../src/config";
import { openStore } from "../src/db/store";
import { isoTime, systemClock } from "../src/lib/clock";
import { newId } from "../src/lib/ids";
import { silentLogger } from "../src/lib/log";
import type { SubmissionMeta } from "../src/modules/submissions/meta";
import type { NewSubmission } from "../src/modules/submissions/model";
import { createServices, submitStages } from "../src/services";
import { tempDir } from "../test/helpers/harness";

const BATCHES = Number(process.argv[2] ?? 400);
const BATCH = 64;
const { dir, cleanup } = tempDir();
const db = join(dir, "queue-cost.db");
const store = await openStore(db);
// SQLite's own setting, through the store's statements: this bench measures the SQL, not the fsync.
await store.sql.run("PRAGMA synchronous = OFF");
const services = await createServices({
  store,
  clock: systemClock,
  config: loadConfig({}, { db, logLevel: "silent" }),
  log: silentLogger,
});
const form = await services.forms.createForm(OPERATOR, {
  owner: "bench@example.com",
  name: "Outbound",
  formType: "contact",
  emailEnabled: true,
  developerNotifications: true,
  autoresponse: { subject: "Thanks", text: "We got it, {{email}}." },
});
await store.sql.run(
  "INSERT INTO webhooks (id, form_id, url, format, secret, enabled, created_at) VALUES (?, ?, 'http://127.0.0.1:9/hook', 'standard', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 1, ?)",
  [newId("whk"), form.id, isoTime(Date.now())],
);

const stages = submitStages(store.sql);
const writers: [string, (batch: NewSubmission[]) => Promise<unknown>][] = [
  ["the batch's forms as committed (lookup)", stages.lookup],
  ["rows (submission, idempotency)", stages.rows[0]!],
  ["rollups", stages.tallies[0]!.count],
  ["counters", stages.tallies[1]!.count],
  ["owner notification (1 row)", stages.queues[0]!],
  ["autoresponse (throttle + row)", stages.queues[1]!],
  ["confirmation (not a waitlist)", stages.queues[2]!],
  ["webhook delivery (1 row)", stages.queues[3]!],
];
const meta: SubmissionMeta = {
  browser: "Chrome",
  browserVersion: "120.0",
  os: "Windows",
  osVersion: "10",
  device: "desktop",
  country: "US",
  language: "en",
  referrer: null,
};
const times = new Map<string, number[]>();
let n = 0;
for (let b = 0; b < BATCHES; b++) {
  const batch: NewSubmission[] = Array.from({ length: BATCH }, () => {
    const fields = { email: `user${n++}@example.com`, message: "Hello there", rating: 5 };
    return {
      id: newId("sub"),
      form,
      status: "inbox",
      json: JSON.stringify({ ...fields, _meta: meta }),
      meta,
      email: fields.email,
      createdAt: isoTime(Date.now()),
      idempotency: null,
      stages: {},
    };
  });
  await store.sql.transaction(async () => {
    for (const [name, write] of writers) {
      const t0 = performance.now();
      await write(batch);
      const list = times.get(name) ?? times.set(name, []).get(name)!;
      list.push(((performance.now() - t0) / BATCH) * 1000);
    }
  });
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
console.log(`| writer | µs per submission |\n|---|---|`);
for (const [name, xs] of times) console.log(`| ${name} | ${median(xs).toFixed(2)} |`);
await store.close();
cleanup();
