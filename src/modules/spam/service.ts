import type { Config } from "../../config";
import type { Clock } from "../../lib/clock";
import type { Logger } from "../../lib/log";
import { type Actor } from "../../lib/principal";
import type { FormsService } from "../forms/service";
import { createCaptchaVerifier, type CaptchaProvider } from "./captcha";
import { createChallengeCheck, type CaptchaSetting } from "./challenge";
import { honeypotCheck } from "./honeypot";
import type { ChallengeJson } from "./model";
import { createPowService } from "./pow";
import type { SpamRepo } from "./repo";

export interface SpamDeps {
  repo: SpamRepo;
  /** The HMAC key of proof-of-work challenges (the settings row challenge_secret). */
  challengeSecret: string;
  clock: Clock;
  config: Config;
  log: Logger;
  forms: FormsService;
}

/** The spam checks of the submit pipeline and the proof-of-work challenges they verify, built once per database. */
export function createSpamService({ repo, challengeSecret, clock, config, log, forms }: SpamDeps) {
  const pow = createPowService({ repo, challengeSecret, clock, maxCounter: config.powMaxCounter });
  const setting = (provider: CaptchaProvider, secretEnv: string, field: string): CaptchaSetting => ({
    provider,
    secretEnv,
    field,
    verify: createCaptchaVerifier(provider, log),
  });
  const captcha = {
    turnstile: setting(
      { name: "Turnstile", url: config.turnstileVerifyUrl, secret: config.turnstileSecret },
      "FORMSVC_TURNSTILE_SECRET",
      "cf-turnstile-response",
    ),
    hcaptcha: setting(
      { name: "hCaptcha", url: config.hcaptchaVerifyUrl, secret: config.hcaptchaSecret },
      "FORMSVC_HCAPTCHA_SECRET",
      "h-captcha-response",
    ),
  };

  return {
    pow,
    /** Challenge first, so a refused challenge is a 400 even when the honeypot is filled too. */
    checks: { challenge: createChallengeCheck({ pow, captcha, log }), honeypot: honeypotCheck },

    /** A proof-of-work challenge for a form the caller may submit to, whatever its challenge setting (a page may fetch it before the switch to pow). */
    async challengeFor(actor: Actor, formId: string): Promise<ChallengeJson> {
      return pow.createChallenge((await forms.formFor(actor, formId, "submit")).id);
    },
  };
}

export type SpamService = ReturnType<typeof createSpamService>;
