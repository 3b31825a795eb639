import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { AppError } from "../../src/lib/errors";
import { createLogger } from "../../src/lib/log";
import type { Verdict } from "../../src/modules/submissions/pipeline";
import { seedForm, seedOwner, startTestServer, type TestServer } from "../helpers/harness";
import { candidate } from "../helpers/spam";

const TURNSTILE_SECRET = "0x4AAAAAAAturnstile-secret-1234";
const HCAPTCHA_SECRET = "0xhcaptcha-secret-5678";

type Mode = "ok" | "fail" | "500" | "not-json" | "redirect" | "bad-secret" | "hang";
interface Received {
  path: string;
  contentType: string | null;
  form: Record<string, string>;
}

/** Stands in for Cloudflare's and hCaptcha's siteverify on loopback, answering as `mode` says. */
let mode: Mode = "ok";
const received: Received[] = [];
const hanging: (() => void)[] = [];
const verifier = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  async fetch(req) {
    const form = Object.fromEntries(new URLSearchParams(await req.text()));
    received.push({ path: new URL(req.url).pathname, contentType: req.headers.get("content-type"), form });
    switch (mode) {
      case "ok":
        return Response.json({ success: true, challenge_ts: new Date().toISOString(), hostname: "example.com" });
      case "fail":
        return Response.json({ success: false, "error-codes": ["invalid-input-response"] });
      case "bad-secret":
        return Response.json({ success: false, "error-codes": ["invalid-input-secret"] });
      case "500":
        return Response.json({ success: true }, { status: 500 });
      case "not-json":
        return new Response("success: true", { headers: { "content-type": "text/plain" } });
      case "redirect":
        return new Response(null, { status: 302, headers: { location: "/elsewhere" } });
      case "hang":
        return new Promise<Response>((resolve) => hanging.push(() => resolve(Response.json({ success: true }))));
    }
  },
});
const verifierUrl = `http://127.0.0.1:${verifier.port}`;

const logLines: string[] = [];
let server: TestServer;
let unconfigured: TestServer;
let turnstileForm: string;
let hcaptchaForm: string;

beforeAll(async () => {
  server = await startTestServer({
    config: {
      turnstileSecret: TURNSTILE_SECRET,
      turnstileVerifyUrl: `${verifierUrl}/turnstile/v0/siteverify`,
      hcaptchaSecret: HCAPTCHA_SECRET,
      hcaptchaVerifyUrl: `${verifierUrl}/hcaptcha/siteverify`,
    },
    log: createLogger("debug", (line) => void logLines.push(line)),
  });
  const owner = await seedOwner(server, "captcha@example.com", { challenge: "turnstile" });
  turnstileForm = owner.formId;
  hcaptchaForm = (await seedForm(server, "captcha@example.com", { name: "h", challenge: "hcaptcha" })).id;
  unconfigured = await startTestServer({
    config: { turnstileVerifyUrl: `${verifierUrl}/turnstile`, hcaptchaVerifyUrl: `${verifierUrl}/hcaptcha` },
  });
});
afterAll(async () => {
  for (const release of hanging) release();
  await server.close();
  await unconfigured.close();
  await verifier.stop(true);
});

const check = async (formId: string, captchaToken: unknown, s: TestServer = server, ip?: string): Promise<Verdict> =>
  s.services.spam.checks.challenge.check(await candidate(s, formId, { captchaToken, ip }));
const expectError = (verdict: Verdict, code: "CHALLENGE_FAILED" | "UNAVAILABLE", words: RegExp) => {
  expect(verdict).toBeInstanceOf(AppError);
  expect((verdict as AppError).code).toBe(code);
  expect((verdict as AppError).message).toMatch(words);
};

describe("Turnstile and hCaptcha", () => {
  test("posts the configured secret, the token and the submitter's address form-encoded, and accepts success: true", async () => {
    mode = "ok";
    received.length = 0;
    expect(await check(turnstileForm, "ts-token-1", server, "198.51.100.23")).toBe("accept");
    expect(await check(hcaptchaForm, "hc-token-2", server, "2001:db8::7")).toBe("accept");
    expect(received).toEqual([
      {
        path: "/turnstile/v0/siteverify",
        contentType: expect.stringContaining("application/x-www-form-urlencoded"),
        form: { secret: TURNSTILE_SECRET, response: "ts-token-1", remoteip: "198.51.100.23" },
      },
      {
        path: "/hcaptcha/siteverify",
        contentType: expect.stringContaining("application/x-www-form-urlencoded"),
        form: { secret: HCAPTCHA_SECRET, response: "hc-token-2", remoteip: "2001:db8::7" },
      },
    ]);
  });

  test("sends no remoteip when the submitter's address is unknown", async () => {
    mode = "ok";
    received.length = 0;
    expect(await check(turnstileForm, "ts-token-3", server, "unknown")).toBe("accept");
    expect(received[0]!.form).toEqual({ secret: TURNSTILE_SECRET, response: "ts-token-3" });
  });

  test("refuses a token the provider does not accept, and any answer that is not a 2xx with success: true", async () => {
    for (const m of ["fail", "500", "not-json", "redirect"] as const) {
      mode = m;
      expectError(await check(turnstileForm, "ts-token"), "CHALLENGE_FAILED", /Turnstile did not accept the token/);
      expectError(await check(hcaptchaForm, "hc-token"), "CHALLENGE_FAILED", /hCaptcha did not accept the token/);
    }
  });

  test("refuses a missing or oversized token without asking the provider", async () => {
    mode = "ok";
    received.length = 0;
    for (const token of [undefined, "", 42, { token: "x" }])
      expectError(await check(turnstileForm, token), "CHALLENGE_FAILED", /cf-turnstile-response.*captchaToken/);
    expectError(await check(hcaptchaForm, undefined), "CHALLENGE_FAILED", /h-captcha-response.*captchaToken/);
    expectError(await check(turnstileForm, "t".repeat(5000)), "CHALLENGE_FAILED", /did not accept/);
    expect(received).toEqual([]);
  });

  test("answers 503 with Retry-After when the provider does not answer within 5 s", async () => {
    mode = "hang";
    const started = performance.now();
    const verdict = await check(hcaptchaForm, "hc-slow-token");
    const waited = performance.now() - started;
    expectError(verdict, "UNAVAILABLE", /hCaptcha did not answer in time.*nothing was stored/);
    expect((verdict as AppError).status).toBe(503);
    expect((verdict as AppError).headers).toEqual({ "retry-after": "5" });
    expect(waited).toBeGreaterThanOrEqual(4900);
    expect(waited).toBeLessThan(7000);
  }, 15_000);

  test("answers 503 when the provider cannot be reached", async () => {
    const closed = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("") });
    const url = `http://127.0.0.1:${closed.port}/siteverify`;
    await closed.stop(true);
    const down = await startTestServer({ config: { turnstileSecret: TURNSTILE_SECRET, turnstileVerifyUrl: url } });
    try {
      const formId = await (await seedOwner(down, "down@example.com", { challenge: "turnstile" })).formId;
      expectError(await check(formId, "ts-token", down), "UNAVAILABLE", /Turnstile did not answer/);
    } finally {
      await down.close();
    }
  });

  test("fails closed with 503 naming the missing setting when a form needs a provider whose secret is not set", async () => {
    received.length = 0;
    const owner = await seedOwner(unconfigured, "nosecret@example.com", { challenge: "turnstile" });
    const h = (await seedForm(unconfigured, "nosecret@example.com", { name: "h", challenge: "hcaptcha" })).id;
    expectError(await check(owner.formId, "ts-token", unconfigured), "UNAVAILABLE", /FORMSVC_TURNSTILE_SECRET/);
    expectError(await check(h, "hc-token", unconfigured), "UNAVAILABLE", /FORMSVC_HCAPTCHA_SECRET/);
    expect(received).toEqual([]);

    // Over HTTP: a 503, and nothing stored.
    const res = await unconfigured.json("/api/v1/forms/submit", {
      method: "POST",
      key: owner.key,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ formId: owner.formId, data: { message: "hi" } }),
    });
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ code: "UNAVAILABLE", error: expect.stringContaining("FORMSVC_TURNSTILE_SECRET") });
    expect((await unconfigured.query<{ c: number }>("SELECT count(*) AS c FROM submissions"))[0]!.c).toBe(0);
  });

  test("tells the operator when the provider refuses our secret key, and never logs a secret or a token", async () => {
    mode = "bad-secret";
    expectError(await check(turnstileForm, "ts-token-logged?"), "CHALLENGE_FAILED", /did not accept/);
    const log = logLines.join("");
    expect(log).toContain("refused our secret key");
    for (const secret of [TURNSTILE_SECRET, HCAPTCHA_SECRET, "ts-token", "hc-token", "hc-slow-token"])
      expect(log).not.toContain(secret);
  });
});
