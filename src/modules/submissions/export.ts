import { submissionJson, type StoredSubmission } from "./model";

const META_KEYS = ["browser", "browserVersion", "os", "osVersion", "device", "country", "language", "referrer"] as const;

/** Pages of stored submissions, oldest first; read again for each pass. */
export type Pages = () => AsyncIterable<StoredSubmission[]>;

const parse = (s: StoredSubmission) => JSON.parse(s.data) as Record<string, unknown> & { _meta?: Record<string, unknown> };

/** Told how many rows have been written so far, after each page. */
export type Progress = (rowsWritten: number) => void;

/** The API's item shape, one JSON array, written a page at a time: one chunk per page. */
export async function* exportJson(pages: Pages, progress: Progress = () => {}): AsyncGenerator<string> {
  let rows = 0;
  yield "[";
  for await (const page of pages()) {
    yield `${rows === 0 ? "\n" : ",\n"}${page.map(submissionJson).join(",\n")}`;
    progress((rows += page.length));
  }
  yield rows === 0 ? "]\n" : "\n]\n";
}

// A spreadsheet runs a cell that starts with one of these as a formula (CSV injection).
const FORMULA_START = /^[=+\-@\t\r]/;

/** One CSV cell: formulas neutralised with a leading quote, quoted when it holds separators (RFC 4180). */
export function csvCell(value: unknown): string {
  let text = value === null || value === undefined ? "" : typeof value === "string" ? value : JSON.stringify(value);
  if (FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/**
 * CSV: id, createdAt, every data field seen (first-seen order), then `_meta.*`. A first pass
 * collects the field names, a second writes rows, one chunk per page; both a page at a time, so
 * memory stays flat. The first pass yields an empty chunk after each page, so a server can let
 * other requests run between pages before the header line is known.
 */
export async function* exportCsv(pages: Pages, progress: Progress = () => {}): AsyncGenerator<string> {
  const fields = new Set<string>();
  for await (const page of pages()) {
    for (const s of page) for (const key of Object.keys(parse(s))) if (key !== "_meta") fields.add(key);
    yield "";
  }
  const columns = [...fields];
  const line = (cells: unknown[]) => `${cells.map(csvCell).join(",")}\r\n`;
  yield line(["id", "createdAt", ...columns, ...META_KEYS.map((k) => `_meta.${k}`)]);
  let rows = 0;
  for await (const page of pages()) {
    let chunk = "";
    for (const s of page) {
      const data = parse(s);
      chunk += line([s.id, s.createdAt, ...columns.map((c) => data[c]), ...META_KEYS.map((k) => data._meta?.[k])]);
    }
    yield chunk;
    progress((rows += page.length));
  }
}
