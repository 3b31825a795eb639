import { t, type Static } from "elysia";
import { OneOf, UnknownField } from "../../http/schemas";
import {
  MAX_NOTE_LENGTH,
  MAX_TAG_LENGTH,
  MAX_TAGS,
  SubmissionParams,
  SUBMISSION_STATES,
  type SubmissionState,
} from "./model";

/** The most submissions one bulk call changes: all or none of them. */
export const MAX_BULK_IDS = 1000;

const Tag = t.String({
  minLength: 1,
  maxLength: MAX_TAG_LENGTH,
  // Spaces around it and control characters are refused by the service (triage.ts), for the CLI too.
  error: `a tag must be 1 to ${MAX_TAG_LENGTH} characters`,
});
const Tags = (description: string) =>
  t.Array(Tag, {
    maxItems: MAX_TAGS,
    error: `tags must be a list of at most ${MAX_TAGS} tags, each 1 to ${MAX_TAG_LENGTH} characters`,
    description,
  });

const triageFields = {
  state: t.Optional(
    // Not t.UnionEnum: it would give a state left out its first value (new).
    OneOf(SUBMISSION_STATES, `state must be one of ${SUBMISSION_STATES.join(", ")}`, {
      description: "new, open, done or archived",
    }),
  ),
  assignee: t.Optional(
    t.Nullable(
      t.String({
        minLength: 1,
        maxLength: 320,
        error: "assignee must be a team member's email, or null",
        description: "a member of the form's team, by email (400 NOT_A_MEMBER for anyone else), or null to unassign",
      }),
    ),
  ),
  tags: t.Optional(Tags(`the submission's tags, replacing those it has (at most ${MAX_TAGS})`)),
  addTags: t.Optional(Tags("tags to add to those it has (not with tags)")),
  removeTags: t.Optional(Tags("tags to take off (not with tags)")),
};

/** `PATCH …/submissions/{submissionId}` (and a bulk `set`): what to change; what is left out stays. */
export const TriageSchema = t.Object(triageFields, { additionalProperties: UnknownField });
export type TriageBody = Static<typeof TriageSchema>;

/** What a triage change may set, as the service takes it (the API's body, the CLI's flags). */
export interface TriageChange {
  state?: SubmissionState;
  /** A member's email; null unassigns. */
  assignee?: string | null;
  tags?: string[];
  addTags?: string[];
  removeTags?: string[];
}

export const BULK_ACTIONS = ["set", "delete", "spam", "not-spam"] as const;
export type BulkAction = (typeof BULK_ACTIONS)[number];

export const BulkSchema = t.Object(
  {
    ids: t.Array(t.String({ minLength: 1, maxLength: 200, error: "ids must be submission ids" }), {
      minItems: 1,
      maxItems: MAX_BULK_IDS,
      error: `ids must be 1 to ${MAX_BULK_IDS} submission ids`,
      description: `1 to ${MAX_BULK_IDS} submissions of this form; one that is not the form's (or none) refuses the whole call (404), changing nothing`,
    }),
    action: t.UnionEnum([...BULK_ACTIONS], {
      error: `action must be one of ${BULK_ACTIONS.join(", ")}`,
      description: "set (the changes in `set`), delete, spam or not-spam (as the single-submission routes do, to each)",
    }),
    set: t.Optional(TriageSchema),
  },
  { additionalProperties: UnknownField },
);
export type BulkBody = Static<typeof BulkSchema>;

export const BulkResultSchema = t.Object({
  action: t.UnionEnum([...BULK_ACTIONS]),
  ids: t.Array(t.String(), { description: "the submissions the call was about, as sent (duplicates once)" }),
  changed: t.Unsafe<number>({
    type: "integer",
    minimum: 0,
    description: "how many of them changed (one already as asked does not)",
  }),
});
export type BulkResultJson = Static<typeof BulkResultSchema>;

export const NoteBodySchema = t.Object(
  {
    text: t.String({
      minLength: 1,
      maxLength: MAX_NOTE_LENGTH,
      pattern: "\\S",
      error: `text must be 1 to ${MAX_NOTE_LENGTH} characters, not only spaces`,
      description: `the note, 1 to ${MAX_NOTE_LENGTH} characters; seen by the team only`,
    }),
  },
  { additionalProperties: UnknownField },
);
export type NoteBody = Static<typeof NoteBodySchema>;

export const NoteSchema = t.Object({
  id: t.String(),
  submissionId: t.String(),
  text: t.String(),
  author: t.Nullable(
    t.String({
      description:
        "the email of the member who wrote it (or who made the key); null for the command line, or a person since deleted",
    }),
  ),
  createdAt: t.String({ format: "date-time" }),
});
export type NoteJson = Static<typeof NoteSchema>;
export const NoteListSchema = t.Object({ notes: t.Array(NoteSchema, { description: "oldest first" }) });
export type NoteListJson = Static<typeof NoteListSchema>;

export const NoteParams = t.Object({
  ...SubmissionParams.properties,
  noteId: t.String({ minLength: 1, maxLength: 200, error: "noteId must be a note id" }),
});
