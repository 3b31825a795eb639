import type { CursorCodec, Position } from "./cursor";

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/** Where a page starts: null for the first page; a cursor that is not one of `list`'s is a 400. */
export function pageStart(codec: CursorCodec, list: string, cursor: string | undefined): Position | null {
  return cursor === undefined ? null : codec.decode(list, cursor);
}

/**
 * Keyset paging over a list sorted newest first. `fetch` reads up to `limit + 1` rows after
 * `after` (see pageStart); the extra row only tells whether a next page exists, so the last
 * page is never empty and `nextCursor` is null exactly when nothing follows.
 */
export async function keysetPage<T extends Position>(
  codec: CursorCodec,
  list: string,
  limit: number,
  after: Position | null,
  fetch: (after: Position | null, limit: number) => Promise<T[]>,
): Promise<Page<T>> {
  const rows = await fetch(after, limit + 1);
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return { items, nextCursor: rows.length > limit && last ? codec.encode(list, last) : null };
}
