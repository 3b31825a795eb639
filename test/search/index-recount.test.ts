import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { OPERATOR } from "../../src/lib/principal";
import { personalTeamId } from "../../src/lib/rights";
import { onPostgres } from "../helpers/engine";
import { useServer } from "../helpers/fixture";
import { seedForm, storedData } from "../helpers/harness";
import { newId } from "../../src/lib/ids";
import type { Form } from "../../src/modules/forms/model";
import type { NewSubmission } from "../../src/modules/submissions/model";
import { createSearchRepo } from "../../src/modules/search/repo";
import { formToken } from "../../src/lib/search-text";
import { submitPipeline } from "../../src/services";

// The index holds exactly the submissions stored, whatever took some away: a recount after each way.
const server = useServer({ config: { rateLimit: 100_000 } });
const a = server.seed("a@example.com");
const b = server.seed("b@example.com");

/**
 * The seqs the index holds, and those of the submissions it should: every one on PostgreSQL, those
 * up to `indexed_to` on SQLite (the later ones wait for the indexer, and a search reads them apart).
 */
async function recount() {
  const indexed = await server.query(
    onPostgres
      ? "SELECT seq FROM submission_search ORDER BY seq"
      : "SELECT rowid AS seq FROM submission_search ORDER BY rowid",
  );
  const stored = await server.query(
    onPostgres
      ? "SELECT seq FROM submissions ORDER BY seq"
      : "SELECT seq FROM submissions WHERE seq <= (SELECT indexed_to FROM search_backlog) ORDER BY seq",
  );
  return { indexed: indexed.map((r) => r.seq), stored: stored.map((r) => r.seq) };
}

/** The index is exact now, and again once the indexer has taken in what waited for it. */
const expectExact = async () => {
  for (const indexer of [false, true]) {
    if (indexer) await server.services.search.indexPending();
    const { indexed, stored } = await recount();
    expect({ indexer, indexed }).toEqual({ indexer, indexed: stored });
  }
};

/** The ids the operator's search finds for `q`, inbox and spam. */
async function found(q: string): Promise<string[]> {
  const ids: string[] = [];
  for (const spam of [false, true]) {
    const body = JSON.parse(await server.services.search.searchJson(OPERATOR, { q, spam, limit: 100 }));
    ids.push(...body.submissions.map((s: { id: string }) => s.id));
  }
  return ids.sort();
}

const submit = async (key: string, formId: string, data: Record<string, unknown>) => {
  const res = await server.submit(key, formId, data);
  expect(res.status).toBe(200);
  return res.body.submissionId as string;
};

/** A submission of `form` for the pipeline's writers (committed without the server's hooks), `i` ms after the first. */
const rowOf = (form: Form, data: Record<string, unknown>, i: number): NewSubmission => ({
  id: newId("sub"),
  form,
  status: "inbox",
  json: storedData(data),
  meta: JSON.parse(storedData({}))._meta,
  email: null,
  createdAt: new Date(Date.now() - 10_000 + i).toISOString(),
  idempotency: null,
  stages: {},
});

describe("the index beside the submissions", () => {
  test("follows submits, deletions, erasure, retention, spam marks, form moves and form deletions, at once", async () => {
    const second = (await seedForm(server, "a@example.com", { name: "Second" })).id;
    const kept = await submit(a.key, a.formId, { name: "Kept", message: "alpha common" });
    const deleted = await submit(a.key, a.formId, { name: "Deleted", message: "bravo common" });
    const erased = await submit(a.key, a.formId, {
      email: "erase.me@example.com",
      message: "charlie common zqxjvbkerasedword",
    });
    const aged = await submit(a.key, second, { name: "Aged", message: "delta common" });
    const moved = await submit(a.key, second, { name: "Moved", message: "echo common" });
    await expectExact();
    expect(await found("common")).toEqual([kept, deleted, erased, aged, moved].sort());

    expect((await server.send("DELETE", `/forms/${a.formId}/submissions/${deleted}`, a.key)).status).toBe(200);
    await expectExact();
    expect(await found("bravo")).toEqual([]);

    expect((await server.send("POST", `/forms/${a.formId}/submissions/${kept}/spam`, a.key)).status).toBe(200);
    await expectExact();
    expect(await found("alpha")).toEqual([kept]);

    const erasure = await server.services.lifecycle.eraseByEmail(OPERATOR, "erase.me@example.com", null);
    expect(erasure.erased).toBe(1);
    await expectExact();
    expect(await found("charlie")).toEqual([]);
    // Nor are its words left in the index's files (FTS5 marks a deletion until its segments are merged).
    if (!onPostgres)
      for (const file of [server.db, `${server.db}-wal`])
        if (existsSync(file)) expect(readFileSync(file).toString("latin1")).not.toContain("vbkerasedword");

    await server.exec(
      "UPDATE submissions SET created_at = ? WHERE id = ?",
      new Date(Date.now() - 40 * 86_400_000).toISOString(),
      aged,
    );
    expect((await server.send("PATCH", `/forms/${second}`, a.key, { retentionDays: 30 })).status).toBe(200);
    expect(await server.services.lifecycle.expireRetained()).toBe(1);
    await expectExact();
    expect(await found("delta")).toEqual([]);

    // Moved to another team: found by that team's key, no longer by the one it left.
    await server.services.teams.moveForm(OPERATOR, second, personalTeamId(b.ownerId));
    await expectExact();
    const byKey = async (key: string) =>
      (await server.send("GET", "/submissions/search?q=echo", key)).body.submissions.map((s: { id: string }) => s.id);
    expect(await byKey(a.key)).toEqual([]);
    expect(await byKey(b.key)).toEqual([moved]);

    await server.services.lifecycle.deleteForm(OPERATOR, a.formId);
    await expectExact();
    expect(await found("common")).toEqual([moved]);
    const { indexed } = await recount();
    expect(indexed.length).toBe(1);
    expect((await server.query("SELECT count(*) AS n FROM submissions"))[0].n).toBe(1);
  });

  test("a submission stored after the newest ones were deleted is indexed and found (SQLite hands out their seqs again)", async () => {
    const form = (await seedForm(server, "a@example.com", { name: "Third" })).id;
    const older = await submit(a.key, form, { message: "kilo older" });
    const newest = await submit(a.key, form, { message: "kilo newest" });
    await server.services.search.indexPending();
    expect((await server.send("DELETE", `/forms/${form}/submissions/${newest}`, a.key)).status).toBe(200);
    const after = await submit(a.key, form, { message: "kilo golfwordafter" });
    expect(await found("golfwordafter")).toEqual([after]);
    await expectExact();
    expect(await found("golfwordafter")).toEqual([after]);
    expect(await found("kilo")).toEqual([older, after].sort());
  });

  test("submissions stored before the index are indexed by the backlog job, newest first, and found", async () => {
    const form = (await seedForm(server, "b@example.com", { name: "Old" })).id;
    const old = [];
    for (let i = 0; i < 3; i++) old.push(await submit(b.key, form, { message: `foxtrot number${i}` }));
    const noted = await server.send("POST", `/forms/${form}/submissions/${old[1]}/notes`, b.key, { text: "quebec" });
    expect(noted.status).toBe(200);
    // As migration 36 finds a database: submissions, none of them indexed, the backlog's mark past them.
    const [{ seq }] = await server.query("SELECT max(seq) AS seq FROM submissions");
    await server.exec(
      onPostgres
        ? "DELETE FROM submission_search"
        : "DELETE FROM submission_search WHERE rowid IN (SELECT seq FROM submissions)",
    );
    await server.exec("UPDATE search_backlog SET below = ?, indexed_to = ?", seq + 1, seq);
    expect(await found("foxtrot")).toEqual([]);
    expect(await found("quebec")).toEqual([]);
    await server.jobs.run("index-search-backlog");
    expect(await found("quebec")).toEqual([old[1]!]);
    expect(await found("foxtrot")).toEqual(old.sort());
    await expectExact();
    expect((await server.query("SELECT below FROM search_backlog"))[0].below).toBe(0);
  });

  test("a submission indexed again is found by what it holds now, and no longer by what it held", async () => {
    const form = (await seedForm(server, "b@example.com", { name: "Again" })).id;
    const id = await submit(b.key, form, { message: "golf before" });
    await server.services.search.indexPending();
    await server.exec("UPDATE submissions SET data = ? WHERE id = ?", JSON.stringify({ message: "hotel after" }), id);
    expect(await found("hotel")).toEqual([]);
    await server.store.sql.transaction(() => server.services.search.reindex([id]));
    expect(await found("hotel")).toEqual([id]);
    expect(await found("golf")).toEqual([]);
    await expectExact();
  });

  test("a field query that reads 5,000 of the index's matches without one in its field ends its page there, and goes on", async () => {
    const form = await server.services.forms.requireForm(
      (await seedForm(server, "b@example.com", { name: "Many" })).id,
    );
    const row = (name: string, i: number) => rowOf(form, { name, message: "juliet" }, i);
    const commit = submitPipeline(server.store.sql).commit;
    const oldest = row("Juliet Oldest", 0);
    expect(await commit([oldest])).toEqual([null]);
    expect((await commit(Array.from({ length: 5_100 }, (_, i) => row("Romeo", i + 1)))).every((o) => o === null)).toBe(
      true,
    );
    await server.services.search.indexPending();
    const page = (cursor?: string) =>
      server.services.search.searchJson(OPERATOR, { q: "name:juliet", formId: form.id, limit: 5, cursor });
    const first = JSON.parse(await page());
    expect(first.submissions).toEqual([]);
    expect(first.nextCursor).toBeString();
    const second = JSON.parse(await page(first.nextCursor));
    expect(second.submissions.map((s: { id: string }) => s.id)).toEqual([oldest.id]);
    expect(second.nextCursor).toBeNull();
  }, 60_000);

  test("a field query also ends its page after reading 1,000,000 characters of matches, and goes on", async () => {
    const form = await server.services.forms.requireForm(
      (await seedForm(server, "b@example.com", { name: "Long" })).id,
    );
    const row = (name: string, i: number) => rowOf(form, { name, message: `lima ${"x ".repeat(2_600)}` }, i);
    const commit = submitPipeline(server.store.sql).commit;
    const oldest = row("Lima Oldest", 0);
    expect(await commit([oldest])).toEqual([null]);
    expect((await commit(Array.from({ length: 200 }, (_, i) => row("Mike", i + 1)))).every((o) => o === null)).toBe(
      true,
    );
    await server.services.search.indexPending();
    const page = (cursor?: string) =>
      server.services.search.searchJson(OPERATOR, { q: "name:lima", formId: form.id, limit: 5, cursor });
    const first = JSON.parse(await page());
    expect(first.submissions).toEqual([]);
    expect(first.nextCursor).toBeString();
    const second = JSON.parse(await page(first.nextCursor));
    expect(second.submissions.map((s: { id: string }) => s.id)).toEqual([oldest.id]);
  }, 60_000);

  test("the indexer takes what it cuts within its time budget a transaction, and goes on to the last", async () => {
    if (onPostgres) return; // PostgreSQL indexes each submission in its submit's transaction
    const form = await server.services.forms.requireForm(
      (await seedForm(server, "b@example.com", { name: "Budget" })).id,
    );
    const rows = Array.from({ length: 3 }, (_, i) => rowOf(form, { message: `november budget${i}` }, i));
    expect(await submitPipeline(server.store.sql).commit(rows)).toEqual([null, null, null]);
    const ids = rows.map((r) => r.id);
    const repo = createSearchRepo(server.store.sql);
    // The first step in the transaction that takes them out of the index again: the server's own
    // indexer (a job every 10 s) may have taken them in already, and may take what is left after.
    const first = await server.store.sql.transaction(async () => {
      await server.store.sql.run(
        "DELETE FROM submission_search WHERE rowid IN (SELECT seq FROM submissions WHERE form_id = ?)",
        [form.id],
      );
      await server.store.sql.run(
        "UPDATE search_backlog SET indexed_to = (SELECT min(seq) - 1 FROM submissions WHERE form_id = ?)",
        [form.id],
      );
      return repo.indexPending(1_000, 0);
    });
    expect(first).toEqual({ indexed: 1, done: false });
    const steps = [first];
    while (!steps.at(-1)!.done) steps.push(await server.store.sql.transaction(() => repo.indexPending(1_000, 0)));
    expect(steps.every((s) => s.indexed <= 1)).toBe(true);
    expect(await found("november")).toEqual(ids.sort());
    await expectExact();
  });

  test("each submission is indexed with its form's token, which a search within a few forms asks the index for", async () => {
    const form = (await seedForm(server, "b@example.com", { name: "Tokens" })).id;
    const ids = [
      await submit(b.key, form, { message: "papa one" }),
      await submit(b.key, form, { message: "papa two" }),
    ];
    await server.services.search.indexPending();
    const token = formToken(form);
    const indexed = await server.query(
      onPostgres
        ? "SELECT s.id FROM submission_search x JOIN submissions s ON s.seq = x.seq WHERE x.words @@ CAST(? AS tsquery) ORDER BY s.id"
        : "SELECT s.id FROM submission_search JOIN submissions s ON s.seq = submission_search.rowid WHERE submission_search MATCH ? ORDER BY s.id",
      onPostgres ? `'${token}'` : `"${token}"`,
    );
    expect(indexed.map((r) => r.id)).toEqual(ids.sort());
    // No text yields a form's token: typed, it is words like any other.
    expect(await found(token)).toEqual([]);
    expect(
      (await server.send("GET", `/submissions/search?q=papa&formId=${form}`, b.key)).body.submissions,
    ).toHaveLength(2);
  });
});
