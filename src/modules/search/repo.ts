import { fullText } from "../../db/full-text";
import type { Sql, SqlValue } from "../../db/sql";
import { formToken, type SearchQuery } from "../../lib/search-text";
import type { ListedSubmission, NewSubmission, SubmissionState, SubmissionStatus } from "../submissions/model";
import { indexedTextOfJson, tokensOfJson, type NoteText } from "./document";

/** Which submissions a search looks at, besides the words. */
export interface SearchFilter {
  /** The teams whose forms it reads; null for every team (the operator). */
  teams: string[] | null;
  /** The forms it reads (one asked for, or a bound key's); null for all of those teams'. */
  forms: string[] | null;
  status: SubmissionStatus;
  /** createdAt ≥ from, < to (ISO 8601 instants). */
  from: string | null;
  to: string | null;
  /** Only those in this state; null for any. */
  state: SubmissionState | null;
  /** Only those with this tag; null for any. */
  tag: string | null;
  /** Only those assigned to this person (by id or email), or to no one; null for anyone's. */
  assignee: { ownerId: string } | { email: string } | "none" | null;
}

/** A submission found, as lists show it but for its tags (read for the page answered alone: `tagsOf`). */
export type FoundSubmission = Omit<ListedSubmission, "tags"> & { seq: number };

interface Row {
  seq: number;
  id: string;
  form_id: string;
  data: string;
  email: string | null;
  created_at: string;
  spam: string | null;
  state: SubmissionState;
  note_count: number;
  assignee_email: string | null;
}

// What a search reads of each submission `s`: what lists show of it.
const FOUND = `s.id, s.form_id, s.data, s.email, s.created_at, s.spam, s.state, s.note_count,
  (SELECT o.email FROM owners o WHERE o.id = s.assignee) AS assignee_email`;

const found = (r: Row): FoundSubmission => ({
  seq: Number(r.seq),
  id: r.id,
  formId: r.form_id,
  data: r.data,
  email: r.email,
  createdAt: r.created_at,
  spam: r.spam,
  state: r.state,
  assignee: r.assignee_email,
  noteCount: Number(r.note_count),
});

/** A submission as the indexer reads it. */
interface Stored {
  seq: number;
  id: string;
  form_id: string;
  data: string;
  note_count: number;
}
const STORED = "seq, id, form_id, data, note_count";

/** A document's words after its form's token (lib/search-text.ts `formToken`), first so that no cut leaves it out. */
const withForm = (words: string | string[], formId: string): string | string[] =>
  typeof words === "string" ? `${formToken(formId)} ${words}` : [formToken(formId), ...words];

// A search of at most this many forms asks the index for their tokens; one of more reads every match.
const MAX_FORM_TOKENS = 64;

/** The conditions of a search besides the match, each with its parameters, in order. */
function conditions(filter: SearchFilter): [sql: string, params: SqlValue[]][] {
  const where: [string, SqlValue[]][] = [["s.status = ?", [filter.status]]];
  // The forms it reads, as conditions on a form id (the submission's, or a tag's row).
  const scope = (column: string) => {
    const out: [string, SqlValue[]][] = [];
    if (filter.forms) out.push([`${column} IN (SELECT value FROM json_each(?))`, [JSON.stringify(filter.forms)]]);
    if (filter.teams)
      out.push([
        `${column} IN (SELECT id FROM forms WHERE team_id IN (SELECT value FROM json_each(?)))`,
        [JSON.stringify(filter.teams)],
      ]);
    return out;
  };
  where.push(...scope("s.form_id"));
  if (filter.from) where.push(["s.created_at >= ?", [filter.from]]);
  if (filter.to) where.push(["s.created_at < ?", [filter.to]]);
  if (filter.state) where.push(["s.state = ?", [filter.state]]);
  if (filter.tag) {
    // The tag's rows of the forms read (submission_tags_by_tag), which a planner may start from.
    const forms = scope("t.form_id");
    where.push([
      `s.id IN (SELECT t.submission_id FROM submission_tags t WHERE ${["t.tag = ?", ...forms.map(([c]) => c)].join(" AND ")})`,
      [filter.tag, ...forms.flatMap(([, p]) => p)],
    ]);
  }
  const { assignee } = filter;
  if (assignee === "none") where.push(["s.assignee IS NULL", []]);
  else if (assignee && "ownerId" in assignee) where.push(["s.assignee = ?", [assignee.ownerId]]);
  else if (assignee) where.push(["s.assignee = (SELECT o.id FROM owners o WHERE o.email = ?)", [assignee.email]]);
  return where;
}

export function createSearchRepo(sql: Sql) {
  const index = fullText(sql);

  /**
   * The forms whose tokens a search asks the index for (the filter's, or its teams'), when they are
   * few; null for every form (the conditions on the submissions keep to the filter's either way).
   */
  async function formsAsked(filter: SearchFilter): Promise<string[] | null> {
    if (filter.forms) return filter.forms.length <= MAX_FORM_TOKENS ? filter.forms : null;
    if (!filter.teams) return null;
    const forms = await sql.all<{ id: string }>(
      "SELECT id FROM forms WHERE team_id IN (SELECT value FROM json_each(?)) LIMIT ?",
      [JSON.stringify(filter.teams), MAX_FORM_TOKENS + 1],
    );
    return forms.length <= MAX_FORM_TOKENS ? forms.map((f) => f.id) : null;
  }

  /** The notes of each of these submissions, oldest first; those known to have none are not asked. */
  async function notesOf(rows: { id: string; noteCount: number }[]): Promise<Map<string, NoteText[]>> {
    const notes = new Map<string, NoteText[]>();
    const ids = rows.filter((r) => r.noteCount > 0).map((r) => r.id);
    if (ids.length === 0) return notes;
    for (const n of await sql.all<{ submission_id: string; id: string; text: string }>(
      `SELECT submission_id, id, text FROM submission_notes WHERE submission_id IN (SELECT value FROM json_each(?))
       ORDER BY submission_id, created_at, id`,
      [JSON.stringify(ids)],
    ))
      notes.get(n.submission_id)?.push(n) ?? notes.set(n.submission_id, [n]);
    return notes;
  }

  /**
   * Each stored submission's tokens, from its data and notes as stored; with `budgetMs`, those of the
   * first rows cut within it (one at least), the rest left for another transaction.
   */
  async function documents(rows: Stored[], budgetMs = Infinity) {
    const notes = await notesOf(rows.map((r) => ({ id: r.id, noteCount: Number(r.note_count) })));
    const wordsOfJson = index.takesText ? indexedTextOfJson : tokensOfJson;
    const until = performance.now() + budgetMs;
    const docs: { id: string; seq: number; words: string | string[] }[] = [];
    for (const r of rows) {
      docs.push({ id: r.id, seq: r.seq, words: withForm(wordsOfJson(r.data, notes.get(r.id)), r.form_id) });
      if (performance.now() > until) break;
    }
    return docs;
  }

  return {
    notesOf,

    /** New submissions are indexed after their commit (`indexPending`), not by `indexNew`. */
    batched: index.batched,

    /**
     * The submit pipeline's writer (after the rows), where the index is written in the submit's
     * transaction (PostgreSQL); SQLite's indexer takes new submissions in after (`indexPending`).
     */
    async indexNew(batch: NewSubmission[]): Promise<void> {
      if (!index.batched)
        await index.index(batch.map((s) => ({ id: s.id, words: withForm(tokensOfJson(s.json), s.form.id) })));
    },

    /**
     * The seq up to which every submission is in the index, where new ones are indexed after their
     * commit (`FullText.batched`); null where each is indexed in its own transaction.
     */
    async indexedTo(): Promise<number | null> {
      if (!index.batched) return null;
      return (await sql.get<{ indexed_to: number }>("SELECT indexed_to FROM search_backlog"))?.indexed_to ?? 0;
    },

    /**
     * Indexes up to `limit` of the submissions past `indexedTo`, oldest first (those cut into words
     * within `budgetMs`), and moves the mark past them; run inside a transaction. Returns how many it
     * indexed, and whether that was the last of them.
     */
    async indexPending(limit: number, budgetMs?: number): Promise<{ indexed: number; done: boolean }> {
      if (!index.batched) return { indexed: 0, done: true };
      const to = (await sql.get<{ indexed_to: number }>("SELECT indexed_to FROM search_backlog"))?.indexed_to ?? 0;
      const rows = await sql.all<Stored>(`SELECT ${STORED} FROM submissions WHERE seq > ? ORDER BY seq LIMIT ?`, [
        to,
        limit,
      ]);
      if (rows.length === 0) return { indexed: 0, done: true };
      const docs = await documents(rows, budgetMs);
      await index.index(docs);
      await sql.run("UPDATE search_backlog SET indexed_to = ?", [docs[docs.length - 1]!.seq]);
      return { indexed: docs.length, done: docs.length === rows.length && rows.length < limit };
    },

    /** Up to `limit` submissions that `filter` takes, whatever their words, newest stored first, strictly before seq `before`. */
    async list(filter: SearchFilter, before: number | null, limit: number): Promise<FoundSubmission[]> {
      const where = conditions(filter);
      if (before !== null) where.push(["s.seq < ?", [before]]);
      const rows = await sql.all<Row>(
        `SELECT s.seq, ${FOUND} FROM submissions s WHERE ${where.map(([c]) => c).join(" AND ")} ORDER BY s.seq DESC LIMIT ?`,
        [...where.flatMap(([, p]) => p), limit],
      );
      return rows.map(found);
    },

    /** The submissions past seq `after` (not indexed yet) that `filter` takes, strictly before `before`, newest first. */
    async listPending(filter: SearchFilter, after: number, before: number | null): Promise<FoundSubmission[]> {
      const where = conditions(filter);
      if (before !== null) where.push(["s.seq < ?", [before]]);
      // The few past the mark first, by seq: left to itself, SQLite would read the forms' whole range of submissions_by_form.
      const rows = await sql.all<Row>(
        `WITH pending AS MATERIALIZED (SELECT * FROM submissions WHERE seq > ?)
         SELECT s.seq, ${FOUND} FROM pending s
         WHERE ${where.map(([c]) => c).join(" AND ")} ORDER BY s.seq DESC`,
        [after, ...where.flatMap(([, p]) => p)],
      );
      return rows.map(found);
    },

    /** The tags of each of these submissions, sorted. */
    async tagsOf(ids: string[]): Promise<Map<string, string[]>> {
      const tags = new Map<string, string[]>();
      for (const t of await sql.all<{ submission_id: string; tag: string }>(
        "SELECT submission_id, tag FROM submission_tags WHERE submission_id IN (SELECT value FROM json_each(?)) ORDER BY submission_id, tag",
        [JSON.stringify(ids)],
      ))
        tags.get(t.submission_id)?.push(t.tag) ?? tags.set(t.submission_id, [t.tag]);
      return tags;
    },

    /**
     * Indexes these submissions again from what is stored of them, in the caller's transaction:
     * after anything that changes what a submission is found by (document.ts `documentOf`).
     */
    async reindex(ids: string[]): Promise<void> {
      const rows = await sql.all<Stored>(
        `SELECT ${STORED} FROM submissions WHERE id IN (SELECT value FROM json_each(?))`,
        [JSON.stringify(ids)],
      );
      // One not indexed yet is indexed as it is by then.
      const upTo = await this.indexedTo();
      await index.index(await documents(upTo === null ? rows : rows.filter((r) => r.seq <= upTo)), true);
    },

    /**
     * Indexes up to `limit` of the newest submissions stored before the index was (the backlog; those
     * cut into words within `budgetMs`), and moves the backlog's mark past them; run inside a
     * transaction. Returns how many it indexed, and whether that was the last of them.
     */
    async indexBacklog(limit: number, budgetMs?: number): Promise<{ indexed: number; done: boolean }> {
      const mark = await sql.get<{ below: number }>("SELECT below FROM search_backlog");
      if (!mark || mark.below <= 0) return { indexed: 0, done: true };
      const rows = await sql.all<Stored>(`SELECT ${STORED} FROM submissions WHERE seq < ? ORDER BY seq DESC LIMIT ?`, [
        mark.below,
        limit,
      ]);
      const docs = await documents(rows, budgetMs);
      await index.index(docs, true);
      const done = docs.length === rows.length && rows.length < limit;
      await sql.run("UPDATE search_backlog SET below = ?", [done ? 0 : docs[docs.length - 1]!.seq]);
      return { indexed: docs.length, done };
    },

    /**
     * Up to `limit` submissions the index matches to `query` that `filter` takes, newest stored
     * first, strictly before seq `before`, up to seq `upTo` (what was indexed when the search began).
     */
    async search(
      query: SearchQuery,
      filter: SearchFilter,
      before: number | null,
      upTo: number | null,
      limit: number,
    ): Promise<FoundSubmission[]> {
      const forms = await formsAsked(filter);
      if (forms?.length === 0) return [];
      const where = conditions(filter);
      if (before !== null) where.push([`${index.seq} < ?`, [before]]);
      if (upTo !== null) where.push([`${index.seq} <= ?`, [upTo]]);
      const rows = await sql.all<Row>(
        `SELECT ${index.seq} AS seq, ${FOUND} FROM ${index.from}
         WHERE ${index.where} AND ${where.map(([c]) => c).join(" AND ")}
         ORDER BY ${index.seq} DESC LIMIT ?`,
        [index.expression(query, forms), ...where.flatMap(([, p]) => p), limit],
      );
      return rows.map(found);
    },
  };
}

export type SearchRepo = ReturnType<typeof createSearchRepo>;
