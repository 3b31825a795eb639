import { describe, expect, test } from "bun:test";
import { exportProgress } from "../../src/cli/progress";

/** A stderr that keeps what is written, a terminal or not, and a clock the test moves. */
function stderr(isTTY: boolean) {
  const written: string[] = [];
  let ms = 0;
  return {
    out: { isTTY, write: (text: string) => written.push(text) },
    written,
    now: () => ms,
    advance: (by: number) => (ms += by),
  };
}

describe("export progress", () => {
  test("in a log: a line per 100,000 rows for each pass, then the final count", () => {
    const { out, written, now } = stderr(false);
    const progress = exportProgress(250_000, out, now);
    for (let rows = 1_000; rows <= 250_000; rows += 1_000) progress.update(rows, "fields");
    for (let rows = 1_000; rows <= 250_000; rows += 1_000) progress.update(rows, "rows");
    progress.done("exported 250000 submission(s) of frm_x to x.csv");
    expect(written).toEqual([
      "reading field names: 100000 of 250000 rows (40%)\n",
      "reading field names: 200000 of 250000 rows (80%)\n",
      "exporting: 100000 of 250000 rows (40%)\n",
      "exporting: 200000 of 250000 rows (80%)\n",
      "exported 250000 submission(s) of frm_x to x.csv\n",
    ]);
  });

  test("on a terminal: one line rewritten in place, at most every 200 ms, cleared for the final count", () => {
    const { out, written, now, advance } = stderr(true);
    const progress = exportProgress(3_000, out, now);
    progress.update(1_000, "rows");
    progress.update(2_000, "rows");
    advance(250);
    progress.update(3_000, "rows");
    progress.done("exported 3000 submission(s) of frm_x");
    expect(written).toEqual([
      "\r\x1b[Kexporting: 1000 of 3000 rows (33%)",
      "\r\x1b[Kexporting: 3000 of 3000 rows (100%)",
      "\r\x1b[Kexported 3000 submission(s) of frm_x\n",
    ]);
    expect(written.join("").split("\n").length).toBe(2);
  });

  test("a form counted empty shows no percentage, and rows beyond the count (stored meanwhile) never pass 100%", () => {
    const { out, written, now } = stderr(false);
    exportProgress(0, out, now).update(100_000, "rows");
    exportProgress(90_000, out, now).update(100_000, "rows");
    expect(written).toEqual(["exporting: 100000 of 0 rows\n", "exporting: 100000 of 90000 rows (100%)\n"]);
  });
});
