import type { CursorCodec, Position } from "./cursor";

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/**
 * Keyset paging over a list sorted newest first. `fetch` reads up to `limit + 1` rows after
 * the cursor's position; the extra row only tells whether a next page exists, so the last
 * page is never empty and `nextCursor` is null exactly when nothing follows.
 */
export function keysetPage<T extends Position>(
  codec: CursorCodec,
  list: string,
  query: { limit: number; cursor?: string | undefined },
  fetch: (after: Position | null, limit: number) => T[],
): Page<T> {
  const after = query.cursor === undefined ? null : codec.decode(list, query.cursor);
  const rows = fetch(after, query.limit + 1);
  const items = rows.slice(0, query.limit);
  const last = items[items.length - 1];
  return { items, nextCursor: rows.length > query.limit && last ? codec.encode(list, last) : null };
}
