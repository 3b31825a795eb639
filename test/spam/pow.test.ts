import { Database } from "bun:sqlite";
import { OPERATOR } from "../../src/lib/principal";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { deriveKey } from "altcha-lib/algorithms/pbkdf2";
import { createJobs } from "../../src/jobs";
import { fixedClock } from "../../src/lib/clock";
import { AppError } from "../../src/lib/errors";
import { CHALLENGE_TTL_MS } from "../../src/modules/spam/pow";
import type { Verdict } from "../../src/modules/submissions/pipeline";
import { onSqlite } from "../helpers/engine";
import { useServer } from "../helpers/fixture";
import { seedForm, seedKey, seedOwner, startTestServer, type TestServer } from "../helpers/harness";
import { encode, solvedPayload } from "../helpers/spam";

const server = useServer({ config: { rateLimit: 100_000 } });
const owner = server.seed("pow@example.com");
let otherFormId: string;

beforeAll(async () => {
  await server.services.forms.updateForm(OPERATOR, owner.formId, { challenge: "pow" });
  otherFormId = (await seedForm(server, "pow@example.com", { name: "Other", challenge: "pow" })).id;
});

const fetchChallenge = async (formId = owner.formId, s: TestServer = server, key = owner.key) => {
  const res = await s.json(`/api/v1/forms/${formId}/challenge`, { key });
  expect(res.status).toBe(200);
  return res.body;
};
/** A submission with this proof of work, over HTTP: "accept" when stored, else the refusal as the API told it. */
const check = async (
  altcha: unknown,
  formId = owner.formId,
  s: TestServer = server,
  key = s === server ? owner.key : timedKey,
): Promise<Verdict> => {
  const res = await s.json("/api/v1/forms/submit", {
    method: "POST",
    key,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ formId, data: { message: "hello" }, ...(altcha === undefined ? {} : { altcha }) }),
  });
  return res.status === 200 ? "accept" : new AppError(res.body.code, res.body.error);
};
let timedKey = "";
const expectRefused = (verdict: Verdict, words: RegExp) => {
  expect(verdict).toBeInstanceOf(AppError);
  const e = verdict as AppError;
  expect(e.code).toBe("CHALLENGE_FAILED");
  expect(e.status).toBe(400);
  expect(e.message).toMatch(words);
  expect(e.message).toContain("nothing was stored");
};
const usedRows = (s: TestServer = server) =>
  s.query<{ signature: string; expires_at: string }>("SELECT signature, expires_at FROM used_challenges");

describe("proof of work (ALTCHA v2)", () => {
  test("accepts a challenge fetched over HTTP and solved by altcha-lib, and remembers it until the challenge expires", async () => {
    const challenge = await fetchChallenge();
    const { payload } = await solvedPayload(challenge);
    expect(await check(payload)).toBe("accept");
    const row = (await usedRows()).find((r) => r.signature === challenge.signature);
    expect(row?.expires_at).toBe(new Date(challenge.parameters.expiresAt * 1000).toISOString());
  });

  test("refuses the same solution the second time", async () => {
    const { payload } = await solvedPayload(await fetchChallenge());
    expect(await check(payload)).toBe("accept");
    expectRefused(await check(payload), /already used/);
  });

  test("accepts only one of several concurrent submissions of the same solution", async () => {
    const { payload } = await solvedPayload(await fetchChallenge());
    const verdicts = await Promise.all([check(payload), check(payload), check(payload)]);
    expect(verdicts.filter((v) => v === "accept")).toHaveLength(1);
    for (const v of verdicts.filter((v) => v !== "accept")) expectRefused(v, /already used/);
  });

  test("refuses a submission without a solution, naming the field and the challenge URL", async () => {
    for (const missing of [undefined, ""])
      expectRefused(await check(missing), new RegExp(`forms/${owner.formId}/challenge.*field altcha`));
    // Not text at all: the body's schema refuses it first.
    expect((await check(null)) as AppError).toMatchObject({ code: "INVALID_BODY", status: 400 });
  });

  test("refuses a solution made for another form of the same owner", async () => {
    const { payload } = await solvedPayload(await fetchChallenge(otherFormId));
    expectRefused(await check(payload), /another form/);
    // Still good for the form it was made for.
    expect(await check(payload, otherFormId)).toBe("accept");
  });

  test("refuses tampered challenges: every signed parameter, the signature, and a challenge moved to another form", async () => {
    const { value } = await solvedPayload(await fetchChallenge());
    const p = value.challenge.parameters;
    const tampered = [
      { ...p, expiresAt: p.expiresAt + 3600 },
      { ...p, cost: 1 },
      // The prefix is the derived key's first bytes: a fixed "00" would be no change once in 256 challenges.
      { ...p, keyPrefix: (p.keyPrefix.startsWith("0") ? "1" : "0") + p.keyPrefix.slice(1) },
      { ...p, nonce: "0".repeat(32) },
      { ...p, salt: "f".repeat(32) },
      { ...p, keySignature: "0".repeat(64) },
    ];
    for (const parameters of tampered)
      expectRefused(await check(encode({ ...value, challenge: { ...value.challenge, parameters } })), /does not solve/);
    expectRefused(
      await check(encode({ ...value, challenge: { ...value.challenge, signature: "0".repeat(64) } })),
      /does not solve/,
    );
    // Re-labelled for another form: the signature no longer matches.
    const moved = { ...value, challenge: { ...value.challenge, parameters: { ...p, data: { formId: otherFormId } } } };
    expectRefused(await check(encode(moved), otherFormId), /does not solve/);
    // The honest payload was never used up by the refusals.
    expect(await check(encode(value))).toBe("accept");
  });

  test("refuses a wrong number: another counter with its honest key, or a key that is not the derived one", async () => {
    const { value } = await solvedPayload(await fetchChallenge());
    const { counter } = value.solution;
    // The key a counter derives to: nonce then the counter as a big-endian uint32 (ALTCHA v2).
    const keyFor = async (n: number) => {
      const password = new Uint8Array(20);
      password.set(Buffer.from(value.challenge.parameters.nonce, "hex"));
      new DataView(password.buffer).setUint32(16, n);
      const { derivedKey } = await deriveKey(
        value.challenge.parameters,
        Buffer.from(value.challenge.parameters.salt, "hex"),
        password,
      );
      return Buffer.from(derivedKey).toString("hex");
    };
    expect(await keyFor(counter)).toBe(value.solution.derivedKey);
    const wrong = counter === 0 ? 1 : counter - 1;
    const honestWrong = { counter: wrong, derivedKey: await keyFor(wrong) };
    expectRefused(await check(encode({ ...value, solution: honestWrong })), /does not solve/);
    const flipped = value.solution.derivedKey.replace(/^./, (c) => (c === "0" ? "1" : "0"));
    expectRefused(
      await check(encode({ ...value, solution: { ...value.solution, derivedKey: flipped } })),
      /does not solve/,
    );
    expect(await check(encode(value))).toBe("accept");
  });

  test("refuses malformed payloads with CHALLENGE_FAILED, never an exception", async () => {
    const { value } = await solvedPayload(await fetchChallenge());
    const malformed: unknown[] = [
      "%%% not base64 %%%",
      "YWJj", // "abc": base64, not JSON
      encode("a string"),
      encode(null),
      encode([value]),
      encode({ challenge: null, solution: null, test: true }), // the widget's test mode
      encode({ challenge: value.challenge }),
      encode({ ...value, solution: { ...value.solution, counter: String(value.solution.counter) } }),
      encode({ ...value, solution: { ...value.solution, counter: -1 } }),
      encode({ ...value, solution: { ...value.solution, counter: 2 ** 32 } }),
      encode({ ...value, solution: { ...value.solution, derivedKey: value.solution.derivedKey.toUpperCase() } }),
      encode({ ...value, solution: { ...value.solution, extra: 1 } }),
      encode({
        ...value,
        challenge: { ...value.challenge, parameters: { ...value.challenge.parameters, expiresAt: "soon" } },
      }),
      encode({
        ...value,
        challenge: { ...value.challenge, parameters: { ...value.challenge.parameters, algorithm: "SHA-1" } },
      }),
      btoa(JSON.stringify(value).replace('"parameters":{', '"parameters":{"__proto__":{"x":1},')),
      encode({ ...value, challenge: { ...value.challenge, signature: 42 } }),
      "A".repeat(1_000_000),
      encode({ ...value, padding: "x".repeat(10_000) }),
      42,
      true,
      { challenge: value.challenge, solution: value.solution }, // the object itself, not its encoding
      [encode(value)],
    ];
    const before = (await server.query<{ c: number }>("SELECT count(*) AS c FROM submissions"))[0]!.c;
    for (const raw of malformed) {
      const verdict = (await check(raw)) as AppError;
      // Text of a sane length reaches the check; anything else the body's schema (400) or size limit (413) refuses first.
      if (typeof raw === "string" && raw.length <= 8192) expectRefused(verdict, /not a payload of the ALTCHA widget/);
      else
        expect([verdict.code, verdict.status]).toEqual(
          typeof raw === "string" && raw.length > 100_000 ? ["PAYLOAD_TOO_LARGE", 413] : ["INVALID_BODY", 400],
        );
    }
    expect((await server.query<{ c: number }>("SELECT count(*) AS c FROM submissions"))[0]!.c).toBe(before);
    expect(await check(encode(value))).toBe("accept");
  });

  // SQLite's database-wide write lock; concurrent copies of one solution on either engine: "accepts only one of several concurrent submissions".
  test.if(onSqlite)(
    "records the solution with its submission: while another process holds the write lock both wait, then one of two copies is stored",
    async () => {
      const { payload, value } = await solvedPayload(await fetchChallenge());
      const other = new Database(server.db);
      other.run("BEGIN IMMEDIATE");
      const verdicts: Verdict[] = [];
      const pending = Promise.all([check(payload), check(payload)].map((p) => p.then((v) => void verdicts.push(v))));
      try {
        await Bun.sleep(300);
        // Not decided yet, and the event loop was free to answer others meanwhile.
        expect(verdicts).toEqual([]);
        expect((await server.request("/healthz")).status).toBe(200);
        expect((await usedRows()).map((r) => r.signature)).not.toContain(value.challenge.signature);
      } finally {
        other.run("COMMIT");
        other.close();
      }
      await pending;
      expect(verdicts.filter((v) => v === "accept")).toHaveLength(1);
      for (const v of verdicts.filter((v) => v !== "accept")) expectRefused(v, /already used/);
      expect((await usedRows()).map((r) => r.signature)).toContain(value.challenge.signature);
    },
  );

  test("leaves the solution unused when its submission is refused after the check (another check says no)", async () => {
    const guarded = (
      await seedForm(server, "pow@example.com", {
        name: "Guarded",
        challenge: "pow",
        allowedOrigins: ["https://site.example"],
      })
    ).id;
    const { payload } = await solvedPayload(await fetchChallenge(guarded));
    // A page outside the allowed origins: refused before the challenge is even looked at.
    const publishable = (await seedKey(server, "pow@example.com", { publishable: true })).key;
    const refused = await server.json("/api/v1/forms/submit", {
      method: "POST",
      key: publishable,
      headers: { "content-type": "application/json", origin: "https://elsewhere.example" },
      body: JSON.stringify({ formId: guarded, data: {}, altcha: payload }),
    });
    expect(refused.body.code).toBe("ORIGIN_NOT_ALLOWED");
    expect(await check(payload, guarded)).toBe("accept");
  });

  test("a pow form refuses a submit without a solution with 400 CHALLENGE_FAILED and stores nothing", async () => {
    const before = (await server.query<{ c: number }>("SELECT count(*) AS c FROM submissions"))[0]!.c;
    const res = await server.json("/api/v1/forms/submit", {
      method: "POST",
      key: owner.key,
      headers: { "content-type": "application/json" },
      // A filled honeypot too: the challenge is checked first, so this is a 400, not a stored spam.
      body: JSON.stringify({ formId: owner.formId, data: { message: "hi", _gotcha: "bot" } }),
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("CHALLENGE_FAILED");
    expect(res.body.error).toContain("altcha");
    expect((await server.query<{ c: number }>("SELECT count(*) AS c FROM submissions"))[0]!.c).toBe(before);
  });
});

describe("proof of work over time", () => {
  let timed: TestServer;
  let clock: ReturnType<typeof fixedClock>;
  let formId: string;
  let key: string;

  beforeAll(async () => {
    // altcha-lib also checks expiry against the wall clock, so the server's clock starts at now.
    clock = fixedClock(Date.now());
    timed = await startTestServer({ clock });
    const seeded = await seedOwner(timed, "time@example.com");
    formId = seeded.formId;
    key = seeded.key;
    timedKey = seeded.key;
    await timed.services.forms.updateForm(OPERATOR, formId, { challenge: "pow" });
  });
  afterAll(() => timed.close());

  test("issues challenges that expire 10 minutes after they are fetched", async () => {
    const challenge = await fetchChallenge(formId, timed, key);
    expect(challenge.parameters.expiresAt).toBe(Math.ceil((clock.now() + CHALLENGE_TTL_MS) / 1000));
  });

  test("accepts a solution 9 minutes after the challenge, refuses one past its expiry", async () => {
    const fresh = await solvedPayload(await fetchChallenge(formId, timed, key));
    const stale = await solvedPayload(await fetchChallenge(formId, timed, key));
    clock.advance(9 * 60 * 1000);
    expect(await check(fresh.payload, formId, timed)).toBe("accept");
    clock.advance(60 * 1000 + 1000);
    expectRefused(await check(stale.payload, formId, timed), /expired/);
  });

  test("the cleanup job deletes used solutions whose challenges have expired, and keeps the others", async () => {
    const old = await solvedPayload(await fetchChallenge(formId, timed, key));
    expect(await check(old.payload, formId, timed)).toBe("accept");
    clock.advance(5 * 60 * 1000);
    const recent = await solvedPayload(await fetchChallenge(formId, timed, key));
    expect(await check(recent.payload, formId, timed)).toBe("accept");
    const job = createJobs(timed.services).find((j) => j.name === "delete-expired-challenges")!;

    await job.run();
    const signatures = async () => (await usedRows(timed)).map((r) => r.signature);
    expect(await signatures()).toContain(old.value.challenge.signature!);

    clock.advance(5 * 60 * 1000 + 1000);
    await job.run();
    expect(await signatures()).not.toContain(old.value.challenge.signature!);
    expect(await signatures()).toContain(recent.value.challenge.signature!);
    // Forgotten, yet still refused: it has expired.
    expectRefused(await check(old.payload, formId, timed), /expired/);
  });
});
