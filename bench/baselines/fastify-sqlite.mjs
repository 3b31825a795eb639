// Baseline (c): what a user would write instead — Node + fastify + better-sqlite3, one durable insert per request.
import Database from "better-sqlite3";
import Fastify from "fastify";
import { randomUUID } from "node:crypto";

const [port, file] = [Number(process.argv[2]), process.argv[3]];
const db = new Database(file);
db.pragma("journal_mode = WAL");
db.pragma("synchronous = FULL");
db.exec(
  "CREATE TABLE IF NOT EXISTS submissions (id TEXT PRIMARY KEY, form_id TEXT NOT NULL, data TEXT NOT NULL, created_at TEXT NOT NULL)",
);
const insert = db.prepare("INSERT INTO submissions (id, form_id, data, created_at) VALUES (?, ?, ?, ?)");
const app = Fastify();
app.post("/submit", async (req, reply) => {
  const { formId, data } = req.body ?? {};
  if (typeof formId !== "string" || typeof data !== "object" || data === null)
    return reply.code(400).send({ error: "bad" });
  const id = randomUUID();
  insert.run(id, formId, JSON.stringify(data), new Date().toISOString());
  return { success: true, submissionId: id };
});
await app.listen({ port, host: "127.0.0.1" });
console.log(`listening on ${port}`);
