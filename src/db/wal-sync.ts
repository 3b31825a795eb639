import { fdatasync, fstatSync, openSync, closeSync, statSync } from "node:fs";

/**
 * Makes committed transactions durable without holding the event loop: `sync()` resolves once an
 * fdatasync of the write-ahead log, started after the call, has finished. Calls that arrive while
 * one runs share the next one. The sync runs on Bun's thread pool, so requests are served while
 * the disk works; with `synchronous = FULL` SQLite would make the same sync inside COMMIT, on the
 * event loop.
 *
 * Paired with `synchronous = NORMAL`, this is FULL's durability: in WAL mode NORMAL still syncs
 * the log before each checkpoint and the database after it, and FULL adds exactly one sync of the
 * log after each commit (https://sqlite.org/pragma.html#pragma_synchronous). A writer is answered
 * only after that sync, here as there.
 */
export function walSync(databasePath: string): { sync(): Promise<void>; close(): Promise<void> } {
  const path = `${databasePath}-wal`;
  let fd: number | null = null;
  // The sync on the disk now, and the one that will follow it for those who asked meanwhile.
  let running: Promise<void> | null = null;
  let queued: Promise<void> | null = null;

  // The log exists once something was committed; a checkpoint that truncates it keeps the file.
  // Opened again if it was ever replaced (same path, another file), so the sync reaches the live one.
  const logFd = (): number => {
    if (fd !== null && fstatSync(fd).ino === statSync(path).ino) return fd;
    if (fd !== null) closeSync(fd);
    return (fd = openSync(path, "r"));
  };

  const start = (): Promise<void> => {
    const done = new Promise<void>((resolve, reject) => fdatasync(logFd(), (e) => (e ? reject(e) : resolve())));
    running = done;
    const clear = () => {
      if (running === done) running = null;
    };
    done.then(clear, clear);
    return done;
  };

  return {
    sync() {
      if (!running) return start();
      // One already on the disk may have started before the caller's commit: wait for the next.
      return (queued ??= running.then(
        () => ((queued = null), start()),
        () => ((queued = null), start()),
      ));
    },
    async close() {
      // A sync still on the disk finishes on the descriptor it was given.
      await Promise.allSettled([queued, running]);
      if (fd !== null) closeSync(fd);
      fd = null;
    },
  };
}
