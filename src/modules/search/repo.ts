import { fullText } from "../../db/full-text";
import type { Sql, SqlValue } from "../../db/sql";
import type { SearchQuery } from "../../lib/search-text";
import type { NewSubmission, StoredSubmission, SubmissionStatus } from "../submissions/model";
import { documentOf, indexedTokens, searchedFields } from "./document";

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
}

export type FoundSubmission = StoredSubmission & { seq: number };

interface Row {
  seq: number;
  id: string;
  form_id: string;
  data: string;
  email: string | null;
  created_at: string;
  spam: string | null;
}

/** A submission's document, from its data as JSON text. */
export const documentOfJson = (json: string) => documentOf(searchedFields(JSON.parse(json) as Record<string, unknown>));

/** The tokens the index holds of a submission, from its data as JSON text. */
const tokensOfJson = (json: string) => indexedTokens(searchedFields(JSON.parse(json) as Record<string, unknown>));

/** Each stored submission's tokens, from its data as stored. */
const documents = (rows: { id: string; data: string }[]) =>
  rows.map((r) => ({ id: r.id, tokens: tokensOfJson(r.data) }));

/**
 * The conditions of a search besides the match, each with its parameters, in order: a new filter
 * (state, tag, assignee) is one more entry here.
 */
function conditions(filter: SearchFilter): [sql: string, params: SqlValue[]][] {
  const where: [string, SqlValue[]][] = [["s.status = ?", [filter.status]]];
  if (filter.forms) where.push(["s.form_id IN (SELECT value FROM json_each(?))", [JSON.stringify(filter.forms)]]);
  if (filter.teams)
    where.push([
      "s.form_id IN (SELECT id FROM forms WHERE team_id IN (SELECT value FROM json_each(?)))",
      [JSON.stringify(filter.teams)],
    ]);
  if (filter.from) where.push(["s.created_at >= ?", [filter.from]]);
  if (filter.to) where.push(["s.created_at < ?", [filter.to]]);
  return where;
}

export function createSearchRepo(sql: Sql) {
  const index = fullText(sql);

  return {
    /** The submit pipeline's writer (after the rows): a new submission is searchable once its transaction commits. */
    async indexNew(batch: NewSubmission[]): Promise<void> {
      await index.index(batch.map((s) => ({ id: s.id, tokens: tokensOfJson(s.json) })));
    },

    /**
     * Indexes these submissions again from what is stored of them, in the caller's transaction:
     * after anything that changes what a submission is found by (document.ts `documentOf`).
     */
    async reindex(ids: string[]): Promise<void> {
      const rows = await sql.all<{ id: string; data: string }>(
        "SELECT id, data FROM submissions WHERE id IN (SELECT value FROM json_each(?))",
        [JSON.stringify(ids)],
      );
      await index.index(documents(rows), true);
    },

    /**
     * Indexes up to `limit` of the newest submissions stored before the index was (the backlog),
     * and moves the backlog's mark past them; run inside a transaction. Returns how many it indexed.
     */
    async indexBacklog(limit: number): Promise<number> {
      const mark = await sql.get<{ below: number }>("SELECT below FROM search_backlog");
      if (!mark || mark.below <= 0) return 0;
      const rows = await sql.all<{ seq: number; id: string; data: string }>(
        "SELECT seq, id, data FROM submissions WHERE seq < ? ORDER BY seq DESC LIMIT ?",
        [mark.below, limit],
      );
      await index.index(documents(rows), true);
      await sql.run("UPDATE search_backlog SET below = ?", [rows.length < limit ? 0 : rows[rows.length - 1]!.seq]);
      return rows.length;
    },

    /** Up to `limit` submissions matching `query` and `filter`, newest stored first, strictly before seq `before`. */
    async search(
      query: SearchQuery,
      filter: SearchFilter,
      before: number | null,
      limit: number,
    ): Promise<FoundSubmission[]> {
      const where = conditions(filter);
      if (before !== null) where.push([`${index.seq} < ?`, [before]]);
      const rows = await sql.all<Row>(
        `SELECT ${index.seq} AS seq, s.id, s.form_id, s.data, s.email, s.created_at, s.spam FROM ${index.from}
         WHERE ${index.where} AND ${where.map(([c]) => c).join(" AND ")}
         ORDER BY ${index.seq} DESC LIMIT ?`,
        [index.expression(query), ...where.flatMap(([, p]) => p), limit],
      );
      return rows.map((r) => ({
        seq: Number(r.seq),
        id: r.id,
        formId: r.form_id,
        data: r.data,
        email: r.email,
        createdAt: r.created_at,
        spam: r.spam,
      }));
    },
  };
}

export type SearchRepo = ReturnType<typeof createSearchRepo>;
