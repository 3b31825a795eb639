import type { Position } from "../lib/cursor";
import type { Sql, SqlValue } from "./sql";

/**
 * Keyset pages over rows ordered by (created_at, id), newest or oldest first: `select` is a
 * `SELECT … FROM … WHERE …` whose parameters are numbered (`?1` … `?n`); the page's position and
 * limit follow as `?n+1` …. Each page is one index range read, at any depth.
 */
export function keysetQuery<Row>(sql: Sql, select: string, order: "newest" | "oldest") {
  if (/\?(?!\d)/.test(select))
    throw new Error("keysetQuery: number the select's parameters (?1, ?2 …), so the page's can follow them");
  // Numbered after the select's own: one placeholder style in each text, as both engines number them the same.
  const n = Math.max(0, ...[...select.matchAll(/\?(\d+)/g)].map((m) => Number(m[1])));
  const [after, dir] = order === "newest" ? ["<", "DESC"] : [">", "ASC"];
  const first = `${select} ORDER BY created_at ${dir}, id ${dir} LIMIT ?${n + 1}`;
  const next = `${select} AND (created_at, id) ${after} (?${n + 1}, ?${n + 2}) ORDER BY created_at ${dir}, id ${dir} LIMIT ?${n + 3}`;
  /** Up to `limit` rows strictly after `from` (from the start when null). */
  return (params: SqlValue[], from: Position | null, limit: number): Promise<Row[]> =>
    from ? sql.all<Row>(next, [...params, from.createdAt, from.id, limit]) : sql.all<Row>(first, [...params, limit]);
}
