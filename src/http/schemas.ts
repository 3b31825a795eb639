import { t } from "elysia";

/** Query and path pieces that several routes share, each with the sentence a caller sees when it is wrong. */
export const LimitParam = t.Optional(
  t.String({
    pattern: "^(100|[1-9][0-9]?)$",
    error: "limit must be a whole number from 1 to 100",
    description: "page size, 1 to 100 (default 50)",
  }),
);

export const CursorParam = t.Optional(
  t.String({
    minLength: 1,
    maxLength: 512,
    error: "cursor must be the nextCursor of a previous response",
    description: "nextCursor of the previous page",
  }),
);

/** A form id: never `list` or `submit`, which name routes of their own beside `/forms/{formId}` (a note for the document; the router sees to it). */
export const FormId = t.String({
  minLength: 1,
  maxLength: 200,
  not: { enum: ["list", "submit"] },
  error: "formId must be a form id",
});

export const FormIdParams = t.Object({ formId: FormId });

export const ErrorSchema = t.Object(
  {
    error: t.String({ description: "what went wrong, in a sentence a person can act on" }),
    code: t.Optional(t.String({ description: "stable SCREAMING_SNAKE name" })),
    errors: t.Optional(
      t.Array(
        t.Object({
          field: t.Optional(t.String({ description: "the field's name" })),
          code: t.String({
            description:
              "REQUIRED_FIELD_MISSING, REQUIRED_FIELD_EMPTY, TYPE_EMAIL, TYPE_NUMERIC, TYPE_URL, TYPE_DATE, TYPE_TEXT, TOO_SHORT, TOO_LONG, OUT_OF_RANGE, NOT_AN_OPTION or UNKNOWN_FIELD",
          }),
          message: t.String(),
        }),
        { description: "VALIDATION_FAILED: every problem with the submission's fields, at once" },
      ),
    ),
    challenge: t.Optional(
      t.String({
        description:
          "SECOND_FACTOR_REQUIRED: finish the login with it at POST /api/v1/auth/login/second-factor (5 minutes)",
      }),
    ),
    requestId: t.Optional(t.String()),
  },
  { description: "every error has this shape" },
);

/** The page size a list query asked for. */
export const pageLimit = (limit: string | undefined) => (limit === undefined ? 50 : Number(limit));

/**
 * The `additionalProperties` of a request body's objects: a field the schema does not name is a 400
 * that names it. (With `false`, Elysia would drop such a field silently and answer as if it were
 * not there: a misspelt setting would seem to be saved.)
 */
export const UnknownField = t.Never({
  error: ({ errors }: { errors?: { path?: string }[] }) =>
    `unknown field ${(errors?.[0]?.path ?? "").replace(/^\//, "").replaceAll("/", ".")}`,
} as object);

/** `?teamId=`: one of the caller's teams (default: a key's own team, a session's personal team). */
export const TeamIdParam = t.Optional(
  t.String({
    minLength: 1,
    maxLength: 200,
    error: "teamId must be a team id",
    description: "one of the caller's teams (default: a key's own team, a session's personal team)",
  }),
);

/** One of these strings; unlike t.UnionEnum, an optional field left out stays out (UnionEnum gives it its first value). */
export const OneOf = <const T extends string>(
  values: readonly T[],
  error: string,
  options: { description?: string } = {},
) =>
  t.Union(
    values.map((v) => t.Literal(v)),
    { error, ...options },
  );
