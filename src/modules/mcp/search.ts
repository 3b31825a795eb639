import type { Principal } from "../../lib/principal";
import type { SearchParams, SearchService } from "../search/service";

/** What `search_submissions` asks: what the search route takes, in the inbox. */
export type SearchQuery = Omit<SearchParams, "spam">;

/** A page of submissions as the search route answers it (each a JSON object), newest first, and the cursor of the next. */
export interface SearchPage {
  submissions: Record<string, unknown>[];
  nextCursor: string | null;
}

/** The search `search_submissions` calls, with the caller's principal (its right set to submissions.read). */
export type SubmissionSearch = (caller: Principal, query: SearchQuery) => Promise<SearchPage>;

/** The search service (GET /api/v1/submissions/search) as the tool calls it: its answer, parsed. */
export const serviceSearch =
  (search: Pick<SearchService, "searchJson">): SubmissionSearch =>
  async (caller, query) =>
    JSON.parse(await search.searchJson(caller, query)) as SearchPage;
