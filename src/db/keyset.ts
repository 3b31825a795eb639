import type { Database, SQLQueryBindings } from "bun:sqlite";
import type { Position } from "../lib/cursor";

/**
 * Keyset pages over rows ordered by (created_at, id), newest or oldest first: `select` is a
 * `SELECT … FROM … WHERE …` whose parameters come first; the page's position and limit follow.
 * Each page is one index range read, at any depth.
 */
export function keysetQuery<Row, Params extends SQLQueryBindings[]>(db: Database, select: string, order: "newest" | "oldest") {
  const [after, dir] = order === "newest" ? ["<", "DESC"] : [">", "ASC"];
  const first = db.query<Row, SQLQueryBindings[]>(`${select} ORDER BY created_at ${dir}, id ${dir} LIMIT ?`);
  const next = db.query<Row, SQLQueryBindings[]>(`${select} AND (created_at, id) ${after} (?, ?) ORDER BY created_at ${dir}, id ${dir} LIMIT ?`);
  /** Up to `limit` rows strictly after `from` (from the start when null). */
  return (params: Params, from: Position | null, limit: number): Row[] =>
    from ? next.all(...params, from.createdAt, from.id, limit) : first.all(...params, limit);
}
