import { connect, type Socket } from "node:net";

/**
 * A POST written by hand on its own connection, as a slow or hostile client sends it: the body goes
 * out piece by piece when the test says (chunked, unless a Content-Length header is given), and the
 * answer is collected as it comes, so a test can see an answer that arrives while the body is still open.
 */
export interface RawPost {
  /** Sends the next piece of the body (in chunked framing when the post is chunked). */
  write(bytes: Uint8Array | string): void;
  /** Ends a chunked body. */
  end(): void;
  /** Bytes of the body written so far. */
  sent(): number;
  /** Resolves with the answer's status once its head has arrived, or null if `ms` pass first. */
  status(ms?: number): Promise<number | null>;
  /** Everything received so far, as text. */
  received(): string;
  /** Resolves when the connection has closed (with the client's socket error, if any). */
  closed(): Promise<string | null>;
  /** Whether the connection is still open. */
  open(): boolean;
  destroy(): void;
}

export function rawPost(url: string, path: string, headers: Record<string, string>): Promise<RawPost> {
  const { hostname, port, host } = new URL(url);
  const chunked = !Object.keys(headers).some((h) => h.toLowerCase() === "content-length");
  return new Promise((resolve, reject) => {
    const socket: Socket = connect(Number(port), hostname);
    let text = "";
    let sent = 0;
    let error: string | null = null;
    let isOpen = true;
    const closed = new Promise<string | null>((done) =>
      socket.on("close", () => {
        isOpen = false;
        done(error);
      }),
    );
    socket.on("data", (d) => (text += d.toString("latin1")));
    socket.on("error", (e) => (error = e.message));
    socket.once("connect", () => {
      const head = Object.entries({ Host: host, ...headers, ...(chunked ? { "Transfer-Encoding": "chunked" } : {}) })
        .map(([k, v]) => `${k}: ${v}\r\n`)
        .join("");
      socket.write(`POST ${path} HTTP/1.1\r\n${head}\r\n`);
      resolve({
        write(bytes) {
          if (!isOpen || socket.destroyed) return;
          const data = typeof bytes === "string" ? Buffer.from(bytes) : Buffer.from(bytes);
          sent += data.byteLength;
          socket.write(
            chunked
              ? Buffer.concat([Buffer.from(`${data.byteLength.toString(16)}\r\n`), data, Buffer.from("\r\n")])
              : data,
          );
        },
        end() {
          if (chunked && isOpen) socket.write("0\r\n\r\n");
        },
        sent: () => sent,
        async status(ms = 10_000) {
          const until = Date.now() + ms;
          while (Date.now() < until) {
            const m = /^HTTP\/1\.1 (\d{3})/.exec(text);
            if (m) return Number(m[1]);
            if (!isOpen) return null;
            await Bun.sleep(10);
          }
          return null;
        },
        received: () => text,
        closed: () => closed,
        open: () => isOpen,
        destroy: () => socket.destroy(),
      });
    });
    socket.once("error", reject);
  });
}
