import { downloadPath, filesOf } from "../files/model";
import { listedJson, type ListedSubmission, type StoredSubmission } from "./model";

const META_KEYS = [
  "browser",
  "browserVersion",
  "os",
  "osVersion",
  "device",
  "country",
  "language",
  "referrer",
] as const;

/** Pages of stored submissions as lists show them, oldest first; read again for each pass. */
export type Pages = () => AsyncIterable<ListedSubmission[]>;

const parse = (s: StoredSubmission) =>
  JSON.parse(s.data) as Record<string, unknown> & { _meta?: Record<string, unknown> };

/** What an export is doing: reading the field names (CSV's first pass), or writing rows. */
export type Stage = "fields" | "rows";

/** Told after each page how many rows the stage has done so far. */
export type Progress = (rows: number, stage: Stage) => void;

/** A submission's data with the owner's download `path` beside each file entry; the stored text as it is when it holds no file. */
function withPaths<S extends StoredSubmission>(s: S): S {
  // Most submissions have no file: they are not parsed.
  if (!s.data.includes('"file":"fil_')) return s;
  const data = parse(s);
  // Built anew (never assigned by name): a field named __proto__ stays a field.
  const pathed = Object.fromEntries(
    Object.entries(data).map(([name, value]) => {
      const files = filesOf(value);
      if (!files) return [name, value];
      const listed = files.map((f) => ({ ...f, path: downloadPath(s.formId, s.id, f.file) }));
      return [name, Array.isArray(value) ? listed : listed[0]];
    }),
  );
  return { ...s, data: JSON.stringify(pathed) };
}

/** A CSV cell of a file field: each file's name and download path, one a line. */
const fileCell = (s: StoredSubmission, value: unknown): string | null =>
  filesOf(value)
    ?.map((f) => `${f.name} ${downloadPath(s.formId, s.id, f.file)}`)
    .join("\n") ?? null;

/** The API's item shape (a file entry with its download `path`), one JSON array, written a page at a time: one chunk per page. */
export async function* exportJson(pages: Pages, progress: Progress = () => {}): AsyncGenerator<string> {
  let rows = 0;
  yield "[";
  for await (const page of pages()) {
    yield `${rows === 0 ? "\n" : ",\n"}${page.map((s) => listedJson(withPaths(s))).join(",\n")}`;
    progress((rows += page.length), "rows");
  }
  yield rows === 0 ? "]\n" : "\n]\n";
}

// A spreadsheet runs a cell that starts with one of these as a formula (CSV injection).
const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

/** One CSV cell: formulas neutralised with a leading quote, quoted when it holds separators (RFC 4180). */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return "";
  let text = typeof value === "string" ? value : JSON.stringify(value);
  if (FORMULA_START.test(text)) text = `'${text}`;
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** The spam checks' verdict as CSV cells: the score, and the reasons separated by spaces; empty for submissions from before. */
function spamCells(spam: string | null): string {
  if (spam === null) return ",";
  const v = JSON.parse(spam) as { score: number; reasons: string[] };
  return `${csvCell(v.score)},${csvCell(v.reasons.join(" "))}`;
}

// Rows go out in chunks of about this many characters, not a page at a time: one wide submission (a
// post can name thousands of fields) widens every row, and a page of 500 such rows held ~600 MB of
// concatenated cells and the event loop for half a second (~100 MB and 44 ms with these chunks).
const CHUNK_CHARS = 256 * 1024;

/**
 * CSV: id, createdAt, every data field seen (first-seen order; a file as its name and download
 * path), then `_meta.*`, then `spam.score` and `spam.reasons`. A first pass
 * collects the field names, a second writes rows in chunks of CHUNK_CHARS; both read a page at a
 * time, so memory stays flat. The first pass yields an empty chunk after each page, so a server can let
 * other requests run between pages before the header line is known.
 */
export async function* exportCsv(pages: Pages, progress: Progress = () => {}): AsyncGenerator<string> {
  const fields = new Set<string>();
  let read = 0;
  for await (const page of pages()) {
    for (const s of page) for (const key of Object.keys(parse(s))) if (key !== "_meta") fields.add(key);
    progress((read += page.length), "fields");
    yield "";
  }
  const columns = [...fields];
  yield `${["id", "createdAt", ...columns, ...META_KEYS.map((k) => `_meta.${k}`), "spam.score", "spam.reasons"].map(csvCell).join(",")}\r\n`;
  let rows = 0;
  for await (const page of pages()) {
    // Built by concatenation: gathering the cells in arrays made three arrays a row for the collector.
    let chunk = "";
    for (const s of page) {
      if (chunk.length >= CHUNK_CHARS) {
        yield chunk;
        // An empty chunk: the server lets other requests run before the next (http/stream.ts), which
        // a client reading as fast as loopback allows would otherwise never leave room for.
        yield "";
        chunk = "";
      }
      const data = parse(s);
      let line = `${csvCell(s.id)},${csvCell(s.createdAt)}`;
      // Own fields only: a row without `constructor` must not print Object.prototype's.
      for (const column of columns) {
        const value = Object.hasOwn(data, column) ? data[column] : undefined;
        line += `,${csvCell(fileCell(s, value) ?? value)}`;
      }
      const meta = data._meta;
      for (const key of META_KEYS) line += `,${csvCell(meta?.[key])}`;
      line += `,${spamCells(s.spam)}`;
      chunk += `${line}\r\n`;
    }
    yield chunk;
    progress((rows += page.length), "rows");
  }
}
