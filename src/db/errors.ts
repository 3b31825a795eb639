/** Another process held the write lock past busy_timeout (e.g. a long CLI write): the same request can simply be retried. */
export const isDatabaseBusy = (e: unknown): boolean => e instanceof Error && (e as { code?: unknown }).code === "SQLITE_BUSY";
