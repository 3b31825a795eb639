import type { Database } from "bun:sqlite";
import { migrate } from "./migrate";
import { openDatabase } from "./open";

/** Opens the database and brings its schema up to date; every command goes through here. */
export function openStore(path: string): Database {
  const db = openDatabase(path);
  try {
    migrate(db);
  } catch (e) {
    db.close();
    throw e;
  }
  return db;
}
