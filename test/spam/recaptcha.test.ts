import { afterAll, describe, expect, test } from "bun:test";
import { useServer } from "../helpers/fixture";

const SECRET = "6LeRecaptchaSecretForTests";

type Answer = { success: boolean; score?: number; "error-codes"?: string[] } | "hang";
let answer: Answer = { success: true };
const received: Record<string, string>[] = [];
const hanging: (() => void)[] = [];
/** Stands in for Google's siteverify on loopback, answering as `answer` says. */
const verifier = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  async fetch(req) {
    received.push(Object.fromEntries(new URLSearchParams(await req.text())));
    if (answer === "hang")
      return new Promise<Response>((resolve) => hanging.push(() => resolve(Response.json({ success: true }))));
    return Response.json({ ...answer, hostname: "example.com", action: "submit" });
  },
});
afterAll(async () => {
  for (const release of hanging) release();
  await verifier.stop(true);
});

const server = useServer({
  config: {
    rateLimit: 1_000_000,
    recaptchaSecret: SECRET,
    recaptchaVerifyUrl: `http://127.0.0.1:${verifier.port}/recaptcha/api/siteverify`,
  },
});
const owner = server.seed("recaptcha@example.com", { challenge: "recaptcha", publicEndpoint: true });

/** A JSON submit with `captchaToken`, as a page's fetch() would send it. */
const submitJson = (token: string) =>
  server.json("/api/v1/forms/submit", {
    method: "POST",
    key: owner.key,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ formId: owner.formId, data: { message: "hello" }, captchaToken: token }),
  });
/** A plain form post to /f/ carrying the widget's field g-recaptcha-response. */
const submitForm = (token: string) =>
  server.json(`/f/${owner.formId}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
    body: new URLSearchParams({ message: "hello", "g-recaptcha-response": token }).toString(),
  });
const stored = async () =>
  (await server.query("SELECT count(*) AS n FROM submissions WHERE form_id = ?", owner.formId))[0].n as number;

describe("challenge recaptcha", () => {
  const cases: { name: string; answer: Answer; minScore?: number; status: number; code?: string }[] = [
    { name: "a v2 answer (success, no score) passes", answer: { success: true }, status: 200 },
    { name: "a v3 score at the form's minimum passes", answer: { success: true, score: 0.5 }, status: 200 },
    {
      name: "a v3 score below the form's minimum is refused",
      answer: { success: true, score: 0.3 },
      status: 400,
      code: "CHALLENGE_FAILED",
    },
    {
      name: "the minimum is the form's recaptchaMinScore",
      answer: { success: true, score: 0.6 },
      minScore: 0.7,
      status: 400,
      code: "CHALLENGE_FAILED",
    },
    {
      name: "a token Google does not accept is refused",
      answer: { success: false, "error-codes": ["invalid-input-response"] },
      status: 400,
      code: "CHALLENGE_FAILED",
    },
  ];
  for (const c of cases)
    test(`${c.name}: ${c.status}${c.code ? ` ${c.code}, nothing stored` : ", stored"} (JSON captchaToken and form field g-recaptcha-response alike)`, async () => {
      await server.send("PATCH", `/forms/${owner.formId}`, owner.key, {
        spamSettings: { recaptchaMinScore: c.minScore ?? 0.5 },
      });
      answer = c.answer;
      for (const send of [submitJson, submitForm]) {
        const before = await stored();
        received.length = 0;
        const res = await send("token-abc");
        expect({ status: res.status, code: res.body.code }).toEqual({ status: c.status, code: c.code });
        expect(await stored()).toBe(before + (c.status === 200 ? 1 : 0));
        expect(received).toEqual([expect.objectContaining({ secret: SECRET, response: "token-abc" })]);
      }
    });

  test("a submission without a token is refused with 400 CHALLENGE_FAILED, and the token is never stored", async () => {
    answer = { success: true, score: 0.9 };
    const res = await server.json("/api/v1/forms/submit", {
      method: "POST",
      key: owner.key,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ formId: owner.formId, data: { message: "no token" } }),
    });
    expect([res.status, res.body.code]).toEqual([400, "CHALLENGE_FAILED"]);
    expect(await server.tablesHolding("token-abc")).toEqual([]);
  });

  test("a verifier that does not answer within 5 s is a 503 with Retry-After, nothing stored", async () => {
    answer = "hang";
    const before = await stored();
    const started = performance.now();
    const res = await submitJson("token-slow");
    expect([res.status, res.body.code, res.headers.get("retry-after")]).toEqual([503, "UNAVAILABLE", "5"]);
    expect(performance.now() - started).toBeGreaterThanOrEqual(4900);
    expect(await stored()).toBe(before);
  }, 15_000);
});
