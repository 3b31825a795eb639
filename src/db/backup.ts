import { Database } from "bun:sqlite";
import { rmSync } from "node:fs";
import { setPriority } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createPrivateFile } from "./open";

/** A consistent copy of the live database, safe while the server writes. */
export interface Backup {
  /** Writes the copy to `file` (folders created) and checks it; throws when the copy is not sound. */
  snapshot(file: string): Promise<void>;
}

/**
 * SQLite's backup: VACUUM INTO runs in a single read transaction, so concurrent writers neither
 * block it nor tear it; the copy then passes `PRAGMA integrity_check` or the backup fails. The
 * copy holds everything the database does, so it is its owner's only (0600, new folders 0700):
 * VACUUM INTO fills the empty file made for it, which keeps that mode.
 */
export function sqliteBackup(db: Database): Backup {
  return {
    async snapshot(file) {
      createPrivateFile(file);
      db.run("VACUUM INTO ?", [file]);
      const copy = new Database(file, { readonly: true });
      try {
        const check = copy.query<{ integrity_check: string }, []>("PRAGMA integrity_check").get()?.integrity_check;
        if (check !== "ok") throw new Error(`the copy at ${file} failed its integrity check: ${check}`);
      } finally {
        copy.close();
      }
    },
  };
}

/** An uploaded file a snapshot holds (a `files` row with state stored): what a backup must carry beside the database. */
export interface SnapshotFile {
  key: string;
  size: number;
  sha256: string;
}

/** A compressed, checked snapshot of the live database, written to a file. */
export interface CompressedBackup {
  /**
   * Writes the zstd-compressed copy to `file` once it has passed its check; answers the copy's size
   * before compression and the stored files its rows name (read from the copy, so they are the snapshot's).
   */
  snapshot(file: string): Promise<{ databaseBytes: number; files: SnapshotFile[] }>;
}

/** The stored files a database copy names, read from the copy itself: the ones a backup of it must carry. */
export function storedFilesOf(copy: string): SnapshotFile[] {
  const db = new Database(copy, { readonly: true });
  try {
    return db
      .query<SnapshotFile, []>("SELECT key, size, sha256 FROM files WHERE state = 'stored' ORDER BY key")
      .all()
      .map((f) => ({ ...f, size: Number(f.size) }));
  } finally {
    db.close();
  }
}

/**
 * The snapshot `formsvc backup FILE --zstd` makes, in a process of its own: VACUUM INTO, the
 * integrity check and the compression read and write the whole database, seconds at a million
 * submissions, and on the server's thread no request would be answered meanwhile. The child has its
 * own connection (WAL: it reads a consistent snapshot while the server writes) and its own memory,
 * given back when it exits; it runs at the lowest priority.
 */
export function separateProcessBackup(dbPath: string): CompressedBackup {
  return {
    async snapshot(file) {
      const list = `${file}.files.jsonl`;
      const child = Bun.spawn(
        [...formsvcCommand(), "backup", file, "--zstd", "--force", "--json", "--list-files", list],
        {
          env: { ...process.env, FORMSVC_DB: resolve(dbPath), FORMSVC_LOG_LEVEL: "error" },
          stdin: "ignore",
          stdout: "pipe",
          stderr: "pipe",
        },
      );
      // Background work: on a one-core VPS the requests come first, the backup takes what is left.
      try {
        setPriority(child.pid, 19);
      } catch {
        // Not permitted here: it runs at the server's priority.
      }
      const [code, stdout, stderr] = await Promise.all([
        child.exited,
        new Response(child.stdout).text(),
        new Response(child.stderr).text(),
      ]);
      try {
        if (code !== 0) throw new Error(stderr.trim().split("\n").at(-1) || `formsvc backup exited with ${code}`);
        const files = (await Bun.file(list).text())
          .split("\n")
          .filter(Boolean)
          .map((line) => JSON.parse(line) as SnapshotFile);
        return { databaseBytes: (JSON.parse(stdout) as { databaseBytes: number }).databaseBytes, files };
      } finally {
        rmSync(list, { force: true });
      }
    },
  };
}

/** How to run this formsvc again: the compiled binary itself, or Bun with the source's entry point. */
function formsvcCommand(): string[] {
  // Bun places a compiled binary's modules under /$bunfs/.
  if (import.meta.url.includes("$bunfs")) return [process.execPath];
  return [process.execPath, fileURLToPath(new URL("../main.ts", import.meta.url))];
}

/** Where pre-upgrade snapshots go: `backups/` beside the database file. */
export function upgradeSnapshotPath(dbPath: string, fromVersion: number, now = new Date()): string {
  const stamp = now.toISOString().replace(/[:.]/g, "-");
  return join(dirname(dbPath), "backups", `formsvc-v${fromVersion}-${stamp}.db`);
}
