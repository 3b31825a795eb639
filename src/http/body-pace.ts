import { AppError } from "../lib/errors";

/** The window a body's rate is measured over: it must bring `minRate` bytes a second in every one. */
const BODY_WINDOW_S = 30;
/** After a refusal, what is read and dropped of a body still coming, so the client hears the answer. */
const LINGER_BYTES = 16 * 1024 * 1024;
const LINGER_MS = 10_000;
// A body that says it is at most this long, and that no reader touched, is left to Bun: it has it,
// or drains it itself, and the connection stays open for the next request.
const SMALL_BODY = 64 * 1024;
// Bun's idle timeout (Elysia's 30 s) is not reset by a body's bytes: a read running past this has it lifted, and
// the rate rule below takes its place; it is set again when the read ends.
const LIFT_AFTER_S = 2;
const IDLE_TIMEOUT_S = 30;
// A body that arrives as fast as the network allows is read this much at a time before the event loop
// turns: twenty uploads at loopback speed would otherwise answer nothing else (/healthz) for a quarter second.
const BYTES_PER_TURN = 256 * 1024;
const nextTurn = () => new Promise((turn) => setImmediate(turn));

export interface BodyPaceOptions {
  /** FORMSVC_MIN_BODY_RATE: the bytes a second a body must keep coming at. */
  minRate: number;
  /** FORMSVC_MAX_UPLOADS_PER_CLIENT: multipart bodies one client address (IPv6 by /64) may have in flight. */
  maxUploadsPerClient: number;
  /** Sets Bun's idle timeout of a request's connection in seconds (0: none). */
  idleTimeout(request: Request, seconds: number): void;
}

const tooSlow = (minRate: number) =>
  new AppError(
    "BODY_TOO_SLOW",
    `the request body came slower than ${minRate} bytes a second over ${BODY_WINDOW_S} s (FORMSVC_MIN_BODY_RATE); nothing was stored`,
  );

/** One body being read: its bytes per second over the last window, and the way to end its wait. */
class Read {
  done = false;
  lifted = false;
  /** Whether the reader is waiting for the client now (not for the disk, the store or clamd, which are not the client's pace). */
  waiting = false;
  ticks = 0;
  private bytesThisTick = 0;
  private readonly perTick = new Array<number>(BODY_WINDOW_S).fill(0);
  private inWindow = 0;
  private readonly stop = Promise.withResolvers<never>();

  constructor(
    readonly request: Request,
    /** The body's chunks, kept past a refusal so its rest can be read away. */
    readonly chunks: AsyncIterator<Uint8Array> | null,
    /** A whole-body read in flight (a body short enough to take in one go). */
    readonly whole: Promise<ArrayBuffer> | null,
  ) {
    // Nobody may be waiting when it is ended: an unobserved rejection is not an error here.
    this.stop.promise.catch(() => {});
  }

  count(bytes: number) {
    this.bytesThisTick += bytes;
  }

  /** One second passed: whether the last window brought at least `perWindow` bytes. A second in which the server asked for nothing counts for nothing. */
  tick(perWindow: number): boolean {
    if (!this.waiting && this.bytesThisTick === 0) return true;
    const slot = this.ticks++ % BODY_WINDOW_S;
    this.inWindow += this.bytesThisTick - this.perTick[slot]!;
    this.perTick[slot] = this.bytesThisTick;
    this.bytesThisTick = 0;
    return this.ticks < BODY_WINDOW_S || this.inWindow >= perWindow;
  }

  end(error: AppError) {
    this.stop.reject(error);
  }

  /** `pending` (the client's next bytes), unless the read is ended first (too slow); the caller says when it has them (`waiting`). */
  race<T>(pending: Promise<T>): Promise<T> {
    this.waiting = true;
    return Promise.race([pending, this.stop.promise]);
  }
}

/**
 * How every request body is taken in: each read is watched, and one that brings less than
 * FORMSVC_MIN_BODY_RATE bytes a second over any 30 s is ended with 408 BODY_TOO_SLOW, while one
 * that keeps that rate is read however long it takes (Bun's own idle timeout, which a body's bytes
 * do not reset, would cut a steady slow upload at 30 s). A refusal answered while a body is still
 * coming is sent at once and then waits, reading the rest away (up to 16 MiB or 10 s), so a client
 * that writes before it reads hears it rather than a reset connection.
 */
export function createBodyPace({ minRate, maxUploadsPerClient, idleTimeout }: BodyPaceOptions) {
  const perWindow = minRate * BODY_WINDOW_S;
  const uploading = new Map<string, number>();
  const reads = new WeakMap<Request, Read>();
  const watched = new Set<Read>();
  let ticker: ReturnType<typeof setInterval> | undefined;

  function tick() {
    for (const read of watched) {
      if (!read.tick(perWindow)) {
        watched.delete(read);
        read.end(tooSlow(minRate));
      } else if (!read.lifted && read.ticks >= LIFT_AFTER_S) {
        read.lifted = true;
        idleTimeout(read.request, 0);
      }
    }
    if (watched.size === 0) {
      clearInterval(ticker);
      ticker = undefined;
    }
  }

  function watch(read: Read) {
    reads.set(read.request, read);
    watched.add(read);
    // One timer for every read, and none while nothing is read: a request's read adds no timer of its own.
    if (!ticker) {
      ticker = setInterval(tick, 1000);
      ticker.unref();
    }
  }

  function finish(read: Read) {
    read.done = true;
    watched.delete(read);
    if (read.lifted) idleTimeout(read.request, IDLE_TIMEOUT_S);
  }

  /** Reads and drops what is left of a body after its refusal: at most LINGER_BYTES, for at most LINGER_MS. */
  async function readAway(request: Request): Promise<void> {
    const read = reads.get(request);
    if (read) watched.delete(read);
    const deadline = Bun.sleep(LINGER_MS).then(() => null);
    if (read?.whole) {
      await Promise.race([read.whole.catch(() => null), deadline]);
      return;
    }
    const chunks = read?.chunks ?? (request.body as AsyncIterable<Uint8Array> | null)?.[Symbol.asyncIterator]();
    if (!chunks) return;
    for (let bytes = 0; bytes <= LINGER_BYTES;) {
      const next = await Promise.race([chunks.next(), deadline]).catch(() => null);
      if (!next || next.done) return;
      bytes += next.value.byteLength;
    }
  }

  return {
    /**
     * The chunks of a request's body as they come; the wait for one is ended with 408 BODY_TOO_SLOW
     * when the body falls under the rate. Leaving the loop early (a refusal) keeps the rest unread for `answer`.
     */
    chunks(request: Request): AsyncIterable<Uint8Array> {
      let read: Read | undefined;
      let sinceTurn = 0;
      // Made on the first chunk asked for: a reader that refuses before it reads leaves the body untouched.
      const start = () => {
        const body = request.body as AsyncIterable<Uint8Array> | null;
        read = new Read(request, (body ?? (async function* () {})())[Symbol.asyncIterator](), null);
        watch(read);
        return read;
      };
      return {
        [Symbol.asyncIterator]: () => ({
          async next() {
            const current = read ?? start();
            try {
              const next = await current.race(current.chunks!.next());
              current.waiting = false;
              if (next.done) finish(current);
              else {
                current.count(next.value.byteLength);
                sinceTurn += next.value.byteLength;
                if (sinceTurn >= BYTES_PER_TURN) {
                  sinceTurn = 0;
                  await nextTurn();
                }
              }
              return next;
            } catch (e) {
              watched.delete(current);
              throw e;
            }
          },
          // The reader left (a refusal): its pace no longer matters. Not passed on to the body: cancelling it
          // would leave nothing for `answer` to read away.
          return: async () => {
            if (read) watched.delete(read);
            return { done: true as const, value: undefined };
          },
        }),
      };
    },

    /** The whole body of a request that says its length, at most one window's bytes at the rate (so the rule is: all of it within the window). */
    async whole(request: Request): Promise<ArrayBuffer> {
      const read = new Read(request, null, request.arrayBuffer());
      watch(read);
      try {
        const bytes = await read.race(read.whole!);
        read.waiting = false;
        finish(read);
        return bytes;
      } catch (e) {
        watched.delete(read);
        throw e;
      }
    },

    /**
     * Runs `read` (a multipart body's) holding one of its client's upload slots: while a client
     * (addressBucket) has FORMSVC_MAX_UPLOADS_PER_CLIENT bodies in flight, another is a 429, unread.
     */
    async uploading<T>(client: string, read: () => Promise<T>): Promise<T> {
      const held = uploading.get(client) ?? 0;
      if (held >= maxUploadsPerClient)
        throw new AppError(
          "RATE_LIMITED",
          `at most ${maxUploadsPerClient} uploads from one address at once (FORMSVC_MAX_UPLOADS_PER_CLIENT); send this one when another has finished`,
          { "retry-after": "1" },
        );
      uploading.set(client, held + 1);
      try {
        return await read();
      } finally {
        const left = uploading.get(client)! - 1;
        if (left === 0) uploading.delete(client);
        else uploading.set(client, left);
      }
    },

    /** Whether a body that says its length may be read in one go: short enough that the rate rule reads "all of it within one window". */
    fitsOneWindow: (length: number) => length <= perWindow,

    /**
     * The answer to a request (a page, or a value sent as JSON) as a Response sent at once, when its
     * body is still coming (no reader took it to its end, and it is not a short one Bun holds): the
     * connection stays open while the rest is read away, then closes. Null when the answer needs no
     * such care, and Elysia sends `value` as it would.
     */
    answer(
      request: Request,
      set: { status?: number | string; headers: Record<string, unknown> },
      value: unknown,
    ): Response | null {
      if (!request.body || reads.get(request)?.done) return null;
      const declared = request.headers.get("content-length");
      if (!reads.has(request) && declared !== null && Number(declared) <= SMALL_BODY) return null;
      const page = typeof value === "string";
      const bytes = Buffer.from(page ? value : JSON.stringify(value));
      const headers: Record<string, string> = { ...(set.headers as Record<string, string>), connection: "close" };
      if (!page) headers["content-type"] = "application/json";
      const stream = new ReadableStream({
        type: "direct",
        async pull(controller: { write(b: Uint8Array): void; flush(): unknown; close(): void }) {
          controller.write(bytes);
          await controller.flush();
          idleTimeout(request, 0);
          await readAway(request);
          controller.close();
        },
      } as unknown as UnderlyingDefaultSource);
      return new Response(stream, { status: Number(set.status ?? 200), headers });
    },
  };
}

export type BodyPace = ReturnType<typeof createBodyPace>;
