import { Database } from "bun:sqlite";
import { randomBytes } from "node:crypto";
import { existsSync, linkSync, mkdirSync, openSync, closeSync, fsyncSync, rmSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { storedFilesOf, type CompressedBackup, type SnapshotFile } from "../../db/backup";
import { createPrivateFile } from "../../db/open";
import { isoTime, type Clock } from "../../lib/clock";
import { AppError } from "../../lib/errors";
import type { Logger } from "../../lib/log";
import { folderStore, type ObjectStore } from "../../lib/object-store";

/** What `backups`, `restore` and a backup schedule say on PostgreSQL, whose own tools make a consistent copy. */
export const PG_DUMP_ADVICE =
  'formsvc backs up a SQLite database; this one is on PostgreSQL, whose pg_dump makes a consistent copy while formsvc runs. Schedule it (cron or a systemd timer): pg_dump --format=custom --file=formsvc-$(date -u +%Y-%m-%dT%H-%M-%SZ).dump "$FORMSVC_DB"  (restore into an empty database with: pg_restore --dbname=URL FILE)';

/** One backup as `backups list` shows it: the database and the uploaded files it carries, as one. */
export interface BackupEntry {
  name: string;
  /** When the snapshot was taken (UTC, from the name). */
  at: string;
  /** The compressed database and the files together. */
  bytes: number;
  /** Uploaded files carried (under `<stem>.files/` beside the database's object). */
  files: number;
}

/** What a finished backup reports: the entry, and how many older ones were deleted to keep `KEEP`. */
export interface BackupMade extends BackupEntry {
  location: string;
  integrity: "ok";
  databaseBytes: number;
  /** Files the snapshot names that were gone from the store when copied (deleted since: their submission went after the snapshot). */
  filesMissing: number;
  pruned: string[];
}

/** What a restore reports. */
export interface Restored {
  from: string;
  db: string;
  bytes: number;
  integrity: "ok";
  forms: number;
  submissions: number;
  owners: number;
  /** Uploaded files put back, each matching its sha256, and where. */
  files: number;
  filesTo: string;
  /** Keys of stored files the backup did not carry (deleted while it was made); their downloads answer 404. */
  filesMissing: string[];
}

export interface BackupsDeps {
  /** Whether the database is a file this process snapshots (SQLite); PostgreSQL's backups are pg_dump's. */
  fileSnapshots: boolean;
  /** The live database's path: snapshots are written beside it first (same disk, same privacy). */
  dbPath: string;
  snapshot: CompressedBackup;
  /** Where backups go (FORMSVC_BACKUP_TO). */
  objects: ObjectStore;
  /** The uploads' store (FORMSVC_FILES): the snapshot's stored files are copied from it. */
  files: ObjectStore;
  keep: number;
  /** FORMSVC_BACKUP_SCHEDULE, "" when off. */
  schedule: string;
  clock: Clock;
  log: Logger;
  /** Tells every owner with a password that a backup failed (one email each); resolves once queued. */
  alert(message: string): Promise<void>;
}

// formsvc-2026-11-25T08-00-00Z.db.zst: sorts by time as text; no colon, which some file systems refuse.
const NAME = /^formsvc-(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})Z\.db\.zst$/;

const nameFor = (at: number) => `formsvc-${new Date(at).toISOString().slice(0, 19).replace(/:/g, "-")}Z.db.zst`;

function timeOf(name: string): string | null {
  const m = NAME.exec(name);
  return m ? `${m[1]}T${m[2]}:${m[3]}:${m[4]}.000Z` : null;
}

/**
 * Where a backup's files go: `formsvc-<time>.files/<ownerId>/<fileId>` beside `formsvc-<time>.db.zst`,
 * each file as stored (uploads are mostly compressed already), so a restore reads them one by one.
 */
const filesPrefix = (name: string) => `${name.replace(/\.db\.zst$/, "")}.files/`;

/** Streams a stored object into a hash, checking it against the size and sha256 its row records. */
async function* checked(
  stream: ReadableStream<Uint8Array>,
  file: SnapshotFile,
  where: string,
): AsyncGenerator<Uint8Array> {
  const hasher = new Bun.CryptoHasher("sha256");
  let size = 0;
  for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) {
    hasher.update(chunk);
    size += chunk.byteLength;
    yield chunk;
  }
  if (size !== file.size || hasher.digest("hex") !== file.sha256)
    throw new AppError("INVALID_PARAMETER", `the file ${file.key} in ${where} does not match its sha256 (damaged?)`);
}

/**
 * Bun's streaming (de)compression, zstd included (TypeScript's DOM types know only gzip and deflate):
 * chunk by chunk, so memory stays flat however large the database.
 */
function codec(way: "compress" | "decompress", format: "zstd" | "gzip"): TransformStream<Uint8Array, Uint8Array> {
  const f = format as CompressionFormat;
  return (way === "compress" ? new CompressionStream(f) : new DecompressionStream(f)) as unknown as TransformStream<
    Uint8Array,
    Uint8Array
  >;
}

/** Writes `source` zstd-compressed to `target` (0600, created first), streaming; answers the bytes written. */
export async function compressInto(source: string, target: string): Promise<number> {
  createPrivateFile(target);
  await Bun.write(target, new Response(Bun.file(source).stream().pipeThrough(codec("compress", "zstd"))));
  return statSync(target).size;
}

/**
 * Scheduled and on-demand backups of a SQLite database: a consistent snapshot (VACUUM INTO, see
 * db/backup.ts) checked with `PRAGMA integrity_check` before it counts, streamed through zstd into
 * the backup store (a folder, 0600/0700, or S3), named by its UTC time, then the oldest beyond `keep`
 * deleted. Remembers the last outcome and the failures since start for /healthz and /metrics.
 */
export function createBackups(deps: BackupsDeps) {
  const { objects, clock, log } = deps;
  let last: { at: string; ok: boolean } | null = null;
  let failures = 0;
  let running: Promise<BackupMade> | null = null;

  const refuseOnPostgres = () => {
    if (!deps.fileSnapshots) throw new AppError("INVALID_PARAMETER", PG_DUMP_ADVICE);
  };

  const list = async () => (refuseOnPostgres(), listBackups(objects));

  /** Deletes a backup: its database first (then it is no longer listed as one), then its files. */
  async function remove(name: string): Promise<void> {
    await objects.delete(name);
    await objects.deleteAll(filesPrefix(name));
  }

  /**
   * Deletes the backups beyond `keep`, and files whose database is gone (a prune or a backup cut short)
   * older than every kept backup: files newer may be a backup still being written, its database last.
   * Answers the backups pruned.
   */
  async function prune(): Promise<string[]> {
    const { backups, orphans } = await scanBackups(objects);
    const pruned = backups.slice(deps.keep).map((b) => b.name);
    for (const old of pruned) await remove(old);
    const oldestKept = backups.length >= deps.keep ? backups[deps.keep - 1] : undefined;
    if (oldestKept) for (const stem of orphans) if (stem < filesPrefix(oldestKept.name)) await objects.deleteAll(stem);
    return pruned;
  }

  async function make(): Promise<BackupMade> {
    refuseOnPostgres();
    // To the second, as its name: `create` answers the same time `backups list` reads back from the name.
    const at = Math.floor(clock.now() / 1000) * 1000;
    const name = nameFor(at);
    // Beside the live database: the same disk has room for a copy of it, and the same privacy.
    const scratch = join(
      dirname(resolve(deps.dbPath)),
      `.${basename(deps.dbPath)}.backup-${randomBytes(6).toString("hex")}`,
    );
    try {
      const { databaseBytes, files } = await deps.snapshot.snapshot(scratch);
      // The files first and the database last: a backup is listed (and restorable) only once all of it is there.
      let filesBytes = 0;
      let filesMissing = 0;
      try {
        for (const file of files) {
          const stored = await deps.files.get(file.key);
          if (!stored) {
            // Its submission was deleted after the snapshot: the owner's deletion stands.
            filesMissing++;
            continue;
          }
          filesBytes += await objects.put(
            filesPrefix(name) + file.key,
            checked(stored.stream, file, deps.files.location),
          );
        }
        const bytes = await objects.put(name, Bun.file(scratch).stream() as unknown as AsyncIterable<Uint8Array>);
        filesBytes += bytes;
      } catch (e) {
        await remove(name).catch(() => {});
        throw e;
      }
      if (filesMissing) log.warn("backup: files deleted since the snapshot were not carried", { name, filesMissing });
      const pruned = await prune();
      return {
        name,
        at: isoTime(at),
        bytes: filesBytes,
        files: files.length - filesMissing,
        filesMissing,
        location: objects.location,
        integrity: "ok",
        databaseBytes,
        pruned,
      };
    } finally {
      rmSync(scratch, { force: true });
    }
  }

  /** Makes one backup now (joined to one in progress); throws when it fails, the store left as it was. */
  const create = (): Promise<BackupMade> => (running ??= make().finally(() => (running = null)));

  return {
    /** The cron schedule `serve` runs backups on; null when off or on PostgreSQL (see `scheduleNotice`). */
    schedule: deps.schedule && deps.fileSnapshots ? deps.schedule : null,
    /** What `serve` says at start when a schedule is set on PostgreSQL. */
    scheduleNotice:
      deps.schedule && !deps.fileSnapshots ? `FORMSVC_BACKUP_SCHEDULE is ignored: ${PG_DUMP_ADVICE}` : null,
    location: objects.location,

    create,

    /**
     * A scheduled backup: as `create`, and its outcome is remembered for /healthz; a failure counts
     * in /metrics and emails every owner with a password, once.
     */
    async scheduled(): Promise<void> {
      try {
        const made = await create();
        last = { at: made.at, ok: true };
        log.info("backup made", { name: made.name, bytes: made.bytes, pruned: made.pruned.length });
      } catch (e) {
        const reason = e instanceof Error ? e.message : String(e);
        last = { at: isoTime(clock.now()), ok: false };
        failures++;
        await deps
          .alert(
            `The scheduled backup of formsvc to ${objects.location} failed at ${last.at}: ${reason}. The last good backups are still there (formsvc backups list); check the destination and run formsvc backups create to try again.`,
          )
          .catch((q) => log.error("backup failure alert not queued", { error: (q as Error).message }));
        throw e;
      }
    },

    /** Every backup in the store, newest first. */
    list,

    /** The last scheduled backup in this process: when, and whether it counted; null before any. */
    last: () => last,
    /**
     * With a schedule, takes the newest backup in the store as the last one (it counted when it was
     * made), so a restart does not show `lastBackup: null`; one this process makes wins. Never throws.
     */
    async recall(): Promise<void> {
      if (!deps.schedule || !deps.fileSnapshots) return;
      const newest = (await listBackups(objects).catch(() => []))[0];
      if (newest && last === null) last = { at: newest.at, ok: true };
    },
    /** Scheduled backups that failed since start. */
    failures: () => failures,
  };
}

export type BackupsService = ReturnType<typeof createBackups>;

/** Every backup in `objects`, newest first, its files counted with it (other files there, such as upgrade snapshots, are not backups). */
export const listBackups = async (objects: ObjectStore): Promise<BackupEntry[]> => (await scanBackups(objects)).backups;

/** The backups in `objects`, newest first, and the backups' files folders (`<stem>.files/`) whose database is not there. */
async function scanBackups(objects: ObjectStore): Promise<{ backups: BackupEntry[]; orphans: string[] }> {
  const found = new Map<string, BackupEntry>();
  const carried = new Map<string, { files: number; bytes: number }>();
  for await (const o of objects.list("")) {
    const slash = o.key.indexOf("/");
    if (slash < 0) {
      const at = timeOf(o.key);
      if (at) found.set(o.key, { name: o.key, at, bytes: o.size, files: 0 });
      continue;
    }
    const stem = o.key.slice(0, slash + 1);
    const sum = carried.get(stem) ?? { files: 0, bytes: 0 };
    sum.files++;
    sum.bytes += o.size;
    carried.set(stem, sum);
  }
  for (const entry of found.values()) {
    const sum = carried.get(filesPrefix(entry.name));
    if (sum) {
      entry.files = sum.files;
      entry.bytes += sum.bytes;
      carried.delete(filesPrefix(entry.name));
    }
  }
  return {
    backups: [...found.values()].sort((a, b) => (a.name < b.name ? 1 : a.name > b.name ? -1 : 0)),
    orphans: [...carried.keys()].filter((stem) => timeOf(stem.replace(/\.files\/$/, ".db.zst")) !== null),
  };
}

/**
 * Restores BACKUP (a file path, or a name in `objects`) into `target`, where no database may be:
 * refused otherwise, with nothing written. The copy is decompressed beside the target and checked
 * with `PRAGMA integrity_check`; the uploaded files its rows name are put back into `files` (the
 * store the restored database will use), each checked against its sha256; only then is the database
 * linked into place (0600, folders 0700). A failure removes the files it put back.
 */
export async function restoreBackup(
  objects: ObjectStore,
  backup: string,
  target: string,
  files: ObjectStore,
): Promise<Restored> {
  const db = resolve(target);
  const taken = [db, `${db}-wal`, `${db}-shm`].find((f) => existsSync(f));
  if (taken) throw new AppError("CONFLICT", `${taken} exists; restore into a path where no database is`);
  const source = await openSource(backup, objects);
  const scratch = join(dirname(db), `.${basename(db)}.restore-${randomBytes(6).toString("hex")}`);
  mkdirSync(dirname(db), { recursive: true, mode: 0o700 });
  const put: string[] = [];
  try {
    createPrivateFile(scratch);
    const out = Bun.file(scratch).writer();
    let bytes = 0;
    for await (const chunk of source.stream as unknown as AsyncIterable<Uint8Array>) {
      await out.write(chunk);
      bytes += chunk.byteLength;
    }
    await out.end();
    const counts = checkRestored(scratch);
    const filesMissing: string[] = [];
    let restoredFiles = 0;
    for (const file of storedFilesOf(scratch)) {
      const carried = await source.files.get(source.filesPrefix + file.key);
      if (!carried) {
        filesMissing.push(file.key);
        continue;
      }
      put.push(file.key);
      await files.put(file.key, checked(carried.stream, file, source.label));
      restoredFiles++;
    }
    syncFile(scratch);
    // link, not rename: it fails when a database appeared at the target meanwhile, never replacing one.
    linkSync(scratch, db);
    syncFile(dirname(db));
    put.length = 0;
    return {
      from: source.label,
      db,
      bytes,
      integrity: "ok",
      ...counts,
      files: restoredFiles,
      filesTo: files.location,
      filesMissing,
    };
  } finally {
    rmSync(scratch, { force: true });
    for (const key of put) await files.delete(key).catch(() => {});
  }
}

/** A backup to read: a file on this machine, else a name in the backup store; decompressed by its ending. Its files are beside it. */
async function openSource(
  backup: string,
  objects: ObjectStore,
): Promise<{ label: string; stream: ReadableStream<Uint8Array>; files: ObjectStore; filesPrefix: string }> {
  const inStore = timeOf(backup) !== null && !existsSync(backup);
  let label: string;
  let raw: ReadableStream<Uint8Array>;
  let files: ObjectStore;
  if (inStore) {
    const found = await objects.get(backup);
    if (!found)
      throw new AppError("NOT_FOUND", `no backup named ${backup} in ${objects.location} (see formsvc backups list)`);
    label = `${objects.location.replace(/\/+$/, "")}/${backup}`;
    raw = found.stream;
    files = objects;
  } else {
    const path = resolve(backup);
    if (!existsSync(path) || !statSync(path).isFile())
      throw new AppError(
        "NOT_FOUND",
        `${backup} is neither a file nor a backup in ${objects.location} (see formsvc backups list)`,
      );
    label = path;
    raw = Bun.file(path).stream();
    // A backup copied elsewhere as a file: its files are the folder beside it (formsvc-<time>.files/).
    files = folderStore(dirname(path));
  }
  // A file renamed to something no key may be carries no files that can be found.
  const prefix = /^[A-Za-z0-9._-]+$/.test(basename(backup)) ? filesPrefix(basename(backup)) : null;
  if (prefix === null) files = { ...files, get: async () => null };
  if (backup.endsWith(".zst"))
    return { label, stream: raw.pipeThrough(codec("decompress", "zstd")), files, filesPrefix: prefix ?? "" };
  if (backup.endsWith(".gz"))
    return { label, stream: raw.pipeThrough(codec("decompress", "gzip")), files, filesPrefix: prefix ?? "" };
  return { label, stream: raw, files, filesPrefix: prefix ?? "" };
}

/** The restored file passes `integrity_check`, or the restore fails; answers what it holds. */
function checkRestored(file: string): { forms: number; submissions: number; owners: number } {
  let copy: Database;
  try {
    copy = new Database(file, { readonly: true });
  } catch (e) {
    throw new AppError("INVALID_PARAMETER", `the backup is not a SQLite database: ${(e as Error).message}`);
  }
  try {
    const check = copy.query<{ integrity_check: string }, []>("PRAGMA integrity_check").get()?.integrity_check;
    if (check !== "ok") throw new AppError("INVALID_PARAMETER", `the backup failed its integrity check: ${check}`);
    const count = (table: string) => copy.query<{ n: number }, []>(`SELECT count(*) AS n FROM ${table}`).get()!.n;
    return { forms: count("forms"), submissions: count("submissions"), owners: count("owners") };
  } catch (e) {
    if (e instanceof AppError) throw e;
    throw new AppError("INVALID_PARAMETER", `the backup is not a formsvc database: ${(e as Error).message}`);
  } finally {
    copy.close();
  }
}

function syncFile(path: string): void {
  const fd = openSync(path, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
