import { describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { migrate } from "../../src/db/migrate";
import { migrations } from "../../src/db/migrations";
import { openDatabase } from "../../src/db/open";
import { OPERATOR } from "../../src/lib/principal";
import { personalTeamId } from "../../src/lib/rights";
import { createFilterRepo } from "../../src/modules/spam/filter-repo";
import { tokenHasher, tokenize } from "../../src/modules/spam/tokens";
import { onPostgres, onSqlite } from "../helpers/engine";
import { useServer } from "../helpers/fixture";
import {
  cliJsonAsync,
  runCliAsync,
  seedForm,
  seedKey,
  seedOwner,
  startTestServer,
  tempDir,
  type TestServer,
} from "../helpers/harness";
import { submitRequest } from "../../src/modules/submissions/request";

const server = useServer({ config: { rateLimit: 1_000_000, publicRateLimit: 1_000_000 } });

type Verdict = { score: number; reasons: string[] };

const SPAM_WORDS = ["viagra", "casino", "bitcoin", "lottery", "winner", "crypto", "pills", "bonus", "jackpot", "loans"];
const HAM_WORDS = ["opening", "hours", "invoice", "meeting", "question", "delivery", "thanks", "schedule", "order"];
const pick = (words: string[], i: number, n: number) =>
  Array.from({ length: n }, (_, k) => words[(i * 7 + k * 3) % words.length]);
/** A message like the spam an owner marks: shouting offers and a link to a shady host. */
const spamLike = (i: number) => ({
  email: `promo${i}@mailer${i % 3}.example`,
  message: `${pick(SPAM_WORDS, i, 5).join(" ")} click https://deals${i % 4}.spam.example/offer now ${i}`,
});
/** A message like the mail an owner keeps: a question about the business. */
const hamLike = (i: number) => ({
  email: `person${i}@example.org`,
  message: `Hello, a ${pick(HAM_WORDS, i, 4).join(" ")} question from customer ${i}, kind regards`,
});

const submitOk = async (s: TestServer, key: string, formId: string, data: Record<string, unknown>) => {
  const res = await s.submit(key, formId, data);
  expect(res.status).toBe(200);
  return res.body.submissionId as string;
};
/** The submission as the API lists it, from the inbox or the spam folder, with its status. */
async function listed(s: TestServer, key: string, formId: string, id: string) {
  for (const status of ["inbox", "spam"] as const) {
    const page = await s.json(`/api/v1/forms/${formId}/submissions?status=${status}&limit=100`, { key });
    const found = page.body.submissions.find((x: { id: string }) => x.id === id);
    if (found) return { status, spam: found.spam as Verdict | null };
  }
  throw new Error(`submission ${id} is in no list`);
}
const mark = async (s: TestServer, key: string, formId: string, id: string, to: "spam" | "not-spam") => {
  const res = await s.send("POST", `/forms/${formId}/submissions/${id}/${to}`, key);
  expect(res.status).toBe(200);
  return res.body as { moved: boolean };
};
const learned = async (s: TestServer, key: string) => (await s.send("GET", "/spam-filter", key)).body;
/** Tokens hashed as the filter hashes them (tokens.ts, keyed as spam/service.ts keys it). */
const hasher = async (s: TestServer) => {
  const [{ value }] = await s.query("SELECT value FROM settings WHERE key = 'challenge_secret'");
  return tokenHasher(createHmac("sha256", value).update("formsvc spam filter").digest("base64url"));
};
/** The tokens of an owner's personal team's filter. */
const tokensOf = (s: TestServer, ownerId: string) =>
  s.query("SELECT token, spam, ham FROM spam_tokens WHERE team_id = ? ORDER BY token", personalTeamId(ownerId));

/** Submits `n` messages of a kind and marks each as the owner would: spam ones as spam, the others as not spam. */
async function train(s: TestServer, key: string, formId: string, kind: "spam" | "ham", n: number, from = 0) {
  for (let i = from; i < from + n; i++) {
    const id = await submitOk(s, key, formId, kind === "spam" ? spamLike(i) : hamLike(i));
    await mark(s, key, formId, id, kind === "spam" ? "spam" : "not-spam");
  }
}

describe("the spam verdict of every submission", () => {
  const owner = server.seed("paths@example.com", { publicEndpoint: true });

  test("every submit path (secret key, publishable key, /f/) stores a score from 0 to 1 and no reasons, shown in lists and JSON exports", async () => {
    const publishable = (await seedKey(server, owner.ownerEmail, { publishable: true })).key;
    const ids = [
      await submitOk(server, owner.key, owner.formId, { message: "by the secret key" }),
      await submitOk(server, publishable, owner.formId, { message: "by the publishable key" }),
    ];
    const dropIn = await server.json(`/f/${owner.formId}`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify({ message: "by the drop-in endpoint" }),
    });
    expect(dropIn.status).toBe(200);
    ids.push(dropIn.body.submissionId);
    for (const id of ids) {
      const { status, spam } = await listed(server, owner.key, owner.formId, id);
      expect({ status, reasons: spam?.reasons }).toEqual({ status: "inbox", reasons: [] });
      expect(spam!.score).toBeGreaterThanOrEqual(0);
      expect(spam!.score).toBeLessThanOrEqual(1);
    }
    const exported = await server.json(`/api/v1/forms/${owner.formId}/submissions/export?format=json`, {
      key: owner.key,
    });
    expect(exported.body.map((s: { spam: Verdict }) => s.spam.reasons)).toEqual([[], [], []]);
  });

  test("a honeypot catch is filed with the reason honeypot and teaches the filter nothing", async () => {
    const before = await learned(server, owner.key);
    const id = await submitOk(server, owner.key, owner.formId, { message: "bot text", _gotcha: "filled" });
    expect(await listed(server, owner.key, owner.formId, id)).toMatchObject({
      status: "spam",
      spam: { reasons: ["honeypot"] },
    });
    expect(await learned(server, owner.key)).toEqual(before);
    expect(await server.query("SELECT count(*) AS n FROM spam_lessons WHERE submission_id = ?", id)).toEqual([
      { n: 0 },
    ]);
  });

  test("a submission stored before the filter existed shows spam: null", async () => {
    const id = await submitOk(server, owner.key, owner.formId, { message: "old" });
    await server.exec("UPDATE submissions SET spam = NULL WHERE id = ?", id);
    server.services.forms.forget(new Set([owner.formId]));
    server.services.submissions.forget(new Set([owner.formId]));
    expect((await listed(server, owner.key, owner.formId, id)).spam).toBeNull();
  });
});

describe("the rules of spamSettings", () => {
  const owner = server.seed("rules@example.com");

  // Each rule: the settings, a submission that breaks it (filed as spam with its reason), and one that does not.
  const cases: {
    rule: string;
    settings: Record<string, unknown>;
    fires: Record<string, unknown>;
    passes: Record<string, unknown>;
    reason: string;
  }[] = [
    {
      rule: "blockedWords, whole words in any case, phrases too",
      settings: { blockedWords: ["casino", "cheap pills"] },
      fires: { message: "Visit our CASINO today" },
      passes: { message: "casinos and cheap-ish pills are not the blocked words" },
      reason: "blocked-word",
    },
    {
      rule: "blockedWords, a phrase across whitespace",
      settings: { blockedWords: ["cheap pills"] },
      fires: { message: "buy Cheap\n  Pills here" },
      passes: { message: "cheap, fine pills" },
      reason: "blocked-word",
    },
    {
      rule: "blockedEmailDomains, subdomains included",
      settings: { blockedEmailDomains: ["spam.example"] },
      fires: { email: "bot@mx.spam.example", message: "hi" },
      passes: { email: "person@notspam.example", message: "hi" },
      reason: "blocked-email-domain",
    },
    {
      rule: "blockDisposableEmail, from mailchecker's list",
      settings: { blockDisposableEmail: true },
      fires: { email: "someone@mailinator.com", message: "hi" },
      passes: { email: "someone@example.com", message: "hi" },
      reason: "disposable-email",
    },
    {
      rule: "maxLinks, counted across the fields",
      settings: { maxLinks: 1 },
      fires: { a: "see https://one.example", b: "and www.two.example" },
      passes: { a: "see https://one.example only" },
      reason: "too-many-links",
    },
  ];
  for (const c of cases)
    test(`${c.rule}: files a submission that breaks it as spam with reason ${c.reason}, and lets others through`, async () => {
      const form = await seedForm(server, owner.ownerEmail, { name: c.rule.slice(0, 50) });
      const patched = await server.send("PATCH", `/forms/${form.id}`, owner.key, { spamSettings: c.settings });
      expect(patched.status).toBe(200);
      const fired = await submitOk(server, owner.key, form.id, c.fires);
      const passed = await submitOk(server, owner.key, form.id, c.passes);
      expect(await listed(server, owner.key, form.id, fired)).toMatchObject({
        status: "spam",
        spam: { reasons: [c.reason] },
      });
      expect(await listed(server, owner.key, form.id, passed)).toMatchObject({
        status: "inbox",
        spam: { reasons: [] },
      });
    });

  test("duplicateWindowSeconds: the same fields from the same visitor within the window are spam (reason duplicate); other fields are not", async () => {
    const form = await seedForm(server, owner.ownerEmail, { name: "Duplicates" });
    expect(
      (await server.send("PATCH", `/forms/${form.id}`, owner.key, { spamSettings: { duplicateWindowSeconds: 600 } }))
        .status,
    ).toBe(200);
    const first = await submitOk(server, owner.key, form.id, { message: "same words" });
    const again = await submitOk(server, owner.key, form.id, { message: "same words" });
    const other = await submitOk(server, owner.key, form.id, { message: "other words" });
    expect((await listed(server, owner.key, form.id, first)).status).toBe("inbox");
    expect(await listed(server, owner.key, form.id, again)).toMatchObject({
      status: "spam",
      spam: { reasons: ["duplicate"] },
    });
    expect((await listed(server, owner.key, form.id, other)).status).toBe("inbox");
  });

  // Identical posts sent at once: over HTTP (batches side by side), and through the service without a
  // pause (their checks all run before the first commit, so they share one group-commit batch).
  const atOnce: { how: string; send: (formId: string, data: Record<string, unknown>) => Promise<unknown> }[] = [
    { how: "over HTTP", send: (formId, data) => submitOk(server, owner.key, formId, data) },
    {
      how: "in one group-commit batch",
      send: (formId, data) =>
        server.services.submissions.submit(
          submitRequest({
            actor: OPERATOR,
            body: { formId, data },
            submitter: {
              userAgent: null,
              acceptLanguage: null,
              referer: null,
              origin: null,
              ip: "192.0.2.7",
              proxyCountry: null,
            },
          }),
        ),
    },
  ];
  for (const { how, send } of atOnce)
    test(`duplicateWindowSeconds: of six identical posts sent at once ${how}, one reaches the inbox and the others are spam with reason duplicate`, async () => {
      const form = await seedForm(server, owner.ownerEmail, { name: `Duplicates ${how}` });
      expect(
        (await server.send("PATCH", `/forms/${form.id}`, owner.key, { spamSettings: { duplicateWindowSeconds: 600 } }))
          .status,
      ).toBe(200);
      await Promise.all(Array.from({ length: 6 }, () => send(form.id, { message: "sent six times at once" })));
      const lists = await Promise.all(
        (["inbox", "spam"] as const).map(
          async (status) =>
            (await server.json(`/api/v1/forms/${form.id}/submissions?status=${status}`, { key: owner.key })).body
              .submissions as { spam: Verdict }[],
        ),
      );
      expect(lists.map((l) => l.map((s) => s.spam.reasons))).toEqual([[[]], Array(5).fill(["duplicate"])]);
      expect((await server.json(`/api/v1/forms/${form.id}`, { key: owner.key })).body.submissionCount).toBe(1);
    });

  test("refuses rules that are not valid with a 400 naming the setting, and changes nothing", async () => {
    for (const spamSettings of [
      { blockedWords: "casino" },
      { blockedWords: [""] },
      { blockedEmailDomains: ["not a domain"] },
      { maxLinks: -1 },
      { duplicateWindowSeconds: 0 },
      { threshold: 0.2 },
      { recaptchaMinScore: 2 },
      { blockDisposableEmail: "yes" },
    ]) {
      const res = await server.send("PATCH", `/forms/${owner.formId}`, owner.key, { spamSettings });
      expect({
        spamSettings,
        status: res.status,
        names: res.body.error.includes(Object.keys(spamSettings)[0]!),
      }).toEqual({
        spamSettings,
        status: 400,
        names: true,
      });
    }
    const form = (await server.json(`/api/v1/forms/${owner.formId}`, { key: owner.key })).body;
    expect(form.spamSettings).toMatchObject({ blockedWords: [], maxLinks: null, threshold: 0.9 });
  });
});

describe("the learning filter", () => {
  test("files nothing before it has learned from 20 spam and 20 not-spam submissions, then files spam with reason filter", async () => {
    const owner = await seedOwner(server, "learner@example.com");
    await train(server, owner.key, owner.formId, "ham", 20);
    await train(server, owner.key, owner.formId, "spam", 19);
    expect(await learned(server, owner.key)).toEqual({
      teamId: personalTeamId(owner.ownerId),
      owner: "learner@example.com",
      spam: 19,
      notSpam: 20,
      filing: false,
      filingSince: null,
    });
    const early = await submitOk(server, owner.key, owner.formId, spamLike(100));
    const before = await listed(server, owner.key, owner.formId, early);
    expect(before).toMatchObject({ status: "inbox", spam: { reasons: [] } });
    expect(before.spam!.score).toBeGreaterThanOrEqual(0.9);

    await train(server, owner.key, owner.formId, "spam", 1, 19);
    expect(await learned(server, owner.key)).toMatchObject({ spam: 20, notSpam: 20, filing: true });
    const late = await submitOk(server, owner.key, owner.formId, spamLike(101));
    const kept = await submitOk(server, owner.key, owner.formId, hamLike(102));
    expect(await listed(server, owner.key, owner.formId, late)).toMatchObject({
      status: "spam",
      spam: { reasons: ["filter"] },
    });
    const ham = await listed(server, owner.key, owner.formId, kept);
    expect(ham).toMatchObject({ status: "inbox", spam: { reasons: [] } });
    expect(ham.spam!.score).toBeLessThan(0.1);

    // The form's threshold decides: at 1, nothing short of certainty is filed.
    await server.send("PATCH", `/forms/${owner.formId}`, owner.key, { spamSettings: { threshold: 1 } });
    const lenient = await submitOk(server, owner.key, owner.formId, { message: "bonus words casino" });
    expect((await listed(server, owner.key, owner.formId, lenient)).status).toBe("inbox");

    const cli = await cliJsonAsync(["spam", "status", "--owner", "learner@example.com"], { db: server.db });
    expect(cli).toEqual({ owner: "learner@example.com", spam: 20, notSpam: 20, filing: true });
  });

  test("a later opposite mark replaces the earlier lesson, and not-spam on an inbox submission still teaches", async () => {
    const owner = await seedOwner(server, "marks@example.com");
    const id = await submitOk(server, owner.key, owner.formId, { message: "is this spam" });
    expect((await mark(server, owner.key, owner.formId, id, "not-spam")).moved).toBe(false);
    expect(await learned(server, owner.key)).toMatchObject({ spam: 0, notSpam: 1 });
    expect((await mark(server, owner.key, owner.formId, id, "spam")).moved).toBe(true);
    expect(await learned(server, owner.key)).toMatchObject({ spam: 1, notSpam: 0 });
    // The same mark again teaches nothing more; the CLI's marks teach too.
    await mark(server, owner.key, owner.formId, id, "spam");
    expect(await learned(server, owner.key)).toMatchObject({ spam: 1, notSpam: 0 });
    expect((await cliJsonAsync(["submissions", "not-spam", id], { db: server.db })).moved).toBe(true);
    expect(await learned(server, owner.key)).toMatchObject({ spam: 0, notSpam: 1 });
  });

  test("formsvc spam reset forgets it all, at once in the running server, and the audit trail records it", async () => {
    const owner = await seedOwner(server, "reset@example.com");
    await train(server, owner.key, owner.formId, "ham", 20);
    await train(server, owner.key, owner.formId, "spam", 20);
    const filed = await submitOk(server, owner.key, owner.formId, spamLike(200));
    expect((await listed(server, owner.key, owner.formId, filed)).status).toBe("spam");

    const res = await runCliAsync(["spam", "reset", "--owner", "reset@example.com", "--json"], { db: server.db });
    expect([res.code, JSON.parse(res.stdout)]).toEqual([
      0,
      { owner: "reset@example.com", spam: 0, notSpam: 0, filing: false },
    ]);
    expect(await learned(server, owner.key)).toMatchObject({ spam: 0, notSpam: 0, filing: false });
    const after = await submitOk(server, owner.key, owner.formId, spamLike(201));
    expect(await listed(server, owner.key, owner.formId, after)).toMatchObject({
      status: "inbox",
      spam: { score: 0.5, reasons: [] },
    });
    expect(
      await server.query("SELECT count(*) AS n FROM spam_tokens WHERE team_id = ?", personalTeamId(owner.ownerId)),
    ).toEqual([{ n: 0 }]);
    const [line] = await cliJsonAsync<any[]>(["audit", "--owner", "reset@example.com", "--limit", "1"], {
      db: server.db,
    });
    expect(line).toMatchObject({
      actorKind: "cli",
      action: "spam.reset",
      teamId: personalTeamId(owner.ownerId),
      objectId: personalTeamId(owner.ownerId),
      detail: { spam: 20, notSpam: 20 },
    });
  });

  test("honeypot catches carrying the owner's usual wording teach nothing: a genuine message still reaches the inbox", async () => {
    const owner = await seedOwner(server, "poisoned@example.com");
    await train(server, owner.key, owner.formId, "ham", 20);
    await train(server, owner.key, owner.formId, "spam", 20);
    const status = ["spam", "status", "--owner", "poisoned@example.com"];
    const before = await cliJsonAsync(status, { db: server.db });
    expect(before).toEqual({ owner: "poisoned@example.com", spam: 20, notSpam: 20, filing: true });
    // One address's bot fills the honeypot with what the owner's customers write.
    const usual = (i: number) => ({
      email: `customer${i}@example.org`,
      message: `Hello, a question about the delivery of my order and the invoice, kind regards, customer ${i}`,
    });
    for (let i = 0; i < 150; i++) {
      const id = await submitOk(server, owner.key, owner.formId, { ...usual(1000 + i), _gotcha: "x" });
      if (i === 0) expect((await listed(server, owner.key, owner.formId, id)).status).toBe("spam");
    }
    const genuine = await submitOk(server, owner.key, owner.formId, usual(300));
    const kept = await listed(server, owner.key, owner.formId, genuine);
    expect(kept).toMatchObject({ status: "inbox", spam: { reasons: [] } });
    expect(kept.spam!.score).toBeLessThan(0.5);
    expect(await cliJsonAsync(status, { db: server.db })).toEqual(before);
  });

  test("an unknown owner is a clear error on the command line, and a publishable key may not read the filter", async () => {
    const res = await runCliAsync(["spam", "status", "--owner", "nobody@example.com"], { db: server.db });
    expect([res.code, res.stderr]).toEqual([1, expect.stringContaining("nobody@example.com")]);
    const owner = await seedOwner(server, "scope@example.com");
    const publishable = (await seedKey(server, owner.ownerEmail, { publishable: true })).key;
    expect((await server.send("GET", "/spam-filter", publishable)).body.code).toBe("KEY_SCOPE");
  });
});

describe("erasure", () => {
  /** Whether the database files (or, on PostgreSQL, its tables) hold `text`. */
  const holding = async (text: string): Promise<string[]> =>
    onPostgres
      ? server.tablesHolding(text)
      : [server.db, `${server.db}-wal`].filter(
          (f) => existsSync(f) && readFileSync(f).toString("latin1").toLowerCase().includes(text.toLowerCase()),
        );

  test("the filter keeps no readable token of a person's text: after erasure no byte of the database holds it", async () => {
    const owner = await seedOwner(server, "erasure@example.com");
    const words = "quuxalorian zephyrbottle";
    const id = await submitOk(server, owner.key, owner.formId, { email: "wipe.me@example.com", message: words });
    await mark(server, owner.key, owner.formId, id, "spam");
    expect(await learned(server, owner.key)).toMatchObject({ spam: 1 });
    // The lesson is stored, as hashes: no spam table holds the words.
    expect((await server.tablesHolding("quuxalorian")).filter((t) => t.startsWith("spam_"))).toEqual([]);
    const erased = await runCliAsync(["submissions", "erase", "--email", "wipe.me@example.com", "--json"], {
      db: server.db,
    });
    expect(erased.code).toBe(0);
    for (const text of ["quuxalorian", "zephyrbottle", "wipe.me@example.com"]) expect(await holding(text)).toEqual([]);
    expect(await server.query("SELECT count(*) AS n FROM spam_lessons WHERE submission_id = ?", id)).toEqual([
      { n: 0 },
    ]);
  });

  test("erasure takes the person's lessons out of the model: their counts are subtracted and no token of theirs is left", async () => {
    const owner = await seedOwner(server, "unlearn@example.com");
    // Someone else's message shares some of the person's words ("hello", the field names).
    const other = await submitOk(server, owner.key, owner.formId, {
      email: "stays@example.org",
      message: "hello about my order",
    });
    await mark(server, owner.key, owner.formId, other, "not-spam");
    const before = { tokens: await tokensOf(server, owner.ownerId), learned: await learned(server, owner.key) };
    expect(before.learned).toMatchObject({ spam: 0, notSpam: 1 });

    const address = "forget.me@example.com";
    const spammy = await submitOk(server, owner.key, owner.formId, { email: address, message: "hello quuxerasure" });
    await mark(server, owner.key, owner.formId, spammy, "spam");
    const kept = await submitOk(server, owner.key, owner.formId, { email: address, message: "hello again" });
    await mark(server, owner.key, owner.formId, kept, "not-spam");
    expect(await learned(server, owner.key)).toMatchObject({ spam: 1, notSpam: 2 });
    const [word] = (await hasher(server))(["quuxerasure"]);
    const held = async () => (await tokensOf(server, owner.ownerId)).filter((t: { token: number }) => t.token === word);
    expect(await held()).toEqual([{ token: word, spam: 1, ham: 0 }]);

    const erased = await runCliAsync(["submissions", "erase", "--email", address, "--json"], { db: server.db });
    expect([erased.code, JSON.parse(erased.stdout).erased]).toEqual([0, 2]);
    expect(await held()).toEqual([]);
    expect(await tokensOf(server, owner.ownerId)).toEqual(before.tokens);
    expect(await learned(server, owner.key)).toEqual(before.learned);
    expect(await cliJsonAsync(["spam", "status", "--owner", "unlearn@example.com"], { db: server.db })).toMatchObject({
      spam: 0,
      notSpam: 1,
    });
  });

  test("an erasure in the server's own process leaves its held model without the person's words too", async () => {
    const owner = await seedOwner(server, "unlearn-live@example.com");
    const other = await submitOk(server, owner.key, owner.formId, { message: "hello about my order" });
    await mark(server, owner.key, owner.formId, other, "not-spam");
    const address = "gone.live@example.com";
    const taught = await submitOk(server, owner.key, owner.formId, { email: address, message: "quuxlive zorbleword" });
    await mark(server, owner.key, owner.formId, taught, "spam");
    const scoreOf = async (message: string) => {
      const id = await submitOk(server, owner.key, owner.formId, { message });
      return (await listed(server, owner.key, owner.formId, id)).spam!.score;
    };
    expect(await scoreOf("quuxlive zorbleword")).toBeGreaterThan(0.5);

    expect((await server.services.lifecycle.eraseByEmail(OPERATOR, address, null)).erased).toBe(1);
    // The person's words are as unknown as words never seen.
    expect(await scoreOf("quuxlive zorbleword")).toBe(await scoreOf("plainprobe otherprobe"));
  });
});

describe("upgrading a database whose honeypot catches taught the filter", () => {
  // A database as version 21 left it (SQLite; PostgreSQL's twin of 22 runs the same rule in SQL):
  // one owner's filter taught by their own marks, by two honeypot catches, and by a catch they moved
  // back and marked spam themselves. Tokens are small integers, packed as the filter packs them.
  const AT = "2026-01-01T00:00:00.000Z";
  const pack = (tokens: number[]) => Buffer.from(Int32Array.from(tokens).buffer).toString("base64");
  const LESSONS: [id: string, label: "spam" | "ham", tokens: number[], reasons: string[]][] = [
    ["sub_ham", "ham", [1, 2, 3], []],
    ["sub_spam", "spam", [2, 4], []],
    ["sub_caught1", "spam", [4, 5], ["honeypot"]],
    ["sub_caught2", "spam", [5, 6], ["honeypot"]],
    ["sub_moved", "spam", [6], ["honeypot"]],
  ];

  test.if(onSqlite)(
    "the upgrade takes those lessons back out of the owner's (now their personal team's) model; the owner's own lessons, on a catch the owner moved too, stay",
    async () => {
      const { dir, cleanup } = tempDir();
      try {
        const old = openDatabase(join(dir, "formsvc.db"));
        migrate(
          old,
          migrations.filter((m) => m.version <= 21),
        );
        old.run(`INSERT INTO owners (id, email, created_at) VALUES ('own_1', 'upgrade@example.com', '${AT}')`);
        old.run(
          `INSERT INTO forms (id, owner_id, name, form_type, created_at, updated_at) VALUES ('frm_1', 'own_1', 'Contact', 'contact', '${AT}', '${AT}')`,
        );
        const counts = new Map<number, { spam: number; ham: number }>();
        for (const [id, label, tokens, reasons] of LESSONS) {
          old.run(
            "INSERT INTO submissions (id, form_id, data, created_at, status, spam) VALUES (?, 'frm_1', '{}', ?, ?, ?)",
            [id, AT, label === "spam" ? "spam" : "inbox", JSON.stringify({ score: null, reasons })],
          );
          old.run(
            "INSERT INTO spam_lessons (submission_id, owner_id, label, tokens, created_at) VALUES (?, 'own_1', ?, ?, ?)",
            [id, label, pack(tokens), AT],
          );
          for (const t of tokens) {
            const c = counts.get(t) ?? { spam: 0, ham: 0 };
            c[label] += 1;
            counts.set(t, c);
          }
        }
        for (const [token, c] of counts)
          old.run("INSERT INTO spam_tokens (owner_id, token, spam, ham) VALUES ('own_1', ?, ?, ?)", [
            token,
            c.spam,
            c.ham,
          ]);
        old.run("INSERT INTO spam_filters (owner_id, spam, ham, version) VALUES ('own_1', 4, 1, 5)");
        old.run(
          `INSERT INTO audit_events (at, owner_id, actor_kind, actor_id, action, object_id) VALUES ('${AT}', 'own_1', 'key', 'key_1', 'submission.moved', 'sub_moved')`,
        );
        old.close();

        const server = await startTestServer({ dir });
        try {
          const team = personalTeamId("own_1");
          // 4 lost the catch's count, 5 was counted by catches alone and goes, 6 keeps the moved catch's.
          expect(await tokensOf(server, "own_1")).toEqual([
            { token: 1, spam: 0, ham: 1 },
            { token: 2, spam: 1, ham: 1 },
            { token: 3, spam: 0, ham: 1 },
            { token: 4, spam: 1, ham: 0 },
            { token: 6, spam: 1, ham: 0 },
          ]);
          expect(await server.query("SELECT team_id, spam, ham, version FROM spam_filters")).toEqual([
            { team_id: team, spam: 2, ham: 1, version: 6 },
          ]);
          expect(
            (await server.query("SELECT submission_id FROM spam_lessons ORDER BY submission_id")).map(
              (r) => r.submission_id,
            ),
          ).toEqual(["sub_ham", "sub_moved", "sub_spam"]);
        } finally {
          await server.close();
        }
      } finally {
        cleanup();
      }
    },
  );
});
