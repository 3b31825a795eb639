import { Database } from "bun:sqlite";
import { beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { fixedClock } from "../../src/lib/clock";
import { onPostgres, onSqlite } from "../helpers/engine";
import { useServer } from "../helpers/fixture";
import { cliJsonAsync, runCliAsync, seedForm, type TestServer } from "../helpers/harness";
import { keptCounts, recount } from "../helpers/recount";

const ADDRESS = "erase.me@example.com";
const server = useServer({ smtp: true, config: { rateLimit: 100_000 } });
const { smtp } = server;
const owner = server.seed("owner@example.com", {
  name: "Launch",
  formType: "waitlist",
  usersJoinedEnabled: true,
  emailEnabled: true,
  developerNotifications: true,
});
const other = server.seed("other@example.com", { emailEnabled: true, developerNotifications: true });
let contact: string;

const submit = async (key: string, formId: string, data: Record<string, unknown>) => {
  const res = await server.submit(key, formId, data);
  expect(res.status).toBe(200);
  return res.body.submissionId as string;
};

/** Whether the database file or its write-ahead log holds `text`, in any case. */
const inFiles = (text: string, s: TestServer = server) =>
  [s.db, `${s.db}-wal`].filter(
    (f) => existsSync(f) && readFileSync(f).toString("latin1").toLowerCase().includes(text.toLowerCase()),
  );

/**
 * Where the database holds `text`: on SQLite, the files (with secure_delete a deletion overwrites
 * what it removes, so an erased address is in no byte of them); on PostgreSQL, which keeps dead rows
 * in its pages until VACUUM and history in its WAL, the tables (an erased address is in no row).
 */
const holding = async (text: string, s: TestServer = server): Promise<string[]> =>
  onPostgres ? s.tablesHolding(text) : inFiles(text, s);

beforeAll(async () => {
  contact = (
    await seedForm(server, "owner@example.com", {
      name: "Contact",
      formType: "contact",
      emailEnabled: true,
      developerNotifications: true,
    })
  ).id;
});

describe("formsvc submissions export --email", () => {
  test("prints, as JSON, all that is stored about one person: submissions in the inbox and spam, waitlists joined, notifications caused", async () => {
    const a = await submit(owner.key, owner.formId, { email: "Pat@Example.com", name: "Pat" });
    const b = await submit(owner.key, contact, { email: "pat@example.com", message: "hello", _gotcha: "filled" });
    await submit(owner.key, contact, { email: "someone.else@example.com", message: "not Pat" });
    await smtp.waitFor(2);
    const person = await cliJsonAsync(["submissions", "export", "--email", "PAT@example.com"], { db: server.db });
    expect(person).toMatchObject({
      email: "pat@example.com",
      waitlists: [{ formId: owner.formId, formName: "Launch" }],
    });
    expect(
      person.submissions.map((s: any) => [s.id, s.formId, s.formName, s.status, s.data.name ?? s.data.message]),
    ).toEqual([
      [a, owner.formId, "Launch", "inbox", "Pat"],
      [b, contact, "Contact", "spam", "hello"],
    ]);
    expect(person.notifications).toEqual([
      expect.objectContaining({ submissionId: a, formId: owner.formId, status: expect.any(String) }),
    ]);
    // Each message once: the owner notification naming Pat as Reply-To is their submission's, listed under notifications alone.
    const listed = [...person.notifications, ...person.messages].map((m: any) => m.id);
    expect([listed.length, person.messages]).toEqual([new Set(listed).size, []]);
    // One form only, given as FORM_ID; --format csv is no shape for a person.
    expect(
      (
        await cliJsonAsync(["submissions", "export", contact, "--email", "pat@example.com"], { db: server.db })
      ).submissions.map((s: any) => s.id),
    ).toEqual([b]);
    const csv = await runCliAsync(["submissions", "export", "--email", "pat@example.com", "--format", "csv"], {
      db: server.db,
    });
    expect([csv.code, csv.stderr]).toEqual([1, expect.stringContaining("JSON only")]);
    const neither = await runCliAsync(["submissions", "export"], { db: server.db });
    expect([neither.code, neither.stderr]).toEqual([1, expect.stringContaining("--email")]);
  });
});

describe("formsvc submissions erase --email", () => {
  test("erases every submission of an address across the forms, with joiners and notifications; counts equal a recount; the address is nowhere in the database files", async () => {
    const mine: string[] = [];
    for (const [formId, data] of [
      [owner.formId, { email: "Erase.Me@Example.com", name: "Eve" }],
      [owner.formId, { email: ADDRESS, name: "Eve again" }],
      [contact, { contactEmail: ADDRESS, message: "call me" }],
      [contact, { email: ADDRESS, message: "spam?", _gotcha: "yes" }],
      [other.formId, { email: ADDRESS, message: "to another owner" }],
    ] as const) {
      mine.push(await submit(formId === other.formId ? other.key : owner.key, formId, data));
    }
    for (let i = 0; i < 3; i++) await submit(owner.key, owner.formId, { email: `keep${i}@example.com` });
    // Moved to spam and back (a rewritten row), and every notification sent (rewritten outbox rows).
    expect((await cliJsonAsync(["submissions", "spam", mine[1]!], { db: server.db })).moved).toBe(true);
    expect((await cliJsonAsync(["submissions", "not-spam", mine[1]!], { db: server.db })).moved).toBe(true);
    await smtp.waitFor(smtp.messages.length + 1);
    await Bun.sleep(200);
    expect((await holding(ADDRESS)).length).toBeGreaterThan(0);
    const joinedBefore = (await server.json(`/api/v1/forms/${owner.formId}`, { key: owner.key })).body
      .usersJoinedSettings.count;

    const res = await runCliAsync(["submissions", "erase", "--email", "ERASE.ME@example.com", "--json"], {
      db: server.db,
    });
    expect(res.code).toBe(0);
    const result = JSON.parse(res.stdout);
    expect(result.erased).toBe(5);
    expect(result.forms.map((f: any) => [f.formId, f.erased]).sort()).toEqual(
      [
        [contact, 2],
        [other.formId, 1],
        [owner.formId, 2],
      ].sort(),
    );
    // SQLite rewrites the file (VACUUM) only for a database written before secure_delete; PostgreSQL VACUUMs the erased tables every time.
    expect(result.vacuumed).toBe(false);

    for (const formId of [owner.formId, contact, other.formId])
      expect(await keptCounts(server, formId)).toEqual(await recount(server, formId));
    expect(
      (await server.json(`/api/v1/forms/${owner.formId}`, { key: owner.key })).body.usersJoinedSettings.count,
    ).toBe(joinedBefore - 1);
    const listed = (
      await server.json(`/api/v1/forms/${owner.formId}/submissions`, { key: owner.key })
    ).body.submissions.map((s: any) => s.id);
    expect(listed.filter((id: string) => mine.includes(id))).toEqual([]);
    expect(
      (
        await server.query(
          "SELECT count(*) AS n FROM outbox WHERE submission_id IN (SELECT value FROM json_each(?))",
          JSON.stringify(mine),
        )
      )[0].n,
    ).toBe(0);
    expect(await holding(ADDRESS)).toEqual([]);
    // Everyone else is still there.
    expect((await holding("keep2@example.com")).length).toBeGreaterThan(0);
  });

  test("forgets the address's autoresponse throttle with its submissions, so it is nowhere in the files", async () => {
    const form = (
      await seedForm(server, "owner@example.com", {
        name: "Replies",
        emailEnabled: true,
        autoresponse: { subject: "Thanks", text: "Got it" },
      })
    ).id;
    const address = "throttled@example.com";
    await submit(owner.key, form, { email: address });
    expect((await server.query("SELECT count(*) AS n FROM autoresponse_throttle WHERE email = ?", address))[0].n).toBe(
      1,
    );
    expect((await runCliAsync(["submissions", "erase", "--email", address, "--json"], { db: server.db })).code).toBe(0);
    expect((await server.query("SELECT count(*) AS n FROM autoresponse_throttle WHERE email = ?", address))[0].n).toBe(
      0,
    );
    expect(await holding(address)).toEqual([]);
  });

  // SQLite's free pages: PostgreSQL keeps no deleted row in a table, which is what the tests above look at there.
  test.if(onSqlite)(
    "leaves nothing either of what was deleted before the erasure (a submission, a whole form): every deletion overwrites what it removes",
    async () => {
      const address = "deleted.before@example.com";
      // Long messages first: the address lands in overflow pages, which a deletion hands to the free list.
      const long = "l".repeat(20_000);
      const early = await submit(owner.key, contact, { message: long, email: address });
      expect(
        (await server.json(`/api/v1/forms/${contact}/submissions/${early}`, { method: "DELETE", key: owner.key }))
          .status,
      ).toBe(200);
      const temporary = (
        await server.json("/api/v1/forms", {
          method: "POST",
          key: owner.key,
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ name: "Temporary" }),
        })
      ).body.id;
      await submit(owner.key, temporary, { message: long, email: address });
      expect((await server.json(`/api/v1/forms/${temporary}`, { method: "DELETE", key: owner.key })).status).toBe(200);
      await submit(owner.key, owner.formId, { email: address, message: "third" });
      expect(inFiles(address).length).toBeGreaterThan(0);
      expect((await cliJsonAsync(["submissions", "erase", "--email", address], { db: server.db })).erased).toBe(1);
      expect(inFiles(address)).toEqual([]);
    },
  );

  test("keeps to one form with --form, or one owner's forms with --owner", async () => {
    const inContact = await submit(owner.key, contact, { email: "scoped@example.com" });
    const inOther = await submit(other.key, other.formId, { email: "scoped@example.com" });
    expect(
      (
        await cliJsonAsync(["submissions", "erase", "--email", "scoped@example.com", "--form", other.formId], {
          db: server.db,
        })
      ).forms,
    ).toEqual([{ formId: other.formId, erased: 1 }]);
    expect(
      (
        await cliJsonAsync(["submissions", "erase", "--email", "scoped@example.com", "--owner", "other@example.com"], {
          db: server.db,
        })
      ).erased,
    ).toBe(0);
    expect(
      (
        await cliJsonAsync(["submissions", "erase", "--email", "scoped@example.com", "--owner", "owner@example.com"], {
          db: server.db,
        })
      ).forms,
    ).toEqual([{ formId: contact, erased: 1 }]);
    expect(
      (await server.query("SELECT count(*) AS n FROM submissions WHERE id IN (?, ?)", inContact, inOther))[0].n,
    ).toBe(0);
    const bad = await runCliAsync(["submissions", "erase", "--email", "not-an-address"], { db: server.db });
    expect([bad.code, bad.stderr]).toEqual([1, expect.stringContaining("not a valid email address")]);
  });

  // A SQLite file written before secure_delete: PostgreSQL databases never had it.
  test.if(onSqlite)(
    "rewrites a database written before secure_delete once (VACUUM), so old deleted rows are gone too",
    async () => {
      // What an older formsvc left: a deleted row, not overwritten, in free space; migration 010 marks such a database.
      const legacy = new Database(server.db);
      legacy.run("PRAGMA secure_delete = OFF");
      legacy.run("INSERT INTO settings (key, value) VALUES ('vacuum_before_shred', '1')");
      legacy.run("CREATE TABLE scratch (data TEXT)");
      legacy.run("INSERT INTO scratch VALUES (?)", [`{"email":"old.row@example.com","pad":"${"y".repeat(3000)}"}`]);
      legacy.run("DROP TABLE scratch");
      legacy.run("PRAGMA wal_checkpoint(TRUNCATE)");
      legacy.close();
      expect(inFiles("old.row@example.com")).toEqual([server.db]);

      const first = await cliJsonAsync(["submissions", "erase", "--email", "old.row@example.com"], { db: server.db });
      expect([first.erased, first.vacuumed]).toEqual([0, true]);
      expect(inFiles("old.row@example.com")).toEqual([]);
      expect(
        (await cliJsonAsync(["submissions", "erase", "--email", "old.row@example.com"], { db: server.db })).vacuumed,
      ).toBe(false);
      expect((await server.json(`/api/v1/forms/${owner.formId}`, { key: owner.key })).status).toBe(200);
    },
  );
});

describe("formsvc submissions erase --email, once the person's submission is gone", () => {
  const DAY = 86_400_000;
  const clock = fixedClock(Date.parse("2026-11-22T12:00:00.000Z"));
  const PUBLIC = "https://forms.example.com";
  const s = useServer({ smtp: true, clock, config: { rateLimit: 100_000, publicUrl: PUBLIC } });
  const sink = s.smtp;
  const o = s.seed("owner@example.com", {
    name: "Launch",
    formType: "waitlist",
    usersJoinedEnabled: true,
    doubleOptIn: true,
    emailEnabled: true,
    autoresponse: { enabled: true, subject: "Thanks", text: "You are on the list" },
    retentionDays: 1,
  });

  const join = async (email: string) => {
    const res = await s.submit(o.key, o.formId, { email });
    expect(res.status).toBe(200);
    return res.body.submissionId as string;
  };
  const usersJoined = async () =>
    (await s.json(`/api/v1/forms/${o.formId}/users-joined`, { key: o.key })).body.usersJoined;
  /** Joins, opens the confirmation link, and gets the autoresponse: a confirmed joiner with a throttle row. */
  const confirmedJoiner = async (email: string) => {
    const seen = sink.messages.length;
    const id = await join(email);
    const mails = (await sink.waitFor(seen + 2)).slice(seen);
    const link = mails
      .map((m) => new RegExp(`${PUBLIC}/confirm/([A-Za-z0-9_-]{43})`).exec(m.text ?? "")?.[1])
      .find(Boolean);
    expect((await fetch(`${s.url}/confirm/${link}`, { redirect: "manual" })).status).toBe(200);
    return id;
  };

  // Each way a submission leaves, and how many submissions the erasure still finds.
  const WAYS: [string, (id: string) => Promise<unknown>, number][] = [
    [
      "deleted",
      async (id) =>
        expect(
          (await s.json(`/api/v1/forms/${o.formId}/submissions/${id}`, { method: "DELETE", key: o.key })).status,
        ).toBe(200),
      0,
    ],
    [
      "expired by retention",
      async () => {
        clock.set(clock.now() + 2 * DAY);
        expect(await s.services.lifecycle.expireRetained()).toBeGreaterThan(0);
      },
      0,
    ],
    [
      "moved to spam",
      async (id) =>
        expect(
          (await s.json(`/api/v1/forms/${o.formId}/submissions/${id}/spam`, { method: "POST", key: o.key })).body.moved,
        ).toBe(true),
      1,
    ],
  ];

  test("removes the confirmation, the autoresponse throttle and every other trace, for each way it left; export --email shows them before; joining again needs a new confirmation", async () => {
    for (const [way, leave, submissions] of WAYS) {
      const address = `${way.replaceAll(" ", "-")}@example.com`;
      const id = await confirmedJoiner(address);
      await leave(id);
      expect([way, await s.tablesHolding(address)]).toEqual([
        way,
        expect.arrayContaining(["autoresponse_throttle", "waitlist_confirmations"]),
      ]);

      const person = await cliJsonAsync(["submissions", "export", "--email", address], { db: s.db });
      expect([way, person.confirmations, person.autoresponseThrottles.map((t: any) => t.formId)]).toEqual([
        way,
        [expect.objectContaining({ formId: o.formId, formName: "Launch", confirmedAt: expect.any(String) })],
        [o.formId],
      ]);

      const res = await runCliAsync(["submissions", "erase", "--email", address, "--json"], { db: s.db });
      expect([way, res.code]).toEqual([way, 0]);
      const result = JSON.parse(res.stdout);
      expect([way, result.erased, result.alsoErased]).toEqual([
        way,
        submissions,
        { confirmations: 1, autoresponseThrottles: 1, messages: 0, partials: 0 },
      ]);
      const told = await runCliAsync(["submissions", "erase", "--email", address], { db: s.db });
      expect([way, told.stdout]).toEqual([way, expect.stringContaining("No submissions with that email address.")]);
      expect([way, await s.tablesHolding(address), await holding(address, s)]).toEqual([way, [], []]);
      expect(await keptCounts(s, o.formId)).toEqual(await recount(s, o.formId));

      // A newcomer again: counted only once they confirm anew.
      const before = await usersJoined();
      const seen = sink.messages.length;
      await join(address);
      await sink.waitFor(seen + 1);
      expect([way, await usersJoined()]).toEqual([way, before]);
      expect((await runCliAsync(["submissions", "erase", "--email", address], { db: s.db })).code).toBe(0);
    }
  });

  test("says what it erased beside submissions in its human output", async () => {
    const address = "told@example.com";
    await s.json(`/api/v1/forms/${o.formId}/submissions/${await confirmedJoiner(address)}`, {
      method: "DELETE",
      key: o.key,
    });
    const res = await runCliAsync(["submissions", "erase", "--email", address], { db: s.db });
    expect(res.stdout).toContain("Also erased: 1 waitlist confirmation(s), 1 autoresponse throttle(s).");
  });
});

describe("formsvc submissions delete", () => {
  test("deletes one submission by id, with its notification, counts following; an unknown id is an error", async () => {
    const id = await submit(owner.key, owner.formId, { email: "once@example.com" });
    expect(await cliJsonAsync(["submissions", "delete", id], { db: server.db })).toEqual({ id, deleted: true });
    expect(await keptCounts(server, owner.formId)).toEqual(await recount(server, owner.formId));
    expect((await server.query("SELECT count(*) AS n FROM outbox WHERE submission_id = ?", id))[0].n).toBe(0);
    const again = await runCliAsync(["submissions", "delete", id], { db: server.db });
    expect([again.code, again.stderr]).toEqual([1, expect.stringContaining(`no submission with id ${id}`)]);
  });
});
