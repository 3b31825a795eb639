import { t } from "elysia";

/** Query and path pieces that several routes share, each with the sentence a caller sees when it is wrong. */
export const LimitParam = t.Optional(
  t.String({ pattern: "^(100|[1-9][0-9]?)$", error: "limit must be a whole number from 1 to 100", description: "page size, 1 to 100 (default 50)" }),
);

export const CursorParam = t.Optional(
  t.String({ minLength: 1, maxLength: 512, error: "cursor must be the nextCursor of a previous response", description: "nextCursor of the previous page" }),
);

export const FormIdParams = t.Object({
  formId: t.String({ minLength: 1, maxLength: 200, error: "formId must be a form id" }),
});

export const ErrorSchema = t.Object(
  {
    error: t.String({ description: "what went wrong, in a sentence a person can act on" }),
    code: t.Optional(t.String({ description: "stable SCREAMING_SNAKE name" })),
    requestId: t.Optional(t.String()),
  },
  { description: "every error has this shape" },
);

/** The page size a list query asked for. */
export const pageLimit = (limit: string | undefined) => (limit === undefined ? 50 : Number(limit));
