import type { Stage } from "../modules/submissions/export";

/** Where progress goes: stderr, whose `isTTY` says whether a person watches it. */
export interface ProgressOut {
  write(text: string): unknown;
  isTTY?: boolean;
}

// On a terminal the line is rewritten in place, at most this often; a log gets a line per LINE_EVERY rows.
const REDRAW_MS = 200;
const LINE_EVERY = 100_000;
// Back to the start of the line, and blank it (the new text may be shorter).
const CLEAR_LINE = "\r\x1b[K";

/**
 * How far a long export is, on stderr (stdout carries only the data): `update` after each page (an
 * export's Progress), `done` once with the final count. On a terminal one line is rewritten in
 * place; in a file or a pipe (a log) a line every 100,000 rows, so a ten-million-row export logs 100
 * of them (200 for CSV, whose first pass reads the field names).
 */
export function exportProgress(
  total: number,
  out: ProgressOut = process.stderr,
  now: () => number = () => performance.now(),
) {
  const tty = out.isTTY === true;
  const line = (rows: number, stage: Stage) =>
    `${stage === "fields" ? "reading field names" : "exporting"}: ${rows} of ${total} rows${total > 0 ? ` (${Math.min(100, Math.floor((rows / total) * 100))}%)` : ""}`;
  let drawnAt = -Infinity;
  let logged = { rows: 0, stage: "rows" as Stage };
  return {
    update(rows: number, stage: Stage): void {
      if (tty) {
        if (now() - drawnAt < REDRAW_MS) return;
        drawnAt = now();
        out.write(`${CLEAR_LINE}${line(rows, stage)}`);
        return;
      }
      const since = stage === logged.stage ? logged.rows : 0;
      if (Math.floor(rows / LINE_EVERY) === Math.floor(since / LINE_EVERY)) return;
      logged = { rows, stage };
      out.write(`${line(rows, stage)}\n`);
    },
    /** The last line: what was written, and where. */
    done(summary: string): void {
      out.write(`${tty ? CLEAR_LINE : ""}${summary}\n`);
    },
  };
}
