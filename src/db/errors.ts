/** A write refused because a row it refers to is gone (e.g. a form deleted between a check and the commit), on either engine. */
export const isForeignKeyViolation = (e: unknown): boolean =>
  e instanceof Error &&
  ((e as { code?: unknown }).code === "SQLITE_CONSTRAINT_FOREIGNKEY" || (e as { errno?: unknown }).errno === "23503");

/** A write refused by a unique index or key, on either engine. */
export const isUniqueViolation = (e: unknown): boolean =>
  e instanceof Error &&
  (["SQLITE_CONSTRAINT_UNIQUE", "SQLITE_CONSTRAINT_PRIMARYKEY"].includes(String((e as { code?: unknown }).code)) ||
    (e as { errno?: unknown }).errno === "23505");

// Bun's codes for a PostgreSQL connection that failed or dropped; the server's for one it is ending or refusing.
const UNREACHABLE_CODES = new Set([
  "ERR_POSTGRES_CONNECTION_CLOSED",
  "ERR_POSTGRES_CONNECTION_REFUSED",
  "ERR_POSTGRES_CONNECTION_TIMEOUT",
  "ECONNREFUSED",
  "ECONNRESET",
]);
const UNREACHABLE_SQLSTATES = /^(08|57P0[1-3])/;

/** The database server cannot be reached right now (restarting, failing over, the network): a retry later may succeed. */
export const isDatabaseUnreachable = (e: unknown): boolean =>
  e instanceof Error &&
  (UNREACHABLE_CODES.has(String((e as { code?: unknown }).code)) ||
    UNREACHABLE_SQLSTATES.test(String((e as { errno?: unknown }).errno ?? "")));
