import { Command, Option } from "commander";
import { existsSync, rmSync, statSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { isPostgresUrl, loadConfig } from "../config";
import { AppError } from "../lib/errors";
import { openObjectStore } from "../lib/object-store";
import { compressInto, listBackups, PG_DUMP_ADVICE, restoreBackup } from "../modules/backups/service";
import { backupLocation, filesLocation } from "../services";
import { storedFilesOf } from "../db/backup";
import { createPrivateFile } from "../db/open";
import { configFor, withServices } from "./context";
import { examples, invocation } from "./hints";
import { emit, table } from "./output";

export function backupCommand(): Command {
  return (
    new Command("backup")
      .description(
        "write a consistent copy of the database, safe while `serve` is running (uploaded files stay where they are: `backups create` keeps them too)",
      )
      .argument("<file>", "where to write the copy")
      .option("--force", "overwrite an existing file")
      .option("--zstd", "write the copy compressed with zstd, as scheduled backups are (formsvc restore reads it)")
      .option("--json", "print only JSON")
      // How a scheduled backup learns which uploads its snapshot holds (db/backup.ts); not for people.
      .addOption(new Option("--list-files <path>", "write the copy's stored files as JSON lines").hideHelp())
      .addHelpText(
        "after",
        examples((me) => [`${me} backup /var/backups/formsvc-$(date +%F).db`]),
      )
      .action(
        (file: string, opts: { force?: boolean; zstd?: boolean; json?: boolean; listFiles?: string }, cmd: Command) =>
          withServices(cmd, async (_s, { store, config }) => {
            const target = resolve(file);
            if (existsSync(target)) {
              if (!opts.force) throw new AppError("CONFLICT", `${target} exists; add --force to overwrite it`);
              rmSync(target);
            }
            const copy = opts.zstd ? `${target}.uncompressed` : target;
            await store.backup.snapshot(copy);
            const databaseBytes = statSync(copy).size;
            try {
              const stored = storedFilesOf(copy);
              if (opts.listFiles) {
                const list = resolve(opts.listFiles);
                createPrivateFile(list);
                writeFileSync(list, stored.map((f) => `${JSON.stringify(f)}\n`).join(""));
              }
              const bytes = opts.zstd ? await compressInto(copy, target) : databaseBytes;
              // The copy names uploads it does not hold: whoever keeps it must know to keep those too.
              const uploads = {
                count: stored.length,
                bytes: stored.reduce((sum, f) => sum + f.size, 0),
                location: filesLocation(config),
              };
              const notHeld = uploads.count
                ? `\nIt does not hold the ${uploads.count} uploaded file${uploads.count === 1 ? "" : "s"} the database names (${uploads.bytes} bytes): they stay in ${uploads.location}. Back that up too, or use \`formsvc backups create\`, which keeps them with each backup.`
                : "";
              emit(
                !!opts.json,
                { file: target, bytes, databaseBytes, integrity: "ok", uploadsNotIncluded: uploads },
                () =>
                  `Backed up to ${target} (${bytes} bytes${opts.zstd ? `, ${databaseBytes} uncompressed` : ""}, integrity ok).${notHeld}`,
              );
            } finally {
              if (opts.zstd) rmSync(copy, { force: true });
            }
          }),
      )
  );
}

/** `backups create|list`: the backups FORMSVC_BACKUP_TO holds, as `serve` makes them on FORMSVC_BACKUP_SCHEDULE. */
export function backupsCommand(): Command {
  const group = new Command("backups").description(
    "compressed, checked backups in FORMSVC_BACKUP_TO (a folder, or s3://BUCKET/PREFIX), kept FORMSVC_BACKUP_KEEP deep",
  );
  group
    .command("create")
    .description("make a backup now: a checked snapshot, compressed, named by its UTC time; then prune to KEEP")
    .option("--json", "print only JSON")
    .addHelpText(
      "after",
      examples((me) => [`${me} backups create`, `FORMSVC_BACKUP_TO=s3://my-bucket/formsvc ${me} backups create`]),
    )
    .action((opts: { json?: boolean }, cmd: Command) =>
      withServices(cmd, async (s) => {
        const made = await s.backups.create();
        emit(!!opts.json, made, () =>
          [
            `Backed up to ${made.location}: ${made.name} (${made.bytes} bytes: the database compressed from ${made.databaseBytes}, integrity ok, and ${made.files} uploaded files).`,
            ...(made.pruned.length ? [`Deleted beyond FORMSVC_BACKUP_KEEP: ${made.pruned.join(", ")}`] : []),
          ].join("\n"),
        );
      }),
    );
  group
    .command("list")
    .description("the backups in FORMSVC_BACKUP_TO, newest first")
    .option("--json", "print only JSON")
    .action(async (opts: { json?: boolean }, cmd: Command) => {
      // The database is not opened: after losing a disk, listing must not create an empty one where the restore goes.
      const config = configFor(cmd);
      if (isPostgresUrl(config.db)) throw new AppError("INVALID_PARAMETER", PG_DUMP_ADVICE);
      const objects = openObjectStore(backupLocation(config), config);
      const found = await listBackups(objects);
      emit(!!opts.json, found, () =>
        found.length
          ? table(
              ["name", "at", "bytes", "files"],
              found.map((b) => [b.name, b.at, b.bytes, b.files]),
            )
          : `No backups in ${objects.location} yet (formsvc backups create makes one).`,
      );
    });
  return group;
}

/** `restore BACKUP --db PATH`: a backup into a fresh database file, checked. */
export function restoreCommand(): Command {
  return (
    new Command("restore")
      .description(
        "restore a backup (a file, or a name from `backups list`) into a path where no database is, and check it",
      )
      .argument("<backup>", "a backup file, or a backup's name in FORMSVC_BACKUP_TO")
      // formsvc's own --db names the target here; declared again for this command's help.
      .option("--db <path>", "the new database file (required; refused when one is there)")
      .option("--json", "print only JSON")
      .addHelpText(
        "after",
        examples((me) => [
          `${me} restore formsvc-2026-11-25T03-00-00Z.db.zst --db /var/lib/formsvc/formsvc.db`,
          `${me} restore /mnt/old-disk/backups/formsvc-2026-11-25T03-00-00Z.db.zst --db ./restored.db`,
        ]),
      )
      .action(async (backup: string, opts: { json?: boolean }, cmd: Command) => {
        const target = (cmd.optsWithGlobals() as { db?: string }).db;
        if (!target) throw new AppError("INVALID_PARAMETER", "say where to restore: formsvc restore BACKUP --db PATH");
        // The store is the configured one (FORMSVC_BACKUP_TO, else backups/ beside FORMSVC_DB); --db is only the target.
        const config = loadConfig(process.env);
        if (isPostgresUrl(target) || isPostgresUrl(config.db)) throw new AppError("INVALID_PARAMETER", PG_DUMP_ADVICE);
        // The files go where the restored database will look for them: FORMSVC_FILES, else files/ beside it.
        const files = openObjectStore(filesLocation({ files: config.files, db: resolve(target) }), config);
        const restored = await restoreBackup(openObjectStore(backupLocation(config), config), backup, target, files);
        emit(!!opts.json, restored, () =>
          [
            `Restored ${restored.from} into ${restored.db} (${restored.bytes} bytes, integrity ok): ${restored.owners} owners, ${restored.forms} forms, ${restored.submissions} submissions.`,
            `Uploaded files: ${restored.files} put back into ${restored.filesTo}, each matching its sha256.`,
            ...(restored.filesMissing.length
              ? [
                  `Not in the backup (deleted while it was made; their downloads answer 404): ${restored.filesMissing.join(", ")}`,
                ]
              : []),
            `Start it with: ${invocation()} --db ${restored.db} serve`,
          ].join("\n"),
        );
      })
  );
}
