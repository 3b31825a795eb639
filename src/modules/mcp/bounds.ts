/**
 * How much one answer of the MCP endpoint may hold: an assistant must not pull a whole inbox into
 * one reply (its context is small and costly, and what it reads is the team's data).
 */
export const MAX_ANSWER_BYTES = 100 * 1024;

export type Answer = Record<string, unknown>;

export const byteSize = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

/** Strings never shortened, whatever their length: what a caller goes on with. */
const KEPT = new Set(["id", "formId", "submissionId", "nextCursor"]);

function shortened(value: unknown, cap: number, key = ""): unknown {
  if (typeof value === "string") return value.length > cap && !KEPT.has(key) ? `${value.slice(0, cap)}…` : value;
  if (Array.isArray(value)) return value.map((v) => shortened(v, cap));
  if (value !== null && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shortened(v, cap, k)]));
  return value;
}

function longest(value: unknown): number {
  if (typeof value === "string") return value.length;
  if (value !== null && typeof value === "object")
    return Object.values(value).reduce<number>((most, v) => Math.max(most, longest(v)), 0);
  return 0;
}

/**
 * `answer` as it fits in MAX_ANSWER_BYTES of JSON text: whole when it does; else with every string
 * value cut to the longest length that fits (found by halving, a few passes whatever the size), and
 * `cut: true` on it; null when not even that fits.
 */
export function fitted(answer: Answer, budget = MAX_ANSWER_BYTES): Answer | null {
  if (byteSize(answer) <= budget) return answer;
  const cutTo = (cap: number) => ({ ...(shortened(answer, cap) as Answer), cut: true });
  if (byteSize(cutTo(0)) > budget) return null;
  let low = 0;
  let high = longest(answer);
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (byteSize(cutTo(mid)) <= budget) low = mid;
    else high = mid - 1;
  }
  return cutTo(low);
}

/**
 * A page of a list, at most `max` items, asked again with fewer while its JSON is over the budget:
 * the list's own cursor then follows the last item shown, so nothing is skipped. `fetch(limit)` must
 * answer the first `limit` items from the same place (the API's keyset pages do). A page of one that
 * is still too big is left to `fitted`.
 */
export async function boundedPage(fetch: (limit: number) => Promise<Answer>, max: number): Promise<Answer> {
  for (let limit = max; ;) {
    const answer = await fetch(limit);
    const bytes = byteSize(answer);
    if (bytes <= MAX_ANSWER_BYTES || limit === 1) return answer;
    limit = Math.max(1, Math.min(limit - 1, Math.floor((limit * MAX_ANSWER_BYTES) / bytes)));
  }
}
