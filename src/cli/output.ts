/** Prints JSON alone (for scripts) or text lines (for people) on stdout. */
export function emit(json: boolean, value: unknown, text: () => string): void {
  process.stdout.write(json ? `${JSON.stringify(value, null, 2)}\n` : `${text()}\n`);
}

/** A plain aligned table; empty cells as "-". */
export function table(headers: string[], rows: (string | number | boolean | null | undefined)[][]): string {
  const cells = [
    headers,
    ...rows.map((r) => r.map((c) => (c === null || c === undefined || c === "" ? "-" : String(c)))),
  ];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? "").length)));
  return cells
    .map((r) =>
      r
        .map((c, i) => (c ?? "").padEnd(widths[i]!))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

/** Key: value lines, aligned. */
export function fields(pairs: [string, unknown][]): string {
  const width = Math.max(...pairs.map(([k]) => k.length));
  return pairs
    .map(([k, v]) => `${`${k}:`.padEnd(width + 2)}${v === null || v === undefined || v === "" ? "-" : String(v)}`)
    .join("\n");
}

/** Text on one line, its control characters (line breaks included) spaces: submitted data is untrusted and must not drive the terminal. */
export const oneLine = (text: string): string => text.replace(/[\u0000-\u001f\u007f-\u009f]+/g, " ");

/** Fields as `name=value` on one line (`oneLine`), at most `max` characters (… when cut). */
export function preview(fields: Record<string, unknown>, max: number): string {
  const text = oneLine(
    Object.entries(fields)
      .map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`)
      .join(" "),
  );
  const chars = [...text];
  return chars.length > max ? `${chars.slice(0, max - 1).join("")}…` : text;
}
