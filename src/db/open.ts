import { Database } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";

/** Opens (creating folders and file as needed) a database tuned for one writer process and short CLI visits. */
export function openDatabase(path: string): Database {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path, { create: true, strict: true });
  // Wait for the other process's write (CLI vs. server) instead of failing with SQLITE_BUSY.
  db.run("PRAGMA busy_timeout = 5000");
  // Readers never block the writer and vice versa; the CLI can read while `serve` writes.
  db.run("PRAGMA journal_mode = WAL");
  // fsync the WAL at every commit: an acknowledged submission survives a power cut, not just a crash.
  // (The server makes that sync itself, off its event loop: store.ts, wal-sync.ts.)
  db.run("PRAGMA synchronous = FULL");
  // Enforce owner -> form -> submission links and cascade deletes; SQLite leaves this off by default.
  db.run("PRAGMA foreign_keys = ON");
  // Overwrite deleted content with zeros (rows, index entries, freed pages), so an erased person's
  // data does not linger in free space; costs measured in bench/RESULTS.md (data lifecycle).
  db.run("PRAGMA secure_delete = ON");
  // Read pages straight from the OS page cache instead of copying each one: +30% on submission pages.
  db.run("PRAGMA mmap_size = 268435456");
  return db;
}
