import { Elysia, t } from "elysia";
import { noBody, requestContext, secret } from "../../http/context";
import { responses } from "../../http/docs";
import { CursorParam, LimitParam, pageLimit } from "../../http/schemas";
import {
  ListedSubmissionSchema,
  MAX_TAG_LENGTH,
  SUBMISSION_STATES,
  type ListedSubmissionJson,
} from "../submissions/model";
import type { Highlight } from "./document";
import { MAX_QUERY_LENGTH, MAX_TERMS } from "./query";
import type { SearchService } from "./service";

const HighlightSchema = t.Object({
  field: t.String({ description: "the field's key in data, or notes for a note" }),
  note: t.Optional(t.String({ description: "a note's fragment: the note's id" })),
  text: t.String({
    description: "the field's text, or for a long one a window of it around the first match, cut at …",
  }),
  matches: t.Array(t.Array(t.Number({ multipleOf: 1, minimum: 0 }), { minItems: 2, maxItems: 2 }), {
    description: "each matched word as [start, end) UTF-16 offsets into text",
  }),
});

export const SearchResultSchema = t.Object({
  submissions: t.Array(
    t.Object({
      ...ListedSubmissionSchema.properties,
      highlights: t.Array(HighlightSchema, {
        description: "the fragments of its fields that matched (at most 5), in the fields' order",
      }),
    }),
  ),
  nextCursor: t.Nullable(t.String()),
});

/** The answer's type, as SearchResultSchema says it (data typed as the lists type it). */
export type SearchResultJson = {
  submissions: (ListedSubmissionJson & { highlights: Highlight[] })[];
  nextCursor: string | null;
};

const DateParam = (what: string) =>
  t.Optional(
    t.String({
      maxLength: 40,
      description: `${what}: a date (midnight UTC) or a date-time, ISO 8601`,
    }),
  );

/** What a search asks, as the route's query (the MCP tool `search_submissions` takes its filters from here). */
export const SearchQuerySchema = t.Object({
  // Its length and words are checked by the query parser, which says what is wrong in its 400.
  q: t.Optional(
    t.String({
      description: `the words to find, up to ${MAX_QUERY_LENGTH} characters and ${MAX_TERMS} terms: words (all must match), foo* a prefix, "two words" a phrase, -word excluded, field:value in that field alone (its key, without spaces or punctuation; notes: the notes). Case and accents do not count: muller finds Müller. May be left out (or empty) when another filter is given: then every submission the filters take, newest first, without highlights`,
    }),
  ),
  formId: t.Optional(t.String({ minLength: 1, maxLength: 200, description: "one form only" })),
  spam: t.Optional(
    // A pattern, not a union of the two: Elysia would fill a missing one in with the union's first.
    t.String({
      pattern: "^(true|false)$",
      error: "spam must be true or false",
      description: "true: the spam folder; false (default): the inbox",
    }),
  ),
  state: t.Optional(
    t.String({
      pattern: `^(${SUBMISSION_STATES.join("|")})$`,
      error: `state must be one of ${SUBMISSION_STATES.join(", ")}`,
      description: "only those in this state",
    }),
  ),
  tag: t.Optional(
    t.String({
      minLength: 1,
      maxLength: MAX_TAG_LENGTH,
      error: `tag must be 1 to ${MAX_TAG_LENGTH} characters`,
      description: "only those with this tag",
    }),
  ),
  assignee: t.Optional(
    t.String({
      minLength: 1,
      maxLength: 254,
      error: "assignee must be an email address, me or none",
      description: "only those assigned to this person (an email), to the caller's person (me), or to no one (none)",
    }),
  ),
  from: DateParam("createdAt at or after"),
  to: DateParam("createdAt before"),
  limit: LimitParam,
  cursor: CursorParam,
});

export function searchRoutes(search: SearchService) {
  return new Elysia({ name: "search-routes" }).use(requestContext).get(
    "/submissions/search",
    async ({ query, principal, set }) => {
      set.headers["content-type"] = "application/json;charset=utf-8";
      return await search.searchJson(principal, {
        q: query.q,
        formId: query.formId,
        spam: query.spam === "true",
        state: query.state,
        tag: query.tag,
        assignee: query.assignee,
        from: query.from,
        to: query.to,
        limit: pageLimit(query.limit),
        cursor: query.cursor,
      });
    },
    {
      auth: noBody(secret("submissions.read")),
      query: SearchQuerySchema,
      detail: {
        summary: "Search submissions",
        description:
          "Full-text search of field values and notes across every form the caller may read (a key: its team's forms; a session: every team it is a member of), or one form. Results newest stored first, paged by cursor; each as the list shows it, with `highlights`. A submission is searchable once its submit is answered, and gone from the search with its deletion, erasure or retention. Filters (formId, state, tag, assignee, from, to) narrow it; with one, q may be left out. A query with no words (and no filter), only exclusions, an unclosed quote, or too long is a 400 INVALID_QUERY.",
        tags: ["Submissions"],
        responses: responses(
          { schema: SearchResultSchema, description: "a page of matching submissions" },
          400,
          401,
          403,
          404,
          429,
        ),
      },
    },
  );
}
