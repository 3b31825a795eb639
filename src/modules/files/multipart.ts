import { unreadableBody } from "../../http/body";
import { AppError } from "../../lib/errors";
import { MAX_FIELDS, tooManyFields } from "../../lib/sent-fields";

/** One part's headers: its field name, the file name when it is a file, and its declared type. */
export interface PartHead {
  name: string;
  /** Present for a file part (`filename=` given, even empty); a file input left empty sends `""`. */
  filename?: string;
  contentType: string;
}

// How many parts are read before the reader lets the event loop turn.
const PARTS_PER_TURN = 64;
// A part's headers past this are no browser's: refused, never buffered on.
const MAX_HEAD_BYTES = 16 * 1024;
const CRLF2 = Buffer.from("\r\n\r\n");
const invalid = (message: string) => new AppError("INVALID_BODY", message);

/** The boundary of a `multipart/form-data` Content-Type; 400 without one. */
export function boundaryOf(contentType: string): string {
  const m = /;\s*boundary=(?:"([^"]{1,70})"|([^;\s"]{1,70}))/i.exec(contentType);
  if (!m) throw invalid("a multipart/form-data body needs a boundary in its Content-Type");
  return m[1] ?? m[2]!;
}

/** A quoted or bare parameter of a header, as browsers write them (`"` and line breaks percent-encoded). */
function param(header: string, key: string): string | undefined {
  const m = new RegExp(`;\\s*${key}\\s*=\\s*(?:"((?:[^"\\\\]|\\\\.)*)"|([^;\\s]*))`, "i").exec(header);
  if (!m) return undefined;
  const raw = m[1] !== undefined ? m[1].replace(/\\(.)/g, "$1") : m[2]!;
  return raw.replace(/%22/g, '"').replace(/%0D/gi, "\r").replace(/%0A/gi, "\n");
}

/** RFC 5987 `filename*=UTF-8''…`, when a client sends it. */
function extendedParam(header: string, key: string): string | undefined {
  const m = new RegExp(`;\\s*${key}\\*\\s*=\\s*UTF-8''([^;\\s]*)`, "i").exec(header);
  if (!m) return undefined;
  try {
    return decodeURIComponent(m[1]!);
  } catch {
    return undefined;
  }
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

function parseHead(bytes: Buffer): PartHead {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw invalid("a part's headers are not UTF-8");
  }
  let disposition = "";
  let contentType = "application/octet-stream";
  for (const line of text.split("\r\n")) {
    const colon = line.indexOf(":");
    if (colon < 0) continue;
    const key = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (key === "content-disposition") disposition = value;
    else if (key === "content-type") contentType = value;
  }
  if (!/^form-data\b/i.test(disposition)) throw invalid("every part of a multipart/form-data body must be form-data");
  const name = param(disposition, "name");
  if (!name) throw invalid("a field has an empty name: every form field needs a name");
  const filename = extendedParam(disposition, "filename") ?? param(disposition, "filename");
  return { name, contentType, ...(filename !== undefined ? { filename } : {}) };
}

/** The ArrayBuffer under `bytes` when `bytes` is all of it (never a slice of Buffer's shared pool), else null. */
function sole(bytes: Uint8Array): ArrayBuffer | null {
  const buffer = bytes.buffer;
  return buffer instanceof ArrayBuffer && bytes.byteOffset === 0 && bytes.byteLength === buffer.byteLength
    ? buffer
    : null;
}

/**
 * Frees a chunk's memory at once. A request's chunks live outside the collector's heap, which does not
 * count them: left to the collector, a 50 MB upload piled up 20-35 MB of dead chunks before a pass.
 * Detaching the buffer (transfer to an empty one) gives its memory back now.
 */
function freeNow(bytes: Uint8Array) {
  const buffer = sole(bytes);
  if (buffer && !buffer.detached) buffer.transfer(0);
}

/**
 * A streaming reader of a `multipart/form-data` body: parts one at a time, each part's bytes as they
 * arrive, never the whole body in memory (at most a chunk and a boundary's length are held). `next`
 * gives the next part's headers (null after the closing boundary); its bytes must then be read with
 * `body` (or skipped with `skip`) before `next` is called again. A body cut short is a 400.
 */
export class MultipartReader {
  private readonly chunks: AsyncIterator<Uint8Array>;
  private readonly delimiter: Buffer;
  // The body is read as if it began with CRLF, so the first boundary is found as every other is.
  private buffer: Buffer = Buffer.from("\r\n");
  // The memory under `buffer` when it is the reader's alone (a chunk of the request, or a join of two), freed
  // as soon as the reader moves past it: see freeNow.
  private owned: ArrayBuffer | null = null;
  private ended = false;
  private started = false;
  private finished = false;
  /** Bytes read from the request so far. */
  private received = 0;
  /** Bytes of the body's framing read so far: boundaries and parts' headers (they count with the text fields). */
  framing = 0;
  private parts = 0;

  /**
   * `tooLarge` is thrown as soon as the bytes read pass `maxBytes`: every byte counts (empty parts and
   * part headers too), so no body is read more than a chunk past its limit, whatever its shape.
   */
  constructor(
    body: AsyncIterable<Uint8Array>,
    boundary: string,
    private readonly maxBytes: number,
    private readonly tooLarge: () => AppError,
  ) {
    this.chunks = body[Symbol.asyncIterator]();
    this.delimiter = Buffer.from(`\r\n--${boundary}`);
  }

  /** Reads one more chunk into the buffer; false at the end of the body. */
  private async more(): Promise<boolean> {
    if (this.ended) return false;
    const { value, done } = await this.chunks.next().catch((e: unknown) => {
      // A body too slow (408) is said as such; anything else thrown while reading is the body's framing or its client leaving.
      throw e instanceof AppError ? e : unreadableBody();
    });
    if (done) {
      this.ended = true;
      return false;
    }
    this.received += value.byteLength;
    if (this.received > this.maxBytes) throw this.tooLarge();
    const chunk = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
    if (this.buffer.length === 0) {
      this.free();
      this.buffer = chunk;
    } else {
      const joined = Buffer.concat([this.buffer, chunk]);
      this.free();
      freeNow(chunk);
      this.buffer = joined;
    }
    this.owned = sole(this.buffer);
    return true;
  }

  /** Frees the memory under the buffer, once nothing lent from it is still in use. */
  private free() {
    if (this.owned && !this.owned.detached) this.owned.transfer(0);
    this.owned = null;
  }

  /**
   * The current part's bytes up to the next delimiter, as they arrive; the delimiter is consumed. Each
   * chunk is lent: its memory is freed when the next one is asked for, so a caller keeping bytes past
   * that copies them.
   */
  async *body(): AsyncGenerator<Uint8Array> {
    const keep = this.delimiter.length - 1;
    for (;;) {
      const at = this.buffer.indexOf(this.delimiter);
      if (at >= 0) {
        if (at > 0) yield this.buffer.subarray(0, at);
        this.buffer = this.buffer.subarray(at + this.delimiter.length);
        return;
      }
      if (this.buffer.length > keep) {
        yield this.buffer.subarray(0, this.buffer.length - keep);
        this.buffer = Buffer.from(this.buffer.subarray(this.buffer.length - keep));
        this.free();
      }
      if (!(await this.more())) throw invalid("the multipart body ended inside a part (cut short?)");
    }
  }

  /** Reads past the current part's bytes. */
  async skip(): Promise<void> {
    for await (const _ of this.body());
  }

  /** The next part's headers, or null after the closing boundary. */
  async next(): Promise<PartHead | null> {
    if (this.finished) return null;
    if (!this.started) {
      this.started = true;
      await this.skip(); // the preamble
    }
    while (this.buffer.length < 2) if (!(await this.more())) throw invalid("the multipart body ended early");
    if (this.buffer[0] === 0x2d && this.buffer[1] === 0x2d) {
      this.finished = true;
      // The epilogue, read to the end (still counted against the limit): a body read whole is one whose
      // refusal, if the submit then meets one, needs no reading away (body-pace.ts).
      while (await this.more()) this.buffer = Buffer.alloc(0);
      return null;
    }
    if (++this.parts > MAX_FIELDS) throw tooManyFields();
    // Parts already in the buffer are read without a wait: a chunk of thousands of small ones would hold
    // the event loop until its last. Every so many, the other requests (and /healthz) get their turn.
    if (this.parts % PARTS_PER_TURN === 0) await new Promise((turn) => setImmediate(turn));
    for (;;) {
      const end = this.buffer.indexOf(CRLF2);
      if (end >= 0) {
        // After the boundary: optional padding, then CRLF, then the headers.
        const lineEnd = this.buffer.indexOf("\r\n");
        const head = parseHead(this.buffer.subarray(lineEnd + 2, end));
        this.framing += this.delimiter.length + end + 4;
        this.buffer = this.buffer.subarray(end + 4);
        return head;
      }
      if (this.buffer.length > MAX_HEAD_BYTES) throw invalid("a part's headers are too long");
      if (!(await this.more())) throw invalid("the multipart body ended inside a part's headers");
    }
  }
}
