import type { Sql } from "../../db/sql";
import type { CursorCodec } from "../../lib/cursor";
import { AppError } from "../../lib/errors";
import { pageStart } from "../../lib/page";
import { isOperator, publishableScope, type Actor } from "../../lib/principal";
import { teamsWith } from "../../lib/rights";
import { isDate } from "../forms/fields";
import type { FormsService } from "../forms/service";
import type { Committed } from "../submissions/pipeline";
import { listedJson, SUBMISSION_STATES, type SubmissionState } from "../submissions/model";
import { normalizeEmail } from "../../lib/email";
import type { SearchQuery } from "../../lib/search-text";
import { documentOfJson, highlightsOf, matches } from "./document";
import { parseQuery } from "./query";
import type { FoundSubmission, SearchFilter, SearchRepo } from "./repo";

export interface SearchDeps {
  repo: SearchRepo;
  sql: Pick<Sql, "transaction">;
  forms: Pick<FormsService, "formFor">;
  cursors: CursorCodec;
}

export interface SearchParams {
  /** The words; may be empty or left out when a filter is given (formId, state, tag, assignee, from, to). */
  q?: string;
  formId?: string;
  /** true: the spam folder; else the inbox. */
  spam?: boolean;
  from?: string;
  to?: string;
  /** new, open, done or archived (checked here: the route and the MCP tool take it as text). */
  state?: string;
  tag?: string;
  /** A person's email, `me` (the caller's person), or `none` (unassigned). */
  assignee?: string;
  limit: number;
  cursor?: string;
}

// A search's pages are one list whatever was asked: the position is a seq, which means the same in any of them.
const LIST = "submissions:search";
// A field query's reading of the index: rows per statement, and at most this many (or this much of
// their data, each cut into words again) for one page.
const FIELD_CHUNK = 200;
const MAX_SCANNED = 5_000;
const MAX_SCANNED_CHARS = 1_000_000;
// New submissions wait this long for the indexer, which takes at most PENDING_CHUNK a transaction (about
// 25 ms of the writer at 1,000,000 submissions: submits wait behind it), or what it cuts into words in
// INDEX_BUDGET_MS (long text in scripts written without spaces is slow to cut, and the writer waits).
const INDEX_AFTER_MS = 200;
const PENDING_CHUNK = 1_000;
const INDEX_BUDGET_MS = 50;
// Submissions the backlog indexes per transaction: short enough not to hold the writer long.
const BACKLOG_CHUNK = 500;
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/** `from`/`to` as the instant createdAt is compared with: a date (one of the calendar's) is its midnight UTC. */
function instant(name: string, value: string | undefined): string | null {
  if (value === undefined) return null;
  const ms = isDate(value)
    ? Date.parse(`${value}T00:00:00Z`)
    : INSTANT.test(value) && isDate(value.slice(0, 10))
      ? Date.parse(value)
      : NaN;
  if (Number.isNaN(ms))
    throw new AppError(
      "INVALID_PARAMETER",
      `${name} must be a date (2026-03-01) or a date-time (2026-03-01T09:00:00Z)`,
    );
  return new Date(ms).toISOString();
}

/** The person `assignee` names: an email, `me` (the caller's), or `none` (no one). */
function assigneeOf(actor: Actor, value: string | undefined): SearchFilter["assignee"] {
  if (value === undefined) return null;
  if (value === "none") return "none";
  if (value === "me") {
    if (isOperator(actor))
      throw new AppError("INVALID_PARAMETER", "assignee=me names the caller's person, and the operator is none");
    return { ownerId: actor.ownerId };
  }
  const email = normalizeEmail(value);
  if (!email) throw new AppError("INVALID_PARAMETER", "assignee must be an email address, me or none");
  return { email };
}

/** The state asked for, checked (the route's schema checks it too; the CLI calls here directly). */
function stateOf(value: string | undefined): SubmissionState | null {
  if (value === undefined) return null;
  if (!(SUBMISSION_STATES as readonly string[]).includes(value))
    throw new AppError("INVALID_PARAMETER", `state must be one of ${SUBMISSION_STATES.join(", ")}`);
  return value as SubmissionState;
}

/**
 * Full-text search over the submissions a caller may read (CONTRACT "The inbox": Search): parsed
 * in query.ts, matched by each engine's own index (db/full-text.ts), newest stored first, each
 * found submission with the fragments that matched.
 */
export function createSearchService({ repo, sql, forms, cursors }: SearchDeps) {
  /** What `actor` may search: every form of its teams where it may read submissions (a bound key's forms), or the one form asked for. */
  async function scope(actor: Actor, formId: string | undefined): Promise<Pick<SearchFilter, "teams" | "forms">> {
    if (formId !== undefined) {
      const form = await forms.formFor(actor, formId);
      return { teams: null, forms: [form.id] };
    }
    if (isOperator(actor)) return { teams: null, forms: null };
    if (actor.kind === "publishable") throw publishableScope();
    return { teams: teamsWith(actor, "submissions.read"), forms: actor.forms };
  }

  /** Those of `rows` whose document (data and notes) matches `query`, in their order. */
  async function matching(query: SearchQuery, rows: FoundSubmission[]): Promise<FoundSubmission[]> {
    const notes = await repo.notesOf(rows);
    return rows.filter((r) => matches(documentOfJson(r.data, notes.get(r.id)), query));
  }

  /**
   * Up to `want` submissions that match, newest first, strictly before seq `before`: those not
   * indexed yet (past `indexedTo`, matched here on the same tokens), then the index's. The index's
   * matches hold a field's terms somewhere, so with such terms the ones that hold them elsewhere
   * are left out (document.ts `matches`), and the index is read on in chunks, up to MAX_SCANNED
   * rows or MAX_SCANNED_CHARS of their data: past that, `readTo` is the seq of the last one read,
   * where the next page goes on.
   */
  async function found(
    query: SearchQuery,
    filter: SearchFilter,
    before: number | null,
    want: number,
  ): Promise<{ rows: FoundSubmission[]; readTo: number | null }> {
    const upTo = await repo.indexedTo();
    const rows = upTo === null ? [] : await matching(query, await repo.listPending(filter, upTo, before));
    if (rows.length >= want) return { rows: rows.slice(0, want), readTo: null };
    if (query.terms.every((t) => t.field === null)) {
      rows.push(...(await repo.search(query, filter, before, upTo, want - rows.length)));
      return { rows, readTo: null };
    }
    for (let read = 0, chars = 0; read < MAX_SCANNED && chars < MAX_SCANNED_CHARS;) {
      const chunk = await repo.search(query, filter, before, upTo, FIELD_CHUNK);
      rows.push(...(await matching(query, chunk)));
      read += chunk.length;
      chars += chunk.reduce((n, r) => n + r.data.length, 0);
      if (rows.length >= want || chunk.length < FIELD_CHUNK) return { rows: rows.slice(0, want), readTo: null };
      before = chunk[chunk.length - 1]!.seq;
    }
    return { rows, readTo: before };
  }

  let scheduled: ReturnType<typeof setTimeout> | null = null;
  let indexer: Promise<unknown> = Promise.resolve();

  const api = {
    /** One page of a search as the API's JSON: `{submissions: [{…as listed, highlights}], nextCursor}`. */
    async searchJson(actor: Actor, params: SearchParams): Promise<string> {
      // The request's own mistakes first (400), before what it may reach is looked at (403, 404).
      const filtered = [params.formId, params.state, params.tag, params.assignee, params.from, params.to].some(
        (p) => p !== undefined,
      );
      // Without words, the filters alone: every submission they take, newest first.
      if (!filtered && !params.q?.trim())
        throw new AppError(
          "INVALID_QUERY",
          "q is required: the words to search for (it may be left out with a filter: formId, state, tag, assignee, from, to)",
        );
      const query = params.q?.trim() ? parseQuery(params.q) : null;
      const from = instant("from", params.from);
      const to = instant("to", params.to);
      const state = stateOf(params.state);
      const assignee = assigneeOf(actor, params.assignee);
      const after = pageStart(cursors, LIST, params.cursor);
      const before = after === null ? null : Number(after.id);
      const filter: SearchFilter = {
        ...(await scope(actor, params.formId)),
        status: params.spam ? "spam" : "inbox",
        from,
        to,
        state,
        tag: params.tag ?? null,
        assignee,
      };
      const { rows, readTo } = query
        ? await found(query, filter, before, params.limit + 1)
        : { rows: await repo.list(filter, before, params.limit + 1), readTo: null };
      const items = rows.slice(0, params.limit);
      const last = items[items.length - 1];
      // The position is a seq, in the id's place; a page cut short by MAX_SCANNED goes on from where it stopped reading.
      const nextCursor =
        rows.length > params.limit && last
          ? cursors.encode(LIST, { createdAt: last.createdAt, id: String(last.seq) })
          : readTo !== null
            ? cursors.encode(LIST, { createdAt: "", id: String(readTo) })
            : null;
      const tags = await repo.tagsOf(items.map((s) => s.id));
      const notes = query ? await repo.notesOf(items) : new Map();
      const listed = items.map((s) => {
        const highlights = query
          ? highlightsOf(JSON.parse(s.data) as Record<string, unknown>, query, notes.get(s.id))
          : [];
        return `${listedJson({ ...s, tags: tags.get(s.id) ?? [] }).slice(0, -1)},"highlights":${JSON.stringify(highlights)}}`;
      });
      return `{"submissions":[${listed.join(",")}],"nextCursor":${JSON.stringify(nextCursor)}}`;
    },

    /**
     * Indexes these submissions again, inside the caller's transaction: a note's addition and
     * deletion (triage.ts) call this beside their own write.
     */
    reindex: (ids: string[]): Promise<void> => repo.reindex(ids),

    /**
     * Indexes what was stored since the index last took submissions in (SQLite indexes them after
     * their commit, in batches), a chunk per transaction; resolves when none is left. Returns how many.
     */
    async indexPending(): Promise<number> {
      let total = 0;
      for (;;) {
        const { indexed, done } = await sql.transaction(() => repo.indexPending(PENDING_CHUNK, INDEX_BUDGET_MS));
        total += indexed;
        if (done) return total;
        await new Promise((resolve) => setImmediate(resolve));
      }
    },

    /**
     * A hook of the submit pipeline: once submissions are committed, the indexer takes them in
     * within INDEX_AFTER_MS, with whatever else is committed by then (one FTS5 segment for all).
     */
    afterCommit(committed: Pick<Committed, "change">): void {
      if (committed.change !== "submitted" || !repo.batched || scheduled) return;
      scheduled = setTimeout(() => {
        scheduled = null;
        indexer = indexer.then(() => api.indexPending()).catch(() => {});
      }, INDEX_AFTER_MS);
      scheduled.unref?.();
    },

    /**
     * Indexes the submissions stored before the index was made (migration 36, or a copy into
     * PostgreSQL), newest first, a chunk per transaction; resolves when none is left. Returns how many.
     */
    async indexBacklog(): Promise<number> {
      let total = 0;
      for (;;) {
        const { indexed, done } = await sql.transaction(() => repo.indexBacklog(BACKLOG_CHUNK, INDEX_BUDGET_MS));
        total += indexed;
        if (done) return total;
        await new Promise((resolve) => setImmediate(resolve));
      }
    },
  };
  return api;
}

export type SearchService = ReturnType<typeof createSearchService>;
