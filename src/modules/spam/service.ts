import { createHmac } from "node:crypto";
import type { Config } from "../../config";
import type { ChangeFeed } from "../../db/change-feed";
import type { Atomically } from "../../db/sql";
import type { Clock } from "../../lib/clock";
import type { Logger } from "../../lib/log";
import type { AuditService } from "../audit/service";
import { type Actor } from "../../lib/principal";
import type { FormsService } from "../forms/service";
import type { OwnersService } from "../owners/service";
import { createSpamFilter } from "./filter";
import type { FilterRepo } from "./filter-repo";
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
  filterRepo: FilterRepo;
  changes: ChangeFeed;
  owners: OwnersService;
  atomically: Atomically;
  audit: AuditService;
}

/** The spam checks of the submit pipeline and the proof-of-work challenges they verify, built once per database. */
export function createSpamService({
  repo,
  challengeSecret,
  clock,
  config,
  log,
  forms,
  filterRepo,
  changes,
  owners,
  atomically,
  audit,
}: SpamDeps) {
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
    recaptcha: setting(
      { name: "reCAPTCHA", url: config.recaptchaVerifyUrl, secret: config.recaptchaSecret },
      "FORMSVC_RECAPTCHA_SECRET",
      "g-recaptcha-response",
    ),
  };
  // The token hashes' key, kept apart from the challenges' own.
  const filter = createSpamFilter({
    repo: filterRepo,
    changes,
    clock,
    owners,
    atomically,
    audit,
    secret: createHmac("sha256", challengeSecret).update("formsvc spam filter").digest("base64url"),
  });

  return {
    pow,
    /**
     * Challenge first, so a refused challenge is a 400 even when the honeypot is filled too; the
     * filter last, on the data to be stored, with the honeypot's verdict among its reasons.
     */
    checks: { challenge: createChallengeCheck({ pow, captcha, log }), honeypot: honeypotCheck, filter: filter.check },
    filter,

    /** A proof-of-work challenge for a form the caller may submit to, whatever its challenge setting (a page may fetch it before the switch to pow). */
    async challengeFor(actor: Actor, formId: string): Promise<ChallengeJson> {
      return pow.createChallenge((await forms.formFor(actor, formId, "submit")).id);
    },
  };
}

export type SpamService = ReturnType<typeof createSpamService>;
