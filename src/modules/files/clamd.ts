import { AppError } from "../../lib/errors";

/** A virus scan of one file, fed as it streams. */
export interface ScanSession {
  write(chunk: Uint8Array): void;
  /** The verdict once every byte is written: clean, or what was found. */
  finish(): Promise<"clean" | { found: string }>;
  abort(): void;
}

export interface Scanner {
  start(): ScanSession;
}

// clamd not answering within this is a 503: a file is never stored unscanned.
const TIMEOUT_MS = 10_000;

/**
 * clamd's INSTREAM over TCP (`tcp://HOST:PORT`) or a unix socket: `zINSTREAM\0`, then chunks of a
 * 4-byte big-endian length and the bytes, then a zero length; clamd answers `stream: OK` or
 * `stream: NAME FOUND`. Fails closed: no answer within 10 s, or a broken connection, is a 503.
 */
export function clamdScanner(address: string): Scanner {
  const target = address.startsWith("/")
    ? { unix: address }
    : (() => {
        const u = new URL(address);
        return { hostname: u.hostname.replace(/^\[|\]$/g, ""), port: Number(u.port) };
      })();
  return {
    start(): ScanSession {
      let reply = "";
      let failed: Error | null = null;
      let settle: (() => void) | null = null;
      const closed = new Promise<void>((resolve) => (settle = resolve));
      const queue: Uint8Array[] = [];
      let socket: Bun.Socket | null = null;
      const send = (bytes: Uint8Array) => {
        if (socket) socket.write(bytes);
        // A copy: the multipart reader frees each chunk once the next is asked for (multipart.ts).
        else queue.push(Buffer.from(bytes));
      };
      const frame = (chunk: Uint8Array) => {
        const length = Buffer.alloc(4);
        length.writeUInt32BE(chunk.byteLength);
        send(length);
        send(chunk);
      };
      const handlers = {
        open(s: Bun.Socket) {
          socket = s;
          for (const bytes of queue.splice(0)) s.write(bytes);
        },
        data(_s: Bun.Socket, data: Buffer) {
          reply += data.toString("latin1");
          if (reply.includes("\0") || reply.includes("\n")) settle?.();
        },
        close() {
          settle?.();
        },
        error(_s: Bun.Socket, e: Error) {
          failed = e;
          settle?.();
        },
        connectError(_s: Bun.Socket, e: Error) {
          failed = e;
          settle?.();
        },
      };
      const connecting = Bun.connect({ ...target, socket: handlers } as Parameters<typeof Bun.connect>[0]).catch(
        (e: Error) => {
          failed = e;
          settle?.();
        },
      );
      send(Buffer.from("zINSTREAM\0"));
      return {
        write: (chunk) => {
          // clamd's StreamMaxLength applies per chunk too: a large chunk goes in pieces of at most 64 KiB.
          for (let at = 0; at < chunk.byteLength; at += 65536) frame(chunk.subarray(at, at + 65536));
        },
        async finish() {
          send(new Uint8Array(4));
          let timer: ReturnType<typeof setTimeout> | undefined;
          const timedOut = new Promise<"timeout">(
            (resolve) => (timer = setTimeout(() => resolve("timeout"), TIMEOUT_MS)),
          );
          const outcome = await Promise.race([closed.then(() => "done" as const), timedOut]);
          clearTimeout(timer);
          await connecting;
          (socket as Bun.Socket | null)?.end();
          const answer = reply.replace(/[\0\r\n]+$/, "").trim();
          if (outcome === "timeout" || failed || !answer) throw unavailable();
          if (/:\s*OK$/.test(answer)) return "clean";
          const found = /:\s*(.+)\s+FOUND$/.exec(answer);
          if (found) return { found: found[1]! };
          throw unavailable();
        },
        abort() {
          void connecting.then(() => (socket as Bun.Socket | null)?.end());
        },
      };
    },
  };
}

const unavailable = () =>
  new AppError("UNAVAILABLE", "the virus scanner did not answer; nothing was stored, retry in a moment", {
    "retry-after": "10",
  });
