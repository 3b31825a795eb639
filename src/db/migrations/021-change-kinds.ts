import type { Database } from "bun:sqlite";

/**
 * Nothing on SQLite (its change feed is `PRAGMA data_version`): PostgreSQL's change feed moves a
 * sequence per kind of change from this version on (db/change-feed.ts), so that another instance's
 * submissions do not empty the caches of keys, spam models and form settings. Both engines name a
 * schema by one version, so this one is here too.
 */
export function up(_db: Database): void {}
