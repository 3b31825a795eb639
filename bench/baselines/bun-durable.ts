// Baseline (d): the durable-write limit for our submit. Parse a JSON POST, check its shape, and answer
// only after the row is committed: the same group commit as formsvc (one transaction per event-loop
// turn, WAL, synchronous=FULL, so one fsync per batch), the same row as baseline (c), nothing else.
import { Database } from "bun:sqlite";
import { groupCommit } from "../../src/db/group-commit";

const [port, file] = [Number(process.argv[2]), process.argv[3]!];
const db = new Database(file, { create: true, strict: true });
db.run("PRAGMA journal_mode = WAL");
db.run("PRAGMA synchronous = FULL");
db.run(
  "CREATE TABLE IF NOT EXISTS submissions (id TEXT PRIMARY KEY, form_id TEXT NOT NULL, data TEXT NOT NULL, created_at TEXT NOT NULL)",
);
const insert = db.prepare("INSERT INTO submissions (id, form_id, data, created_at) VALUES (?, ?, ?, ?)");
type Row = [string, string, string, string];
const insertAll = db.transaction((rows: Row[]) => rows.forEach((r) => insert.run(...r)));
const writes = groupCommit<Row>(async (rows) => {
  insertAll(rows);
  return rows.map(() => null);
});

Bun.serve({
  port,
  hostname: "127.0.0.1",
  async fetch(req) {
    const body = (await req.json().catch(() => ({}))) as { formId?: unknown; data?: unknown };
    if (typeof body.formId !== "string" || typeof body.data !== "object" || body.data === null)
      return Response.json({ error: "bad" }, { status: 400 });
    const id = crypto.randomUUID();
    await writes.write([id, body.formId, JSON.stringify(body.data), new Date().toISOString()]);
    return Response.json({ success: true, submissionId: id });
  },
});
console.log(`listening on ${port}`);
// An orderly exit, so that a profile taken with `--cpu-prof-md` is written (profile-submit.ts durable).
process.on("SIGTERM", () => process.exit(0));
