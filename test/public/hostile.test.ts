import { beforeAll, describe, expect, test } from "bun:test";
import { fixedClock } from "../../src/lib/clock";
import type { ChallengeJson } from "../../src/modules/spam/model";
import { useServer } from "../helpers/fixture";
import { seedForm, seedKey } from "../helpers/harness";
import { encode, solvedPayload } from "../helpers/spam";

// What a public form meets once its page is online: floods, forged proofs of work, forged origins.
const SITE = "https://www.site.example";
const EVIL = "https://evil.example";
const OWNER = "owner@example.com";
const PUBLIC_LIMIT = 5;

// The rate limiter's clock stands still: no bucket refills while a test runs, however slow the machine.
const rateClock = fixedClock("2026-03-01T12:00:00.000Z");
const server = useServer({ config: { publicRateLimit: PUBLIC_LIMIT, rateLimit: 100_000 }, rateClock });
let secret: string;

beforeAll(async () => {
  secret = (await seedKey(server, OWNER, { name: "server" })).key;
});

const publishableFor = async (formId: string) =>
  (await seedKey(server, OWNER, { name: "site", publishable: true, forms: [formId] })).key;
const count = async (sql: string, ...params: string[]) =>
  (await server.query<{ n: number }>(`SELECT count(*) AS n FROM ${sql}`, ...params))[0]!.n;
const stored = (formId: string) => count("submissions WHERE form_id = ?", formId);

describe("a thousand honeypot posts from one address with a publishable key", () => {
  test("let the first few in, to the spam folder only, refuse the rest with 429, and count nothing anywhere", async () => {
    const form = await seedForm(server, OWNER, {
      name: "Launch waitlist",
      formType: "waitlist",
      usersJoinedEnabled: true,
      emailEnabled: true,
      developerNotifications: true,
      allowedOrigins: [SITE],
    });
    const key = await publishableFor(form.id);
    const outboxBefore = await count("outbox");

    // What a bot sends to the no-JavaScript form: every field filled, the honeypot too.
    const post = (i: number) =>
      server.request(`/api/v1/forms/submit?apiKey=${key}`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", origin: SITE },
        body: new URLSearchParams({
          formId: form.id,
          email: `bot${i}@spam.example`,
          message: "cheap pills",
          _gotcha: "http://spam.example",
        }),
      });
    const statuses: number[] = [];
    for (let start = 0; start < 1000; start += 50) {
      const batch = await Promise.all(Array.from({ length: 50 }, (_, i) => post(start + i)));
      for (const res of batch) {
        statuses.push(res.status);
        if (res.status === 429) expect(res.headers.get("retry-after")).toMatch(/^[1-9]\d*$/);
        await res.body?.cancel();
      }
    }
    const tally = statuses.reduce<Record<number, number>>((t, s) => ({ ...t, [s]: (t[s] ?? 0) + 1 }), {});
    expect(tally).toEqual({ 200: PUBLIC_LIMIT, 429: 1000 - PUBLIC_LIMIT });

    const spam = await server.json(`/api/v1/forms/${form.id}/submissions?status=spam&limit=100`, { key: secret });
    expect(spam.status).toBe(200);
    expect(spam.body.submissions).toHaveLength(PUBLIC_LIMIT);
    for (const s of spam.body.submissions) expect(Object.keys(s.data).sort()).toEqual(["_meta", "email", "message"]);
    const inbox = await server.json(`/api/v1/forms/${form.id}/submissions`, { key: secret });
    expect(inbox.body.submissions).toEqual([]);

    const counted = async () => ({
      submissionCount: (await server.json(`/api/v1/forms/${form.id}`, { key: secret })).body.submissionCount,
      usersJoined: (await server.json(`/api/v1/forms/${form.id}/users-joined`, { key: secret })).body.usersJoined,
      analytics: (await server.json(`/api/v1/forms/${form.id}/analytics?period=day`, { key: secret })).body
        .totalSubmissions,
      outbox: (await count("outbox")) - outboxBefore,
      dailyRows: await count("form_daily_counts WHERE form_id = ?", form.id),
    });
    expect(await counted()).toEqual({ submissionCount: 0, usersJoined: 0, analytics: 0, outbox: 0, dailyRows: 0 });

    // One honest submission, from the server with the secret key, shows each of those counts moving.
    const honest = await server.json("/api/v1/forms/submit", {
      method: "POST",
      key: secret,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ formId: form.id, data: { email: "ada@example.com" } }),
    });
    expect(honest.status).toBe(200);
    expect(await counted()).toMatchObject({ submissionCount: 1, usersJoined: 1, analytics: 1, outbox: 1 });
  });
});

describe("oversized and malformed proofs of work over HTTP", () => {
  let formId: string;
  let otherFormId: string;
  let challenge: ChallengeJson;
  let real: Awaited<ReturnType<typeof solvedPayload>>;

  beforeAll(async () => {
    formId = (await seedForm(server, OWNER, { name: "Guarded by pow", challenge: "pow" })).id;
    otherFormId = (await seedForm(server, OWNER, { name: "Another pow form", challenge: "pow" })).id;
    const fetched = await server.json<ChallengeJson>(`/api/v1/forms/${formId}/challenge`, { key: secret });
    challenge = fetched.body;
    real = await solvedPayload(challenge);
  });

  const submitJson = (altcha: unknown) =>
    server.request("/api/v1/forms/submit", {
      method: "POST",
      key: secret,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ formId, data: { message: "hi" }, altcha }),
    });
  const flipLastBit = (hex: string) => hex.slice(0, -1) + (parseInt(hex.slice(-1), 16) ^ 1).toString(16);
  const withSolution = (solution: Record<string, unknown>) =>
    encode({ challenge: real.value.challenge, solution: { ...real.value.solution, ...solution } });
  const withParameters = (parameters: Record<string, unknown>) =>
    encode({
      challenge: { ...real.value.challenge, parameters: { ...real.value.challenge.parameters, ...parameters } },
      solution: real.value.solution,
    });

  test("are each a 400 that names the problem, never a 500, and store nothing", async () => {
    const usedBefore = await count("used_challenges");
    const nested = `${"[".repeat(3000)}${"]".repeat(3000)}`;
    const cases: [string, unknown][] = [
      ["empty", ""],
      ["over the schema's 8,192 characters", "A".repeat(8193)],
      ["8,192 characters of base64", "A".repeat(8192)],
      ["a number", 12345],
      ["an object", { challenge: challenge, solution: real.value.solution }],
      ["an array", [real.payload]],
      ["null", null],
      ["not base64", "this is not base64!"],
      ["base64 with a bad padding", "QUJD="],
      ["base64 of text", btoa("not json at all")],
      ["base64 of null", btoa("null")],
      ["base64 of a list", btoa("[]")],
      ["base64 of deeply nested lists", btoa(nested)],
      ["base64 of a __proto__ payload", btoa('{"__proto__":{"verified":true},"challenge":null,"solution":null}')],
      ["the widget's test-mode payload", encode({ challenge: null, solution: null, test: true })],
      ["non-ASCII text", "ÄÖÜ€漢字"],
      ["a negative counter", withSolution({ counter: -1 })],
      ["a huge counter", withSolution({ counter: 1e308 })],
      ["a counter as text", withSolution({ counter: String(real.value.solution.counter) })],
      ["a fractional counter", withSolution({ counter: 0.5 })],
      ["a derived key one bit off", withSolution({ derivedKey: flipLastBit(real.value.solution.derivedKey) })],
      ["an uppercase derived key", withSolution({ derivedKey: real.value.solution.derivedKey.toUpperCase() })],
      ["a short derived key", withSolution({ derivedKey: "ab" })],
      ["a cost raised to make the server derive for long", withParameters({ cost: 1_000_000 })],
      [
        "an expiry moved a year on",
        withParameters({ expiresAt: real.value.challenge.parameters.expiresAt + 365 * 86400 }),
      ],
      ["another form in the signed data", withParameters({ data: { formId: otherFormId } })],
      ["an extra parameter", withParameters({ extra: "x" })],
      [
        "a zeroed signature",
        encode({ challenge: { ...real.value.challenge, signature: "0".repeat(64) }, solution: real.value.solution }),
      ],
      ["no solution", encode({ challenge: real.value.challenge })],
    ];
    const seen: [string, number, string][] = [];
    for (const [label, altcha] of cases) {
      const res = await submitJson(altcha);
      const body = await res.json();
      seen.push([label, res.status, body.code]);
      // A message for a person, no stack or internal detail.
      expect([label, typeof body.error, Object.keys(body).sort(), body.error]).toEqual([
        label,
        "string",
        ["code", "error", "requestId"],
        expect.not.stringMatching(/\.ts\b|\n\s*at /),
      ]);
    }
    // INVALID_BODY where the value is not text of at most 8,192 characters; CHALLENGE_FAILED for any text that is no solution.
    const notText = new Set(["over the schema's 8,192 characters", "a number", "an object", "an array", "null"]);
    expect(seen).toEqual(
      cases.map(([label]) => [label, 400, notText.has(label) ? "INVALID_BODY" : "CHALLENGE_FAILED"]),
    );

    expect(await stored(formId)).toBe(0);
    expect(await count("used_challenges")).toBe(usedBefore);
  });

  test("in a form post (repeated, as a file, oversized) are 400 or 413, never a 500, and store nothing", async () => {
    const urlencoded = (params: [string, string][]) =>
      server.request("/api/v1/forms/submit", {
        method: "POST",
        key: secret,
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams(params),
      });
    const multipart = (form: FormData) =>
      server.request("/api/v1/forms/submit", { method: "POST", key: secret, body: form });
    const asFile = new FormData();
    asFile.set("formId", formId);
    asFile.set("altcha", new Blob([real.payload]), "altcha.txt");
    const huge = new FormData();
    huge.set("formId", formId);
    huge.set("altcha", "A".repeat(50_000));
    const overLimit = new FormData();
    overLimit.set("formId", formId);
    overLimit.set("altcha", "A".repeat(200_000));

    const answers = [
      await urlencoded([
        ["formId", formId],
        ["altcha", "garbage"],
        ["altcha", "more garbage"],
      ]),
      await urlencoded([
        ["formId", formId],
        ["altcha", ""],
      ]),
      await urlencoded([
        ["formId", formId],
        ["message", "no altcha field at all"],
      ]),
      await multipart(asFile),
      await multipart(huge),
      await multipart(overLimit),
    ];
    const bodies = await Promise.all(answers.map((r) => r.json()));
    expect(answers.map((r, i) => [r.status, bodies[i].code])).toEqual([
      [400, "CHALLENGE_FAILED"],
      [400, "CHALLENGE_FAILED"],
      [400, "CHALLENGE_FAILED"],
      // The form takes no files (its `files` setting is null): any file part is refused as one.
      [400, "NO_FILE_UPLOADS"],
      [400, "INVALID_BODY"],
      [413, "PAYLOAD_TOO_LARGE"],
    ]);
    expect(await stored(formId)).toBe(0);
  });

  test("leave the real solution unspent: after all of them it is accepted once, then refused as used", async () => {
    const first = await submitJson(real.payload);
    expect(first.status).toBe(200);
    const again = await submitJson(real.payload);
    expect([again.status, (await again.json()).code]).toEqual([400, "CHALLENGE_FAILED"]);
    expect(await stored(formId)).toBe(1);
  });
});

describe("forged origins", () => {
  let formId: string;
  let formName: string;

  beforeAll(async () => {
    const form = await seedForm(server, OWNER, { name: "Origin-bound form", allowedOrigins: [SITE] });
    [formId, formName] = [form.id, form.name];
  });

  test("do not bind a secret key: from a server any Origin is accepted, but a redirect still goes only to an allowed origin", async () => {
    const before = await stored(formId);
    const res = await server.json("/api/v1/forms/submit", {
      method: "POST",
      key: secret,
      headers: { origin: EVIL, "content-type": "application/json" },
      body: JSON.stringify({ formId, data: { via: "server" } }),
    });
    expect([res.status, res.body.success]).toEqual([200, true]);
    const redirect = await server.json("/api/v1/forms/submit", {
      method: "POST",
      key: secret,
      headers: { origin: EVIL, "content-type": "application/json" },
      body: JSON.stringify({ formId, data: {}, redirectUrl: `${EVIL}/phish` }),
    });
    // Stored, and answered as a post without redirectUrl: no open redirect.
    expect([redirect.status, redirect.body.redirect]).toEqual([200, undefined]);
    expect(await stored(formId)).toBe(before + 2);
  });

  test("without a key are a 401 on every endpoint, whose answer carries no data and stores nothing", async () => {
    const before = await count("submissions");
    const usedBefore = await count("used_challenges");
    const attempts: [string, RequestInit][] = [
      [
        "/api/v1/forms/submit",
        {
          method: "POST",
          headers: { origin: SITE, "content-type": "application/json" },
          body: JSON.stringify({ formId, data: { forged: true } }),
        },
      ],
      [
        "/api/v1/forms/submit",
        {
          method: "POST",
          headers: { origin: SITE, "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({ formId, forged: "yes" }),
        },
      ],
      [
        "/api/v1/forms/submit",
        {
          method: "POST",
          headers: {
            origin: SITE,
            referer: `${SITE}/contact`,
            "x-api-key": "fpk_forged",
            "content-type": "application/json",
          },
          body: JSON.stringify({ formId, data: {} }),
        },
      ],
      [`/api/v1/forms/${formId}/challenge`, { headers: { origin: SITE } }],
      ["/api/v1/forms/list", { headers: { origin: SITE } }],
      [`/api/v1/forms/${formId}`, { headers: { origin: SITE } }],
      [`/api/v1/forms/${formId}/submissions`, { headers: { origin: SITE } }],
      [`/api/v1/forms/${formId}/analytics`, { headers: { origin: SITE } }],
    ];
    for (const [path, init] of attempts) {
      const res = await server.request(path, init);
      const text = await res.text();
      const body = JSON.parse(text);
      expect([path, res.status, body.code]).toEqual([path, 401, expect.any(String)]);
      expect([path, Object.keys(body).every((k) => ["error", "code", "requestId"].includes(k))]).toEqual([path, true]);
      expect([path, text.includes(formName), text.includes(OWNER)]).toEqual([path, false, false]);
      // Only the two public endpoints let a page read even this refusal.
      const isPublic = path.endsWith("/submit") || path.endsWith("/challenge");
      expect([path, res.headers.get("access-control-allow-origin")]).toEqual([path, isPublic ? SITE : null]);
    }
    expect(await count("submissions")).toBe(before);
    expect(await count("used_challenges")).toBe(usedBefore);
  });

  test("with a publishable key are refused from another origin, and one forged to look allowed still has to solve the proof of work", async () => {
    const key = await publishableFor(formId);
    const before = await stored(formId);
    const fromEvil = await server.json("/api/v1/forms/submit", {
      method: "POST",
      key,
      headers: { origin: EVIL, "content-type": "application/json" },
      body: JSON.stringify({ formId, data: {} }),
    });
    expect([fromEvil.status, fromEvil.body.code, fromEvil.headers.get("access-control-allow-origin")]).toEqual([
      403,
      "ORIGIN_NOT_ALLOWED",
      null,
    ]);
    const opaque = await server.json("/api/v1/forms/submit", {
      method: "POST",
      key,
      headers: { origin: "null", referer: `${SITE}/contact`, "content-type": "application/json" },
      body: JSON.stringify({ formId, data: {} }),
    });
    expect([opaque.status, opaque.body.code]).toEqual([403, "ORIGIN_NOT_ALLOWED"]);
    expect(await stored(formId)).toBe(before);

    // A script can claim any Origin; on a form whose challenge is pow that buys it nothing.
    const powForm = (
      await seedForm(server, OWNER, { name: "Origin-bound pow form", allowedOrigins: [SITE], challenge: "pow" })
    ).id;
    const powKey = await publishableFor(powForm);
    const forged = await server.json("/api/v1/forms/submit", {
      method: "POST",
      key: powKey,
      headers: { origin: SITE, "content-type": "application/json" },
      body: JSON.stringify({ formId: powForm, data: {} }),
    });
    expect([forged.status, forged.body.code]).toEqual([400, "CHALLENGE_FAILED"]);
    expect(await stored(powForm)).toBe(0);
  });
});
