import { beforeAll, describe, expect, test } from "bun:test";
import { fixedClock } from "../../src/lib/clock";
import { onPostgres } from "../helpers/engine";
import { useServer } from "../helpers/fixture";
import { seedForm, seedOwner, storedData } from "../helpers/harness";

const clock = fixedClock("2026-11-01T00:00:00.000Z");
const server = useServer({ clock, config: { rateLimit: 100_000 } });
const owner = server.seed("owner@example.com", { name: "Form 0" });
const other = server.seed("other@example.com");

beforeAll(async () => {
  // 55 forms in all; every third shares its millisecond with the one before, so ids break ties.
  for (let i = 1; i < 55; i++) {
    if (i % 3) clock.advance(1000);
    await seedForm(server, "owner@example.com", { name: `Form ${i}` });
  }
});

const walk = async (first: string, key = owner.key) => {
  const seen: any[] = [];
  let url: string | null = first;
  let pages = 0;
  while (url) {
    const { status, body }: { status: number; body: any } = await server.json(url, { key });
    expect(status).toBe(200);
    const items = body.forms ?? body.submissions;
    expect(items.length).toBeGreaterThan(0);
    seen.push(...items);
    pages += 1;
    url = body.nextCursor
      ? `${first}${first.includes("?") ? "&" : "?"}cursor=${encodeURIComponent(body.nextCursor)}`
      : null;
  }
  return { seen, pages };
};

const newestFirst = (a: any, b: any) =>
  a.createdAt === b.createdAt ? (a.id < b.id ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1;

describe("GET /api/v1/forms/list", () => {
  test("items have exactly the list fields, 50 by default, newest first then by id", async () => {
    const { status, body } = await server.json("/api/v1/forms/list", { key: owner.key });
    expect(status).toBe(200);
    expect(body.forms.length).toBe(50);
    expect(typeof body.nextCursor).toBe("string");
    expect(Object.keys(body.forms[0]).sort()).toEqual([
      "createdAt",
      "description",
      "id",
      "name",
      "submissionCount",
      "unread",
      "updatedAt",
    ]);
    expect(body.forms).toEqual([...body.forms].sort(newestFirst));
    expect(body.forms[0].name).toBe("Form 54");
  });

  test("pages through every form exactly once at any limit", async () => {
    for (const limit of [1, 2, 7, 50, 100]) {
      const { seen, pages } = await walk(`/api/v1/forms/list?limit=${limit}`);
      expect(seen.length).toBe(55);
      expect(new Set(seen.map((f) => f.id)).size).toBe(55);
      expect(seen).toEqual([...seen].sort(newestFirst));
      expect(pages).toBe(Math.ceil(55 / limit));
    }
  });

  test("answers nextCursor null on an exactly full last page", async () => {
    const first = await server.json("/api/v1/forms/list?limit=11", { key: owner.key });
    let cursor = first.body.nextCursor;
    for (let page = 2; page <= 5; page++) {
      const { body } = await server.json(`/api/v1/forms/list?limit=11&cursor=${encodeURIComponent(cursor)}`, {
        key: owner.key,
      });
      expect(body.forms.length).toBe(11);
      cursor = body.nextCursor;
    }
    expect(cursor).toBeNull();
  });

  test("refuses every limit that is not a whole number from 1 to 100", async () => {
    for (const limit of ["0", "101", "1.5", "abc", "", "-1", "1e1", "%20", "0x10"]) {
      const { status, body } = await server.json(`/api/v1/forms/list?limit=${limit}`, { key: owner.key });
      expect([limit, status]).toEqual([limit, 400]);
      expect(body.error).toContain("limit");
    }
  });

  test("refuses a tampered cursor and a cursor from another owner's list", async () => {
    const { body } = await server.json("/api/v1/forms/list?limit=2", { key: owner.key });
    const cursor: string = body.nextCursor;
    const [payload, sig] = cursor.split(".");
    const forged = Buffer.from(JSON.stringify(["2099-01-01T00:00:00.000Z", "frm_z"])).toString("base64url");
    // The signature's last character carries 2 bits; its neighbour in the alphabet decodes to the same bytes.
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const sameBytes = `${sig!.slice(0, -1)}${alphabet[alphabet.indexOf(sig!.at(-1)!) + 1]}`;
    for (const bad of [
      `${payload}.${sig!.slice(0, -2)}${sig!.at(-2) === "A" ? "B" : "A"}${sig!.at(-1)}`,
      `${payload}.${sameBytes}`,
      `${forged}.${sig}`,
      "garbage",
      `${cursor}x`,
    ]) {
      expect(
        (await server.json(`/api/v1/forms/list?cursor=${encodeURIComponent(bad)}`, { key: owner.key })).status,
      ).toBe(400);
    }
    expect(
      (await server.json(`/api/v1/forms/list?cursor=${encodeURIComponent(cursor)}`, { key: other.key })).status,
    ).toBe(400);
  });
});

describe("GET /api/v1/forms/{formId}/submissions", () => {
  const submit = (formId: string, key: string, data: object) =>
    server.request("/api/v1/forms/submit", {
      method: "POST",
      key,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ formId, data }),
    });

  test("items are exactly {id, formId, data, createdAt, spam, state, assignee, tags, noteCount}, newest first, each once across pages, with a null cursor at the end", async () => {
    for (let i = 0; i < 12; i++) {
      if (i % 2) clock.advance(5);
      expect((await submit(owner.formId, owner.key, { i })).status).toBe(200);
    }
    const { seen } = await walk(`/api/v1/forms/${owner.formId}/submissions?limit=4`);
    expect(seen.length).toBe(12);
    expect(Object.keys(seen[0]).sort()).toEqual([
      "assignee",
      "createdAt",
      "data",
      "formId",
      "id",
      "noteCount",
      "spam",
      "state",
      "tags",
    ]);
    expect(seen[0]).toMatchObject({ state: "new", assignee: null, tags: [], noteCount: 0 });
    expect(seen).toEqual([...seen].sort(newestFirst));
    expect(seen.map((s) => s.data.i)).toEqual([11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
    expect(seen[0].formId).toBe(owner.formId);
    expect(seen[0].data._meta).toBeDefined();
  });

  test("stays consistent while new submissions arrive between pages", async () => {
    const formId = (await seedForm(server, "owner@example.com", { name: "busy" })).id;
    for (let i = 0; i < 9; i++) {
      clock.advance(1);
      await submit(formId, owner.key, { n: i });
    }
    const seen: number[] = [];
    let cursor: string | null = null;
    do {
      const q: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : "";
      const { body } = await server.json(`/api/v1/forms/${formId}/submissions?limit=2${q}`, { key: owner.key });
      seen.push(...body.submissions.map((s: any) => s.data.n));
      cursor = body.nextCursor;
      clock.advance(1);
      await submit(formId, owner.key, { n: 100 + seen.length });
    } while (cursor);
    expect(seen).toEqual([8, 7, 6, 5, 4, 3, 2, 1, 0]);
  });

  test("a page read again after a commit shows what it added, from this process or another", async () => {
    const formId = (await seedForm(server, "owner@example.com", { name: "polled" })).id;
    const page = async () =>
      (await server.json(`/api/v1/forms/${formId}/submissions`, { key: owner.key })).body.submissions.map(
        (s: any) => s.data.n,
      );
    await submit(formId, owner.key, { n: 1 });
    expect(await page()).toEqual([1]);
    expect(await page()).toEqual([1]);
    clock.advance(1);
    await submit(formId, owner.key, { n: 2 });
    expect(await page()).toEqual([2, 1]);
    // Another connection (a restore, a second tool) writes straight to the database.
    await server.exec(
      "INSERT INTO submissions (id, form_id, data, email, created_at) VALUES ('sub_zz', ?, ?, NULL, '2099-01-01T00:00:00.000Z')",
      formId,
      storedData({ n: 3 }),
    );
    // SQLite sees it at once (data_version); PostgreSQL's caches live at most a second for writes made outside formsvc.
    let seen = await page();
    for (const until = Date.now() + 5000; onPostgres && seen.length < 3 && Date.now() < until; seen = await page())
      await Bun.sleep(100);
    expect(seen).toEqual([3, 2, 1]);
  });

  test("refuses a cursor from another form's list", async () => {
    const second = (await seedForm(server, "owner@example.com", { name: "second" })).id;
    const { body } = await server.json(`/api/v1/forms/${owner.formId}/submissions?limit=1`, { key: owner.key });
    const res = await server.json(`/api/v1/forms/${second}/submissions?cursor=${encodeURIComponent(body.nextCursor)}`, {
      key: owner.key,
    });
    expect([res.status, res.body.code]).toEqual([400, "INVALID_CURSOR"]);
    expect((await server.json(`/api/v1/forms/${owner.formId}/submissions?limit=101`, { key: owner.key })).status).toBe(
      400,
    );
  });

  test("checks the cursor before the form: 400 ahead of 404 and 403", async () => {
    const stranger = await seedOwner(server, "stranger@example.com");
    for (const formId of ["frm_missing", stranger.formId]) {
      const res = await server.json(`/api/v1/forms/${formId}/submissions?cursor=garbage`, { key: owner.key });
      expect([formId, res.status, res.body.code]).toEqual([formId, 400, "INVALID_CURSOR"]);
    }
  });
});
