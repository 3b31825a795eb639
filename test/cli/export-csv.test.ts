import { beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { isoTime } from "../../src/lib/clock";
import { newId } from "../../src/lib/ids";
import type { NewSubmission } from "../../src/modules/submissions/model";
import { submitPipeline } from "../../src/services";
import { parseCsv } from "../helpers/csv";
import { useServer } from "../helpers/fixture";
import { runCliAsync, seedOwner, storedData } from "../helpers/harness";

const META = ["browser", "browserVersion", "os", "osVersion", "device", "country", "language", "referrer"];
// Past the first page of the export's reads (1,000 rows): a field first seen on a later page must still be a column.
const ROWS = 2_500;

const server = useServer();
let formId: string;
let key: string;

/** Row i's fields: mostly plain, some odd; two fields first appear on the second and third page. */
function fields(i: number): Record<string, unknown> {
  if (i === 0) return { name: "Ada", note: 'says "hi", then\nleaves, twice\r\n' };
  if (i === 7)
    return { name: "Nested", nested: { a: [1, { b: "x,y" }], c: null }, negative: -3, flag: true, nothing: null };
  if (i === 10) return { 名前: "日本語 ✓ 🎉", emoji: '😀,"', name: "—" };
  if (i === 1_500) return { late: "only here", 'weird "key", with comma': "v" };
  if (i === 2_400) return { "line\nkey": "=HYPERLINK()", name: "+1" };
  return { name: `n${i}`, n: i };
}

/** What a spreadsheet should read in each cell, made from the JSON export without the CSV writer's code. */
function expectedCells(
  items: {
    id: string;
    createdAt: string;
    data: Record<string, unknown> & { _meta: Record<string, unknown> };
    spam: { score: number; reasons: string[] } | null;
  }[],
): string[][] {
  const names: string[] = [];
  for (const { data } of items)
    for (const key of Object.keys(data)) if (key !== "_meta" && !names.includes(key)) names.push(key);
  const text = (v: unknown) => {
    const t = v === null || v === undefined ? "" : typeof v === "string" ? v : JSON.stringify(v);
    return "=+-@\t\r".includes(t[0] ?? "x") ? `'${t}` : t;
  };
  return [
    ["id", "createdAt", ...names, ...META.map((k) => `_meta.${k}`), "spam.score", "spam.reasons"],
    ...items.map(({ id, createdAt, data, spam }) =>
      [
        id,
        createdAt,
        ...names.map((k) => data[k]),
        ...META.map((k) => data._meta[k]),
        spam?.score,
        spam?.reasons.join(" "),
      ].map(text),
    ),
  ];
}

beforeAll(async () => {
  ({ formId, key } = await seedOwner(server));
  const form = await server.services.forms.requireForm(formId);
  const commit = submitPipeline(server.store.sql).commit;
  const start = Date.parse("2026-01-01T00:00:00.000Z");
  const batch: NewSubmission[] = [];
  for (let i = 0; i < ROWS; i++) {
    const json = storedData(fields(i));
    batch.push({
      id: newId("sub"),
      form,
      status: "inbox",
      json,
      meta: JSON.parse(json)._meta,
      email: null,
      createdAt: isoTime(start + i * 1000),
      idempotency: null,
      stages: {},
    });
  }
  expect((await commit(batch)).every((outcome) => outcome === null)).toBe(true);
});

describe("formsvc submissions export --format csv", () => {
  test("has a column for every field in first-seen order, also fields first seen pages later, with nested values, quotes, commas, newlines and unicode intact", async () => {
    const json = await runCliAsync(["submissions", "export", formId, "--format", "json"], { db: server.db });
    const items = JSON.parse(json.stdout);
    expect(items.length).toBe(ROWS);
    const out = join(server.dir, "odd.csv");
    const csv = await runCliAsync(["submissions", "export", formId, "--out", out], { db: server.db });
    expect(csv.code).toBe(0);
    const text = readFileSync(out, "utf8");
    const rows = parseCsv(text);
    const expected = expectedCells(items);
    expect(rows[0]).toEqual(expected[0]!);
    expect(rows[0]).toContain("late");
    expect(rows[0]).toContain("line\nkey");
    expect(rows.length).toBe(ROWS + 1);
    expect(rows).toEqual(expected);
    expect(rows[11]![rows[0]!.indexOf("名前")]).toBe("日本語 ✓ 🎉");
    expect(rows[8]![rows[0]!.indexOf("nested")]).toBe('{"a":[1,{"b":"x,y"}],"c":null}');
    expect(rows[8]![rows[0]!.indexOf("negative")]).toBe("'-3");
    // The HTTP export is the same code: the same bytes.
    expect(await (await server.request(`/api/v1/forms/${formId}/submissions/export`, { key })).text()).toBe(text);
  });

  test("ends with the count of rows written on stderr, to a file or to stdout, and keeps progress lines off stdout", async () => {
    const out = join(server.dir, "count.csv");
    const toFile = await runCliAsync(["submissions", "export", formId, "--out", out], { db: server.db });
    expect(toFile.stderr).toBe(`exported ${ROWS} submission(s) of ${formId} to ${out}\n`);
    const toStdout = await runCliAsync(["submissions", "export", formId, "--format", "json"], { db: server.db });
    expect(toStdout.stderr).toBe(`exported ${ROWS} submission(s) of ${formId}\n`);
    expect(toStdout.stdout.startsWith("[")).toBe(true);
  });
});
