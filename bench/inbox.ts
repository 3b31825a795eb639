// `npx bun bench/inbox.ts [N] [--quick]`: the inbox's pages at N submissions of one form (default
// 1,000,000; --quick: 100,000), issue 40: the forms list and Get Form with their unread counts, and
// the first page of each view the dashboard's inbox opens (all, "to do" = new and open, one state, a
// tag, an assignee), over HTTP from a real server on loopback, one request at a time, none from the
// server's answer cache; p50/p99 wall.
// The form is one a team has worked to zero: all but the newest 40 are done (a tenth archived), 25
// are still open, spread over the year, one in 1,000 carries a tag and one in 500 is assigned. The
// seeded database is kept in bench/.work and reused. Results: bench/RESULTS.md, "Issue 40 (inbox)".
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../src/config";
import { openStore } from "../src/db/store";
import { systemClock } from "../src/lib/clock";
import { silentLogger } from "../src/lib/log";
import { OPERATOR } from "../src/lib/principal";
import { createServices } from "../src/services";
import { BUN, freePort, killAll, log, startServer, WORK } from "./harness";
import { seedSubmissions } from "./seed";

const QUICK = process.argv.includes("--quick");
const ROWS = Number(process.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? (QUICK ? 100_000 : 1_000_000));
const DB = join(WORK, `inbox-${ROWS}.db`);
const META = `${DB}.json`;
const OWNER = "bench@example.com";
const ASKS = 100;

mkdirSync(WORK, { recursive: true });
if (!existsSync(META)) {
  for (const x of ["", "-wal", "-shm"]) rmSync(DB + x, { force: true });
  const store = await openStore(DB);
  const services = await createServices({
    store,
    clock: systemClock,
    config: loadConfig({}, { db: DB, logLevel: "silent" }),
    log: silentLogger,
  });
  const key = (await services.keys.createKey(OPERATOR, { owner: OWNER, name: "bench" })).key;
  const form = await services.forms.createForm(OPERATOR, { owner: OWNER, name: "Contact", formType: "contact" });
  await seedSubmissions(store.sql, form, ROWS, { label: `seeding ${ROWS} submissions` });
  // The team's work, as the triage routes would have left it (their counters included).
  const sql = store.sql;
  await sql.run(
    `UPDATE submissions SET state = CASE WHEN seq % 10 = 0 THEN 'archived' WHEN seq % 40000 = 7 THEN 'open' ELSE 'done' END WHERE form_id = ? AND seq <= ?`,
    [form.id, ROWS - 40],
  );
  await sql.run("UPDATE submissions SET assignee = ? WHERE form_id = ? AND seq % 500 = 3", [form.ownerId, form.id]);
  await sql.run(
    "INSERT INTO submission_tags (submission_id, tag, form_id, created_at) SELECT id, 'vip', form_id, created_at FROM submissions WHERE form_id = ? AND seq % 1000 = 5",
    [form.id],
  );
  await sql.run(
    "UPDATE forms SET unread_count = (SELECT count(*) FROM submissions WHERE form_id = forms.id AND status = 'inbox' AND state = 'new') WHERE id = ?",
    [form.id],
  );
  await sql.run("ANALYZE");
  await store.close();
  writeFileSync(META, JSON.stringify({ key, formId: form.id }));
}

const { key, formId } = JSON.parse(readFileSync(META, "utf8")) as { key: string; formId: string };
const port = await freePort();
const server = await startServer([BUN, "src/main.ts", "serve", "--port", String(port)], port, {
  FORMSVC_DB: DB,
  FORMSVC_RATE_LIMIT: "1000000000",
  FORMSVC_LOG_LEVEL: "error",
});
const quantile = (xs: number[], q: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;
const pages: [string, string][] = [
  ["forms list (unread counts)", "/forms/list"],
  ["Get Form (unread)", `/forms/${formId}`],
  ["first page, all states", `/forms/${formId}/submissions`],
  ['first page, "to do" (new, open)', `/forms/${formId}/submissions?state=new,open`],
  ["first page, open (25 in the year)", `/forms/${formId}/submissions?state=open`],
  ["first page, done", `/forms/${formId}/submissions?state=done`],
  ["first page, tag (1 in 1,000)", `/forms/${formId}/submissions?tag=vip`],
  ["first page, assignee (1 in 500)", `/forms/${formId}/submissions?assignee=${OWNER}`],
  ['first page, "to do" with the tag', `/forms/${formId}/submissions?state=new,open&tag=vip`],
];
// Each page is asked after a change to the form's submissions (a tag on and off an old one), as a
// dashboard would after someone's work: so each answer is rendered, none served from the answer cache.
const api = (path: string, init: RequestInit = {}) =>
  fetch(`http://127.0.0.1:${port}/api/v1${path}`, {
    ...init,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
  });
const oldest = (
  (await (await api(`/forms/${formId}/submissions?state=done&limit=1`)).json()) as {
    submissions: { id: string }[];
  }
).submissions[0]!.id;
let toggled = false;
const touch = async () => {
  toggled = !toggled;
  const res = await api(`/forms/${formId}/submissions/${oldest}`, {
    method: "PATCH",
    body: JSON.stringify({ tags: toggled ? ["bench"] : [] }),
  });
  if (!res.ok) throw new Error(`PATCH: ${res.status} ${await res.text()}`);
};
try {
  const rows: string[] = [];
  for (const [label, path] of pages) {
    const url = `http://127.0.0.1:${port}/api/v1${path}`;
    const ask = async () => {
      await touch();
      const t0 = performance.now();
      const res = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
      const body = (await res.json()) as { submissions?: unknown[] };
      if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(body)}`);
      return { ms: performance.now() - t0, n: body.submissions?.length };
    };
    for (let i = 0; i < 5; i++) await ask();
    const times: number[] = [];
    let n: number | undefined;
    for (let i = 0; i < ASKS; i++) ({ n } = await ask().then((a) => (times.push(a.ms), a)));
    rows.push(
      `| ${label} | ${n ?? "-"} | ${quantile(times, 0.5).toFixed(2)} | ${quantile(times, 0.99).toFixed(2)} | ≤ 50 ${quantile(times, 0.99) <= 50 ? "✓" : "✗"} |`,
    );
    log(rows[rows.length - 1]!);
  }
  console.log(`\nInbox pages, one form of ${ROWS.toLocaleString("en")} submissions, ${ASKS} requests each over HTTP\n`);
  console.log("| page | rows | p50 ms | p99 ms | issue |\n|---|---|---|---|---|");
  console.log(rows.join("\n"));
} finally {
  server.kill();
  killAll();
}
