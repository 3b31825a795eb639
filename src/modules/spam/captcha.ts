import { isIP } from "node:net";
import type { Logger } from "../../lib/log";

/** What a siteverify call decided: the token holds, it does not, or the provider could not say. */
export type CaptchaOutcome = "ok" | "failed" | "unavailable" | "low-score";

export interface CaptchaProvider {
  /** A name for logs and messages: "Turnstile", "hCaptcha". */
  name: string;
  /** The siteverify endpoint. */
  url: URL;
  /** The site's secret key; empty when the operator has not set it. */
  secret: string;
}

/** How long a provider may take to answer before the submission is refused as unavailable (503). */
export const VERIFY_TIMEOUT_MS = 5000;
// Turnstile documents tokens of at most 2048 characters; hCaptcha's are shorter. Longer is no token.
const MAX_TOKEN_CHARS = 4096;

/**
 * Verifies a Turnstile, hCaptcha or reCAPTCHA token the way the providers document siteverify: a form-encoded
 * POST of `secret`, `response` and `remoteip`, answered with JSON `{"success": true|false, …}`.
 * Success only for a 2xx answer whose JSON says `success: true`; no answer within 5 s or a network
 * error is "unavailable". Neither the secret nor the token is ever logged.
 */
export function createCaptchaVerifier(provider: CaptchaProvider, log: Logger, timeoutMs = VERIFY_TIMEOUT_MS) {
  /** `minScore`: a v3 answer (reCAPTCHA) whose `score` is below it is "low-score"; answers without a score (v2) pass on `success`. */
  return async function verifyToken(token: string, remoteIp: string, minScore?: number): Promise<CaptchaOutcome> {
    if (!provider.secret) throw new Error(`${provider.name} has no secret configured`);
    if (token.length === 0 || token.length > MAX_TOKEN_CHARS) return "failed";
    const form = new URLSearchParams({ secret: provider.secret, response: token });
    if (isIP(remoteIp)) form.set("remoteip", remoteIp);
    let status: number;
    let text: string;
    try {
      // The signal covers reading the body too: a provider that sends headers and then stalls is as slow as one that sends nothing.
      const res = await fetch(provider.url, {
        method: "POST",
        body: form,
        signal: AbortSignal.timeout(timeoutMs),
        redirect: "manual",
      });
      status = res.status;
      text = await res.text();
    } catch (e) {
      const reason =
        e instanceof Error && (e.name === "TimeoutError" || e.name === "AbortError")
          ? `no answer within ${timeoutMs} ms`
          : "network error";
      log.warn("captcha verifier unavailable", { provider: provider.name, host: provider.url.host, reason });
      return "unavailable";
    }
    if (status < 200 || status > 299) {
      log.warn("captcha verifier refused the request", { provider: provider.name, host: provider.url.host, status });
      return "failed";
    }
    let answer: { success?: unknown; score?: unknown; "error-codes"?: unknown };
    try {
      answer = JSON.parse(text);
    } catch {
      return "failed";
    }
    if (typeof answer !== "object" || answer === null) return "failed";
    if (answer.success === true)
      return minScore !== undefined && typeof answer.score === "number" && answer.score < minScore ? "low-score" : "ok";
    // A wrong secret fails every visitor: the operator has to hear of it. The codes carry neither secret nor token.
    const codes = Array.isArray(answer["error-codes"])
      ? answer["error-codes"].filter((c): c is string => typeof c === "string")
      : [];
    if (codes.some((c) => c.includes("secret")))
      log.warn("captcha verifier refused our secret key", { provider: provider.name, errorCodes: codes });
    return "failed";
  };
}

export type CaptchaVerifier = ReturnType<typeof createCaptchaVerifier>;
