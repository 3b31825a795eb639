import { AppError } from "../../lib/errors";
import type { Logger } from "../../lib/log";
import type { Challenge, Form } from "../forms/model";
import type { Candidate, SubmitCheck, Verdict } from "../submissions/pipeline";
import type { CaptchaProvider, CaptchaVerifier } from "./captcha";
import type { PowFailure, PowService } from "./pow";
import { usedChallengeOf } from "./repo";

const NOTHING_STORED = "; nothing was stored";

const powMessages: Record<PowFailure, (formId: string) => string> = {
  missing: (id) =>
    `this form requires a proof of work: add the ALTCHA widget with challenge="…/api/v1/forms/${id}/challenge" to the form, or send its payload as the top-level field altcha`,
  malformed: () =>
    "the proof of work (field altcha) is not a payload of the ALTCHA widget: let the widget solve a new challenge and submit again",
  expired: () =>
    "the proof of work has expired (a challenge is valid for 10 minutes): let the widget solve a new challenge and submit again",
  "other-form": (id) =>
    `the proof of work was solved for another form: fetch the challenge of this form from /api/v1/forms/${id}/challenge`,
  used: () => "this proof of work was already used: every submission needs a newly solved challenge",
  invalid: () =>
    "the proof of work does not solve its challenge: let the widget solve a new challenge and submit again",
};

type CaptchaKind = "turnstile" | "hcaptcha" | "recaptcha";

export interface CaptchaSetting {
  provider: CaptchaProvider;
  /** The setting that holds the secret, named in the answer when it is missing. */
  secretEnv: string;
  /** The form field the provider's widget fills. */
  field: string;
  verify: CaptchaVerifier;
}

export interface ChallengeCheckDeps {
  pow: PowService;
  captcha: Record<CaptchaKind, CaptchaSetting>;
  log: Logger;
}

/**
 * The challenge check: what a submission must carry by the form's `challenge` setting: nothing, a
 * proof of work solved for this form (`altcha`), or a Turnstile, hCaptcha or reCAPTCHA token
 * (`captchaToken`; a reCAPTCHA v3 answer scoring below the form's `recaptchaMinScore` is refused).
 * A missing or refused one is a 400 CHALLENGE_FAILED; a provider that cannot answer, or one the
 * operator has not configured, a 503: the check fails closed and nothing is stored.
 */
export function createChallengeCheck({ pow, captcha, log }: ChallengeCheckDeps): SubmitCheck {
  const warnedUnconfigured = new Set<string>();

  async function checkPow(candidate: Candidate, payload: unknown): Promise<Verdict> {
    const outcome = await pow.verify(candidate.form.id, payload);
    if (typeof outcome === "string")
      return new AppError("CHALLENGE_FAILED", powMessages[outcome](candidate.form.id) + NOTHING_STORED);
    // Recorded with the submission, in its transaction: that is what makes it single use.
    usedChallengeOf.set(candidate, outcome);
    return "accept";
  }

  async function checkCaptcha(kind: CaptchaKind, token: unknown, remoteIp: string, form: Form): Promise<Verdict> {
    const { provider, secretEnv, field, verify } = captcha[kind];
    if (!provider.secret) {
      if (!warnedUnconfigured.has(kind)) {
        warnedUnconfigured.add(kind);
        log.warn(`a form requires ${provider.name} but ${secretEnv} is not set: its submissions are refused with 503`, {
          setting: secretEnv,
        });
      }
      return new AppError(
        "UNAVAILABLE",
        `this form requires a ${provider.name} check, but the server has no ${secretEnv}: its operator must set it (or change the form's challenge)${NOTHING_STORED}`,
        {
          // Not before someone changes the configuration: a client that retries should wait long.
          "retry-after": "300",
        },
      );
    }
    if (typeof token !== "string" || token === "") {
      return new AppError(
        "CHALLENGE_FAILED",
        `this form requires a ${provider.name} token: send the widget's form field ${field} (or the top-level field captchaToken)${NOTHING_STORED}`,
      );
    }
    switch (await verify(token, remoteIp, kind === "recaptcha" ? form.recaptchaMinScore : undefined)) {
      case "ok":
        return "accept";
      case "failed":
        return new AppError(
          "CHALLENGE_FAILED",
          `${provider.name} did not accept the token (it may have expired or been used already): complete the check again and submit${NOTHING_STORED}`,
        );
      case "low-score":
        return new AppError(
          "CHALLENGE_FAILED",
          `${provider.name} scored this visit below the form's spamSettings.recaptchaMinScore (${form.recaptchaMinScore}): it looks automated${NOTHING_STORED}`,
        );
      case "unavailable":
        return new AppError(
          "UNAVAILABLE",
          `${provider.name} did not answer in time to verify the token${NOTHING_STORED}, retry in a few seconds`,
          { "retry-after": "5" },
        );
    }
  }

  return {
    name: "challenge",
    check(candidate) {
      const { form, body, submitter } = candidate;
      const { altcha, captchaToken } = body;
      const challenge: Challenge = form.challenge;
      switch (challenge) {
        case "none":
          return "accept";
        case "pow":
          return checkPow(candidate, altcha);
        case "turnstile":
        case "hcaptcha":
        case "recaptcha":
          return checkCaptcha(challenge, captchaToken, submitter.ip, form);
      }
    },
  };
}
