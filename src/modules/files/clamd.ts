import { AppError } from "../../lib/errors";

/** A virus scan of one file, fed as it streams. */
export interface ScanSession {
  /** Sends a chunk; resolves once clamd has taken it (so a slow clamd slows the upload, never fills memory). */
  write(chunk: Uint8Array): Promise<void>;
  /** The verdict once every byte is written: clean, or what was found. */
  finish(): Promise<"clean" | { found: string }>;
  abort(): void;
}

export interface Scanner {
  start(): ScanSession;
}

// clamd not answering within this is a 503: a file is never stored unscanned.
const TIMEOUT_MS = 10_000;
// clamd's StreamMaxLength applies per chunk too: a large chunk goes in pieces of at most this.
const PIECE = 65_536;

/**
 * clamd's INSTREAM over TCP (`tcp://HOST:PORT`) or a unix socket: `zINSTREAM\0`, then chunks of a
 * 4-byte big-endian length and the bytes, then a zero length; clamd answers `stream: OK` or
 * `stream: NAME FOUND`. Fails closed: a connection not made, a chunk not taken or no answer within
 * `timeoutMs` (10 s; shorter only in tests), or a broken connection, is a 503.
 */
export function clamdScanner(address: string, timeoutMs = TIMEOUT_MS): Scanner {
  const target = address.startsWith("/")
    ? { unix: address }
    : (() => {
        const u = new URL(address);
        return { hostname: u.hostname.replace(/^\[|\]$/g, ""), port: Number(u.port) };
      })();
  return {
    start(): ScanSession {
      let reply = "";
      let done = false;
      let failed = false;
      let socket: Bun.Socket | null = null;
      // Bytes the socket has not taken yet: Bun's socket.write takes what the kernel will, and drops the rest.
      const pending: Uint8Array[] = [];
      // Woken when the pending bytes are all taken, an answer came, or the connection failed or closed.
      let wake: (() => void) | null = null;
      const notify = () => {
        const w = wake;
        wake = null;
        w?.();
      };
      const flush = () => {
        while (socket && pending.length) {
          const head = pending[0]!;
          const taken = socket.write(head);
          if (taken < head.byteLength) {
            pending[0] = head.subarray(taken);
            return;
          }
          pending.shift();
        }
        if (!pending.length) notify();
      };
      const fail = () => {
        failed = true;
        notify();
      };
      const handlers = {
        open(s: Bun.Socket) {
          socket = s;
          flush();
        },
        drain: flush,
        data(_s: Bun.Socket, data: Buffer) {
          reply += data.toString("latin1");
          if (reply.includes("\0") || reply.includes("\n")) {
            done = true;
            notify();
          }
        },
        close() {
          done = true;
          notify();
        },
        error: fail,
        connectError: fail,
      };
      Bun.connect({ ...target, socket: handlers } as Parameters<typeof Bun.connect>[0]).catch(fail);
      /** Waits until `ready()` holds, or fails with a 503 after timeoutMs or when the connection breaks. */
      const until = async (ready: () => boolean) => {
        const deadline = Date.now() + timeoutMs;
        while (!ready()) {
          if (failed) throw unavailable();
          const left = deadline - Date.now();
          if (left <= 0) throw unavailable();
          let timer: ReturnType<typeof setTimeout> | undefined;
          await new Promise<void>((resolve) => {
            wake = resolve;
            timer = setTimeout(resolve, left);
          });
          clearTimeout(timer);
        }
      };
      const send = async (bytes: Uint8Array[]) => {
        if (done) return;
        pending.push(...bytes);
        flush();
        // A clamd that closed early (a size limit) takes nothing more: its answer is read at finish.
        await until(() => pending.length === 0 || done);
      };
      const frame = (piece: Uint8Array) => {
        const length = Buffer.alloc(4);
        length.writeUInt32BE(piece.byteLength);
        return [length, piece];
      };
      const started = send([Buffer.from("zINSTREAM\0")]);
      // Its failure is met by the write or finish that awaits it; an upload refused before either must not leave it unhandled.
      started.catch(() => {});
      const end = () => (socket as Bun.Socket | null)?.end();
      return {
        async write(chunk) {
          await started;
          for (let at = 0; at < chunk.byteLength; at += PIECE) await send(frame(chunk.subarray(at, at + PIECE)));
        },
        async finish() {
          try {
            await started;
            await send([new Uint8Array(4)]);
            await until(() => done);
          } finally {
            end();
          }
          const answer = reply.replace(/[\0\r\n]+$/, "").trim();
          if (/:\s*OK$/.test(answer)) return "clean";
          const found = /:\s*(.+)\s+FOUND$/.exec(answer);
          if (found) return { found: found[1]! };
          throw unavailable();
        },
        abort() {
          failed = true;
          pending.length = 0;
          end();
          notify();
        },
      };
    },
  };
}

const unavailable = () =>
  new AppError("UNAVAILABLE", "the virus scanner did not answer; nothing was stored, retry in a moment", {
    "retry-after": "10",
  });
