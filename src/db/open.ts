import { Database } from "bun:sqlite";
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, statSync } from "node:fs";
import { dirname } from "node:path";

/**
 * Creates a file (and the folders it needs, 0700) readable by its owner only (0600), whatever the
 * umask: a mode given at creation can only lose bits to the umask, never gain them. An existing
 * file is left as it is.
 */
export function createPrivateFile(path: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  closeSync(openSync(path, "a", 0o600));
}

/**
 * Opens (creating folders and file as needed) a database tuned for one writer process and short CLI
 * visits. The file and its -wal and -shm (SQLite gives them the database file's mode) are the
 * owner's only: an existing one that group or others may read is tightened to 0600, and `notify` says so.
 */
export function openDatabase(path: string, notify: (message: string) => void = () => {}): Database {
  if (path !== ":memory:") {
    for (const file of [path, `${path}-wal`, `${path}-shm`]) {
      const mode = existsSync(file) ? statSync(file).mode & 0o777 : 0;
      if (mode & 0o077) {
        chmodSync(file, mode & 0o700);
        notify(
          `formsvc: ${file} was readable by others (mode ${mode.toString(8)}); now ${(mode & 0o700).toString(8)}, its owner's only`,
        );
      }
    }
    createPrivateFile(path);
  }
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
