import type { Principal } from "../../lib/principal";
import type { SubmissionsService } from "../submissions/service";

/** What `search_submissions` asks: words, the form, and a page of the results. */
export interface SearchQuery {
  q?: string;
  formId: string;
  limit: number;
  cursor?: string;
}

/** A page of submissions as the API lists them (each a JSON object), newest first, and the cursor of the next. */
export interface SearchPage {
  submissions: Record<string, unknown>[];
  nextCursor: string | null;
}

/**
 * The search `search_submissions` calls, with the caller's principal (its right set to
 * submissions.read). The search service (GET /api/v1/submissions/search) is to answer it once it is
 * on main; until then `listedSearch` stands in.
 */
export type SubmissionSearch = (caller: Principal, query: SearchQuery) => Promise<SearchPage>;

/** Case and accents folded, as a person searching expects ("Preis" finds "preis", "e" finds "é"). */
const folded = (text: string) => text.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase();

/**
 * A stand-in for search: one page of the form's inbox as the list endpoint gives it (its service, its
 * cursors), keeping the submissions whose values hold every word of `q`. A page may so hold fewer
 * than `limit`; its cursor goes on through the list all the same.
 */
export function listedSearch(submissions: Pick<SubmissionsService, "pageJson">): SubmissionSearch {
  return async (caller, { q, formId, limit, cursor }) => {
    const page = JSON.parse(await submissions.pageJson(caller, formId, { limit, cursor })) as SearchPage;
    const words = folded(q ?? "")
      .split(/\s+/)
      .filter(Boolean);
    const matches = (s: Record<string, unknown>) => {
      // The respondent's values, not what formsvc noted of the request (_meta: browser, country).
      const { _meta, ...fields } = (s.data ?? {}) as Record<string, unknown>;
      const text = folded(JSON.stringify(fields));
      return words.every((w) => text.includes(w));
    };
    return { submissions: page.submissions.filter(matches), nextCursor: page.nextCursor };
  };
}
