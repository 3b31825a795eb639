import { beforeAll, describe, expect, test } from "bun:test";
import { OPERATOR } from "../../src/lib/principal";
import { personalTeamId } from "../../src/lib/rights";
import { useServer } from "../helpers/fixture";
import { seedForm, seedKey } from "../helpers/harness";

// One query table, asked over HTTP of the real server: the same answers on SQLite (FTS5) and
// PostgreSQL (tsvector), as each test pass runs it on its engine.
const server = useServer({ config: { rateLimit: 100_000 } });
const a = server.seed("a@example.com");
const b = server.seed("b@example.com");

/** Submission ids by name, in the order they were stored. */
const ids: Record<string, string> = {};
let formA2 = "";
let between = "";

const search = (key: string, params: Record<string, string>) =>
  server.send("GET", `/submissions/search?${new URLSearchParams(params)}`, key);

/** The names (keys of `ids`) of what a search of `q` found, in order. */
async function found(key: string, params: Record<string, string>): Promise<string[]> {
  const res = await search(key, params);
  expect({ q: params.q, status: res.status }).toEqual({ q: params.q, status: 200 });
  const byId = new Map(Object.entries(ids).map(([name, id]) => [id, name]));
  return res.body.submissions.map((s: { id: string }) => byId.get(s.id) ?? s.id);
}

async function store(name: string, key: string, formId: string, data: Record<string, unknown>) {
  const res = await server.submit(key, formId, data);
  expect(res.status).toBe(200);
  ids[name] = res.body.submissionId;
}

beforeAll(async () => {
  formA2 = (await seedForm(server, "a@example.com", { name: "Second" })).id;
  await store("hans", a.key, a.formId, {
    name: "Hans Müller",
    message: "I would like to order the blue widget",
    email: "hans@example.com",
  });
  await store("anna", a.key, a.formId, {
    name: "Anna Schmidt",
    message: "Question about the red widgets and delivery",
  });
  await store("taro", a.key, a.formId, {
    name: "Yamada Taro",
    message: "東京都に住んでいます。配送について質問があります",
  });
  await Bun.sleep(5);
  between = new Date().toISOString();
  await Bun.sleep(5);
  await store("jose", a.key, a.formId, {
    name: "José Núñez",
    message: "Café order: two espresso machines",
    n: 42,
    street: "Große Straße 5",
  });
  await store("peter", a.key, formA2, { name: "Peter MULLER", city: "Zürich", message: ["blue", "sky thinking"] });
  await store("other", b.key, b.formId, { name: "Hans Müller", message: "blue widget from team B" });
  // The inbox's state, tags and assignee, for the filters.
  const triage = async (formId: string, name: string, change: Record<string, unknown>, key = a.key) =>
    expect((await server.send("PATCH", `/forms/${formId}/submissions/${ids[name]}`, key, change)).status).toBe(200);
  await triage(a.formId, "hans", { state: "open", tags: ["vip"], assignee: "a@example.com" });
  await triage(a.formId, "jose", { state: "done", tags: ["vip", "billing"] });
  await triage(formA2, "peter", { tags: ["billing"] });
  await triage(b.formId, "other", { state: "open", tags: ["vip"], assignee: "b@example.com" }, b.key);
});

const TABLE: [q: string, expected: string[]][] = [
  ["muller", ["peter", "hans"]],
  ["MÜLLER", ["peter", "hans"]],
  ["Muller Hans", ["hans"]],
  ["widget", ["hans"]],
  ["widget*", ["anna", "hans"]],
  ["wid*", ["anna", "hans"]],
  ['"blue widget"', ["hans"]],
  ['"widget blue"', []],
  ['"order the blue"', ["hans"]],
  ["blue", ["peter", "hans"]],
  ["blue -sky", ["hans"]],
  ['blue -"sky thinking"', ["hans"]],
  ["widget* -red", ["hans"]],
  ["name:muller", ["peter", "hans"]],
  ["message:muller", []],
  ["NAME:hans", ["hans"]],
  ['name:"hans muller"', ["hans"]],
  ['message:"hans muller"', []],
  ["city:zurich", ["peter"]],
  ["city:zur*", ["peter"]],
  ["name:zurich", []],
  ["blue -name:peter", ["hans"]],
  ["blue -message:sky", ["hans"]],
  ["muller -name:hans", ["peter"]],
  ["muller -message:hans", ["peter", "hans"]],
  ["name:mul* -city:zurich", ["hans"]],
  ["東京", ["taro"]],
  ["東京都", ["taro"]],
  ["配送", ["taro"]],
  ["jose", ["jose"]],
  ["nunez cafe", ["jose"]],
  ["n:42", ["jose"]],
  ["grosse STRASSE", ["jose"]],
  ["street:straße", ["jose"]],
  ["hans@example.com", ["hans"]],
  ["example.org", []],
  ["nothing-like-this", []],
  // What FTS5 or tsquery would take as syntax is words here.
  ["NEAR(blue widget)", []],
  ["NEAR(order, widget)", []],
  ["NEAR widget", []],
  ["widget NEAR/2 blue", []],
  ["blue OR sky", []],
  ["blue AND widget", []],
  ["^blue", ["peter", "hans"]],
  ["blue | sky", ["peter"]],
  ["words:blue", []],
  ["fielded:blue", []],
  ["{name}:hans", ["hans"]],
  ["'; DROP TABLE submissions; --", []],
  ["blue\u0000", ["peter", "hans"]],
  ["blue !sky", ["peter"]],
  ["name: hans", []],
  ["name:hans:muller", ["hans"]],
];

// Stands for the second form's id, known once it is made.
const FORM_A2 = "$formA2";

// The filters, with words and without (newest first): beside the words, never instead of the caller's forms.
const FILTERS: [params: Record<string, string>, expected: string[]][] = [
  [{ q: "muller", state: "open" }, ["hans"]],
  [{ q: "muller", state: "new" }, ["peter"]],
  [{ state: "new" }, ["peter", "taro", "anna"]],
  [{ q: "", state: "done" }, ["jose"]],
  [{ tag: "vip" }, ["jose", "hans"]],
  [{ q: "order", tag: "vip" }, ["jose", "hans"]],
  [{ q: "muller", tag: "billing" }, ["peter"]],
  [{ tag: "billing", formId: FORM_A2 }, ["peter"]],
  [{ tag: "vip", state: "done" }, ["jose"]],
  [{ tag: "VIP" }, []],
  [{ tag: "nothing" }, []],
  [{ assignee: "a@example.com" }, ["hans"]],
  [{ assignee: " A@Example.com " }, ["hans"]],
  [{ assignee: "me" }, ["hans"]],
  [{ assignee: "b@example.com" }, []],
  [{ assignee: "nobody@example.com" }, []],
  [{ q: "muller", assignee: "none" }, ["peter"]],
  [{ assignee: "none", tag: "vip" }, ["jose"]],
  [{ q: "blue", assignee: "me", state: "open", tag: "vip" }, ["hans"]],
  [{ formId: FORM_A2 }, ["peter"]],
  [{ q: "  ", from: "2000-01-01" }, ["peter", "jose", "taro", "anna", "hans"]],
];

// Asked right after the submits (on SQLite, before the indexer has taken them in: read beside the
// index) and again once it has.
for (const indexed of [false, true])
  describe(`one query table on this engine, ${indexed ? "indexed" : "as submitted"}`, () => {
    if (indexed) beforeAll(() => server.services.search.indexPending());
    for (const [q, expected] of TABLE)
      test(`${JSON.stringify(q)} finds ${JSON.stringify(expected)}`, async () => {
        expect(await found(a.key, { q })).toEqual(expected);
      });
    for (const [params, expected] of FILTERS)
      test(`${JSON.stringify(params)} finds ${JSON.stringify(expected)}`, async () => {
        const asked = Object.fromEntries(Object.entries(params).map(([k, v]) => [k, v === FORM_A2 ? formA2 : v]));
        expect(await found(a.key, asked)).toEqual(expected);
      });
  });

test("a key sees its own team's submissions only, and is refused another team's form", async () => {
  expect(await found(b.key, { q: "muller" })).toEqual(["other"]);
  expect(await found(b.key, { q: "blue widget" })).toEqual(["other"]);
  expect((await search(a.key, { q: "muller", formId: b.formId })).status).toBe(403);
  expect((await search(a.key, { q: "muller", formId: "frm_nothing" })).status).toBe(404);
});

test("a person in both teams finds both teams' submissions", async () => {
  const member = await server.services.owners.ensureOwner("both@example.com");
  await server.exec(
    "INSERT INTO team_members (team_id, owner_id, role, created_at) VALUES (?, ?, 'viewer', ?), (?, ?, 'viewer', ?)",
    personalTeamId(a.ownerId),
    member.id,
    new Date().toISOString(),
    personalTeamId(b.ownerId),
    member.id,
    new Date().toISOString(),
  );
  const principal = {
    keyId: "ses_test",
    ownerId: member.id,
    kind: "secret" as const,
    forms: null,
    teams: new Map([
      [personalTeamId(a.ownerId), "viewer" as const],
      [personalTeamId(b.ownerId), "viewer" as const],
    ]),
    team: personalTeamId(member.id),
  };
  const body = JSON.parse(await server.services.search.searchJson(principal, { q: "hans muller", limit: 10 }));
  expect(body.submissions.map((s: { id: string }) => s.id)).toEqual([ids.other, ids.hans]);
});

test("results come with the fragments that matched", async () => {
  const res = await search(a.key, { q: 'muller "blue widget"', formId: a.formId });
  const [hit] = res.body.submissions;
  expect(hit.id).toBe(ids.hans);
  expect(hit.data.name).toBe("Hans Müller");
  expect(hit.highlights).toEqual([
    { field: "name", text: "Hans Müller", matches: [[5, 11]] },
    {
      field: "message",
      text: "I would like to order the blue widget",
      matches: [
        [26, 30],
        [31, 37],
      ],
    },
  ]);
  const [taro] = (await search(a.key, { q: "配送" })).body.submissions;
  const h = taro.highlights[0];
  expect(h.matches.map(([s, e]: [number, number]) => h.text.slice(s, e))).toEqual(["配送"]);
});

test("pages follow each other by cursor, newest first", async () => {
  const first = await search(a.key, { q: "muller", limit: "1" });
  expect(first.body.submissions.map((s: { id: string }) => s.id)).toEqual([ids.peter]);
  expect(first.body.nextCursor).toBeString();
  const second = await search(a.key, { q: "muller", limit: "1", cursor: first.body.nextCursor });
  expect(second.body.submissions.map((s: { id: string }) => s.id)).toEqual([ids.hans]);
  expect(second.body.nextCursor).toBeNull();
  const bad = await search(a.key, { q: "muller", cursor: "x.y" });
  expect([bad.status, bad.body.code]).toEqual([400, "INVALID_CURSOR"]);
});

test("a field query pages through what the index finds in other fields too", async () => {
  const form = (await seedForm(server, "a@example.com", { name: "Paging" })).id;
  const named: string[] = [];
  for (let i = 0; i < 7; i++) {
    const res = await server.submit(a.key, form, { name: i % 3 === 0 ? `Kilo ${i}` : `Lima ${i}`, message: "kilo" });
    if (i % 3 === 0) named.unshift(res.body.submissionId);
  }
  const seen: string[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 5; page++) {
    const params: Record<string, string> = { q: "name:kilo", formId: form, limit: "2" };
    if (cursor) params.cursor = cursor;
    const res = await search(a.key, params);
    seen.push(...res.body.submissions.map((s: { id: string }) => s.id));
    cursor = res.body.nextCursor;
    if (!cursor) break;
  }
  expect(seen).toEqual(named);
});

test("filters: one form, the spam folder, created from and to", async () => {
  expect(await found(a.key, { q: "muller", formId: a.formId })).toEqual(["hans"]);
  expect(await found(a.key, { q: "muller", formId: formA2 })).toEqual(["peter"]);
  expect(await found(a.key, { q: "order" })).toEqual(["jose", "hans"]);
  expect(await found(a.key, { q: "order", from: between })).toEqual(["jose"]);
  expect(await found(a.key, { q: "order", to: between })).toEqual(["hans"]);
  expect(await found(a.key, { q: "order", from: "2000-01-01", to: "2000-01-02" })).toEqual([]);
  for (const from of ["yesterday", "2026-02-30", "2026-02-30T10:00:00Z", "2026-13-01"]) {
    const bad = await search(a.key, { q: "order", from });
    expect({ from, status: bad.status, code: bad.body.code }).toEqual({ from, status: 400, code: "INVALID_PARAMETER" });
  }

  expect((await server.send("POST", `/forms/${a.formId}/submissions/${ids.hans}/spam`, a.key)).status).toBe(200);
  expect(await found(a.key, { q: "muller" })).toEqual(["peter"]);
  expect(await found(a.key, { q: "muller", spam: "true" })).toEqual(["hans"]);
  expect((await server.send("POST", `/forms/${a.formId}/submissions/${ids.hans}/not-spam`, a.key)).status).toBe(200);
  expect(await found(a.key, { q: "muller" })).toEqual(["peter", "hans"]);
});

test("what cannot be searched is a 400 INVALID_QUERY, and nothing leaks of either engine's syntax", async () => {
  for (const q of [
    "",
    "   ",
    "!!!",
    "*",
    '"unclosed',
    'blue "widget',
    '"',
    "-blue",
    "-blue -widget",
    "blue:* widget",
    "name:*",
    "x".repeat(501),
    "a ".repeat(17),
    "\u0000",
    // A prefix of one letter reads much of the index, and so do many prefixes.
    "a*",
    "blue w*",
    "bl* wi* gr* re*",
  ]) {
    const res = await search(a.key, { q });
    expect({ q: q.slice(0, 20), status: res.status, code: res.body.code }).toEqual({
      q: q.slice(0, 20),
      status: 400,
      code: "INVALID_QUERY",
    });
    expect(res.body.error).not.toMatch(/fts5|tsquery|syntax error|sqlite/i);
  }
  const huge = await search(a.key, { q: "blue ".repeat(2000) });
  expect([huge.status, huge.body.code]).toEqual([400, "INVALID_QUERY"]);
  const missing = await server.send("GET", "/submissions/search", a.key);
  expect(missing.status).toBe(400);
});

test("a publishable key may not search, nor a caller without a key", async () => {
  const publishable = await seedKey(server, "a@example.com", { publishable: true });
  const res = await search(publishable.key, { q: "muller" });
  expect([res.status, res.body.code]).toEqual([403, "KEY_SCOPE"]);
  expect((await server.send("GET", "/submissions/search?q=muller", undefined)).status).toBe(401);
});

test("the operator's search reaches every team", async () => {
  const body = JSON.parse(await server.services.search.searchJson(OPERATOR, { q: "muller hans", limit: 10 }));
  expect(body.submissions.map((s: { id: string }) => s.id)).toEqual([ids.other, ids.hans]);
});

describe("notes", () => {
  const note = (id: string, text: string) =>
    server.send("POST", `/forms/${a.formId}/submissions/${id}/notes`, a.key, { text });
  const unnote = (id: string, noteId: string) =>
    server.send("DELETE", `/forms/${a.formId}/submissions/${id}/notes/${noteId}`, a.key);

  test("a word only in a note finds the submission, highlighted in the note, until the note is deleted", async () => {
    const added = await note(ids.anna!, "Called back: she ships to Zanzibar");
    expect(added.status).toBe(200);
    for (const indexed of [false, true]) {
      if (indexed) await server.services.search.indexPending();
      expect(await found(a.key, { q: "zanzibar" })).toEqual(["anna"]);
      expect(await found(a.key, { q: "notes:zanzibar" })).toEqual(["anna"]);
      expect(await found(a.key, { q: "message:zanzibar" })).toEqual([]);
      expect(await found(a.key, { q: "widgets -zanzibar" })).toEqual([]);
      const [hit] = (await search(a.key, { q: "zanzibar red" })).body.submissions;
      expect(hit.noteCount).toBe(1);
      expect(hit.highlights).toEqual([
        { field: "message", text: "Question about the red widgets and delivery", matches: [[19, 22]] },
        { field: "notes", note: added.body.id, text: "Called back: she ships to Zanzibar", matches: [[26, 34]] },
      ]);
    }
    expect((await unnote(ids.anna!, added.body.id)).status).toBe(200);
    for (const indexed of [false, true]) {
      if (indexed) await server.services.search.indexPending();
      expect(await found(a.key, { q: "zanzibar" })).toEqual([]);
      expect(await found(a.key, { q: "widgets -zanzibar" })).toEqual(["anna"]);
    }
  });

  test("notes past what one tsvector holds (1 MiB on PostgreSQL) are taken, and the submission is still found by its first words", async () => {
    await store("longnotes", a.key, a.formId, { name: "Lena", message: "papaya" });
    // Words of 64 Hangul syllables (3 bytes each), none twice: about 30 KB of lexemes a note.
    let seed = 7;
    const syllable = () => String.fromCharCode(0xac00 + ((seed = (seed * 48271) % 2147483647) % 11172));
    const word = () => Array.from({ length: 64 }, syllable).join("");
    for (let n = 0; n < 40; n++) {
      const text = Array.from({ length: 150 }, word).join(" ");
      const res = await note(ids.longnotes!, text);
      expect({ n, status: res.status }).toEqual({ n, status: 200 });
    }
    await server.services.search.indexPending();
    expect(await found(a.key, { q: "papaya" })).toEqual(["longnotes"]);
  }, 60_000);

  test("a note on a submission not indexed yet is found before and after the indexer takes it in", async () => {
    await store("noted", a.key, a.formId, { name: "Olga", message: "nothing to see" });
    expect((await note(ids.noted!, "Timbuktu office")).status).toBe(200);
    expect(await found(a.key, { q: "timbuktu" })).toEqual(["noted"]);
    await server.services.search.indexPending();
    expect(await found(a.key, { q: "timbuktu" })).toEqual(["noted"]);
    expect(await found(a.key, { q: "notes:timbuktu olga" })).toEqual(["noted"]);
  });
});

test("filters: without words no highlights; what is wrong with one is a 400 that says so", async () => {
  const [hit] = (await search(a.key, { tag: "vip", state: "open" })).body.submissions;
  expect(hit).toMatchObject({ id: ids.hans, state: "open", tags: ["vip"], assignee: "a@example.com", highlights: [] });
  for (const [params, code] of [
    [{}, "INVALID_QUERY"],
    [{ q: "  " }, "INVALID_QUERY"],
    [{ spam: "true" }, "INVALID_QUERY"],
    [{ q: "!!!", state: "new" }, "INVALID_QUERY"],
    [{ state: "closed" }, "INVALID_PARAMETER"],
    [{ tag: "" }, "INVALID_PARAMETER"],
    [{ tag: "x".repeat(41) }, "INVALID_PARAMETER"],
    [{ assignee: "someone" }, "INVALID_PARAMETER"],
    [{ assignee: "" }, "INVALID_PARAMETER"],
  ] as [Record<string, string>, string][]) {
    const res = await search(a.key, params);
    expect({ params, status: res.status, code: res.body.code }).toEqual({ params, status: 400, code });
  }
  await expect(server.services.search.searchJson(OPERATOR, { assignee: "me", limit: 10 })).rejects.toMatchObject({
    code: "INVALID_PARAMETER",
  });
  // The operator's filters reach every team.
  const body = JSON.parse(await server.services.search.searchJson(OPERATOR, { tag: "vip", state: "open", limit: 10 }));
  expect(body.submissions.map((s: { id: string }) => s.id)).toEqual([ids.other, ids.hans]);
});
