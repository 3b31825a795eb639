import type { Database } from "bun:sqlite";

/**
 * Nothing on SQLite: PostgreSQL keeps its forms' counters and rollups as appended deltas from this
 * version on (db/postgres/schema.ts `COUNTER_DELTAS`), while one writer on a SQLite file updates
 * the rows themselves, as before. Both engines name a schema by one version, so this one is here too.
 */
export function up(_db: Database): void {}
