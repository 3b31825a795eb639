/** A write refused because a row it refers to is gone (e.g. a form deleted between a check and the commit), on either engine. */
export const isForeignKeyViolation = (e: unknown): boolean =>
  e instanceof Error && ((e as { code?: unknown }).code === "SQLITE_CONSTRAINT_FOREIGNKEY" || (e as { errno?: unknown }).errno === "23503");
