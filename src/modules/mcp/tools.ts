import type { Static, TObject, TSchema } from "@sinclair/typebox";
import { t } from "elysia";
import { CursorParam, FormId } from "../../http/schemas";
import type { Principal } from "../../lib/principal";
import type { Right } from "../../lib/rights";
import { AnalyticsQuerySchema } from "../analytics/model";
import type { AnalyticsService } from "../analytics/service";
import { toFormListItem } from "../forms/model";
import type { FormsService } from "../forms/service";
import { toFormJson } from "../forms/settings";
import { listedJson, SubmissionParams } from "../submissions/model";
import type { SubmissionsService } from "../submissions/service";
import { NoteBodySchema, TriageSchema } from "../submissions/triage-model";
import type { Triage } from "../submissions/triage";
import { boundedPage, type Answer } from "./bounds";
import type { SubmissionSearch } from "./search";
import { MAX_QUERY_LENGTH } from "../search/query";
import { SearchQuerySchema } from "../search/routes";

/** The tools' names, as the audit log records their calls (`mcp.<name>`). */
export type ToolName =
  | "list_forms"
  | "get_form"
  | "form_analytics"
  | "search_submissions"
  | "get_submission"
  | "update_submission"
  | "add_note"
  | "mark_spam"
  | "mark_not_spam";

/** What the tools call: the services the API's routes call, and search. */
export interface ToolServices {
  forms: Pick<FormsService, "listForms" | "formFor">;
  analytics: Pick<AnalyticsService, "analyticsJson">;
  submissions: Pick<SubmissionsService, "submissionFor" | "moveSubmission">;
  triage: Pick<Triage, "update" | "addNote">;
  search: SubmissionSearch;
  /** FORMSVC_MCP_MAX_RESULTS: the most items one answer lists. */
  maxResults: number;
}

/**
 * One tool: its input as a schema of the API's own pieces (the one truth for the JSON schema
 * tools/list shows and for the check of its arguments), the right its API route states, and the
 * service call. `run` gets the caller with that right set, as the route's `auth` sets it.
 */
export interface Tool<S extends TObject = TObject> {
  name: ToolName;
  title: string;
  description: string;
  right: Right;
  input: S;
  run(caller: Principal, args: Static<S>, services: ToolServices): Promise<Answer>;
}

const tool = <S extends TObject>(spec: Tool<S>): Tool => spec as unknown as Tool;

/** An object of these arguments; one it does not name is refused (a misspelt argument must not be ignored). */
const args = <P extends Record<string, TSchema>>(properties: P) =>
  t.Object(properties, { additionalProperties: false });

const Cursor = t.Optional(t.String({ ...CursorParam, description: "nextCursor of the previous answer, to go on" }));
const OneSubmission = { formId: FormId, submissionId: SubmissionParams.properties.submissionId };

/** A submission as Get a submission answers it: as listed, with the folder it is in. */
const detailOf = (stored: Parameters<typeof listedJson>[0] & { status: string }): Answer =>
  JSON.parse(`${listedJson(stored).slice(0, -1)},"status":${JSON.stringify(stored.status)}}`) as Answer;

const OTHERS = "A form of another team is refused with FORBIDDEN, an id that is not there with NOT_FOUND.";
const PAGED =
  "At most FORMSVC_MCP_MAX_RESULTS items (default 50) and 100 KB an answer: while nextCursor is not null, call again with it as cursor to go on.";
const EDITORS = "Needs a key of the role editor or above (else ROLE_TOO_LOW); recorded in the team's audit log.";

/** Every tool, reads first; a key sees those its role holds the right of (tools/list). */
export const TOOLS: Tool[] = [
  tool({
    name: "list_forms",
    title: "List forms",
    description: `The forms of the key's team, newest first: id, name, submission counts and unread (new, not spam). ${PAGED}`,
    right: "forms.read",
    input: args({ cursor: Cursor }),
    run: (caller, { cursor }, s) =>
      boundedPage(async (limit) => {
        const page = await s.forms.listForms(caller, { limit, cursor });
        return { forms: page.items.map(toFormListItem), nextCursor: page.nextCursor };
      }, s.maxResults),
  }),
  tool({
    name: "get_form",
    title: "Get a form",
    description: `One form with all its settings and fields, as the API's Get a form shows it. ${OTHERS}`,
    right: "forms.read",
    input: args({ formId: FormId }),
    run: async (caller, { formId }, s) => toFormJson(await s.forms.formFor(caller, formId)) as Answer,
  }),
  tool({
    name: "form_analytics",
    title: "Form analytics",
    description: `A form's submissions per UTC day over a period (day, week, month (default) or year, or startDate..endDate), with its top countries, browsers and devices. ${OTHERS}`,
    right: "forms.read",
    input: args({ formId: FormId, ...AnalyticsQuerySchema.properties }),
    run: async (caller, { formId, ...query }, s) =>
      JSON.parse(await s.analytics.analyticsJson(caller, formId, query)) as Answer,
  }),
  tool({
    name: "search_submissions",
    title: "Search submissions",
    description: `Full-text search of the inbox of the key's team's forms (or one: formId), newest first: q's words in field values and notes (all must match; foo* a prefix, "a phrase", -word excluded, field:value in one field; case and accents ignored), narrowed by state, tag, assignee (an email, me for who made the key, none for unassigned), from and to (createdAt). q may be left out when a filter is given: then every submission the filters take. Each with its state, assignee, tags, noteCount and the highlights that matched. A field query's page may hold fewer than the most, or none, while more follow. ${PAGED} ${OTHERS}`,
    right: "submissions.read",
    input: args({
      q: t.Optional(
        t.String({
          maxLength: MAX_QUERY_LENGTH,
          error: `q must be at most ${MAX_QUERY_LENGTH} characters`,
          description: "the words to find",
        }),
      ),
      formId: t.Optional(FormId),
      state: SearchQuerySchema.properties.state,
      tag: SearchQuerySchema.properties.tag,
      assignee: SearchQuerySchema.properties.assignee,
      from: SearchQuerySchema.properties.from,
      to: SearchQuerySchema.properties.to,
      cursor: Cursor,
    }),
    run: (caller, { cursor, ...query }, s) =>
      boundedPage(async (limit) => ({ ...(await s.search(caller, { ...query, limit, cursor })) }), s.maxResults),
  }),
  tool({
    name: "get_submission",
    title: "Get a submission",
    description: `One submission with all its fields, its folder (inbox or spam), state, assignee, tags and noteCount. Values too long for 100 KB are shortened (cut: true). ${OTHERS}`,
    right: "submissions.read",
    input: args(OneSubmission),
    run: async (caller, { formId, submissionId }, s) =>
      detailOf((await s.submissions.submissionFor(caller, formId, submissionId)).stored),
  }),
  tool({
    name: "update_submission",
    title: "Change a submission's state, assignee or tags",
    description: `Only what is given changes. state: new, open, done or archived; assignee: a team member's email, or null; tags replaces the tags, addTags and removeTags change them. Answers the submission as it is now. ${EDITORS} ${OTHERS}`,
    right: "submissions.edit",
    input: args({ ...OneSubmission, ...TriageSchema.properties }),
    run: async (caller, { formId, submissionId, ...change }, s) =>
      detailOf(await s.triage.update(caller, formId, submissionId, change)),
  }),
  tool({
    name: "add_note",
    title: "Add a note to a submission",
    description: `A note for the team on a submission (up to 10,000 characters), kept with its author (who made the key) and time. ${EDITORS} ${OTHERS}`,
    right: "submissions.edit",
    input: args({ ...OneSubmission, text: NoteBodySchema.properties.text }),
    run: async (caller, { formId, submissionId, text }, s) =>
      (await s.triage.addNote(caller, formId, submissionId, text)) as unknown as Answer,
  }),
  ...(
    [
      [
        "mark_spam",
        "Move a submission to spam",
        "spam",
        "It counts nowhere from then on; the spam filter learns from the mark.",
      ],
      [
        "mark_not_spam",
        "Move a submission out of spam",
        "inbox",
        "It counts from then on, and its notifications and webhooks go out as for a new one; the spam filter learns from the mark.",
      ],
    ] as const
  ).map(([name, title, to, what]) =>
    tool({
      name,
      title,
      description: `${what} Moving it where it already is changes nothing (moved: false). ${EDITORS} ${OTHERS}`,
      right: "submissions.edit",
      input: args(OneSubmission),
      run: async (caller, { formId, submissionId }, s) => {
        const { status, moved } = await s.submissions.moveSubmission(caller, formId, submissionId, to);
        return { id: submissionId, status, moved };
      },
    }),
  ),
];
