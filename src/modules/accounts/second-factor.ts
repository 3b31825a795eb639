import { randomBytes } from "node:crypto";
import * as OTPAuth from "otpauth";
import QRCode from "qrcode";
import { retryWhileBusy } from "../../db/busy";
import { isoTime, type Clock } from "../../lib/clock";
import { AppError } from "../../lib/errors";
import type { Principal } from "../../lib/principal";
import type { SecretBox } from "../../lib/secret-box";
import type { AccountsRepo } from "./repo";
import type { SecondFactorRepo } from "./second-factor-repo";
import { FAILURES_PER_ADDRESS, FAILURES_PER_EMAIL, THROTTLE_WINDOW_MS, throttled } from "./service";
import { failureWindow } from "./throttle";

/** A challenge left by a right password lives this long: time to open the authenticator app. */
const CHALLENGE_TTL_MS = 5 * 60 * 1000;
const CHALLENGE_PREFIX = "fsc_";
const RECOVERY_CODES = 10;
const WRITE_WAIT_MS = 5_000;
/** The issuer an authenticator app shows beside the account. */
const ISSUER = "formsvc";

const hash = (text: string) => Bun.SHA256.hash(text, "hex");
/** A recovery code as typed: case, spaces and dashes do not matter. */
const recoveryKey = (code: string) => hash(code.toLowerCase().replace(/[\s-]/g, ""));
/** 80 bits: its unsalted hash is no shortcut to the code. */
const newRecoveryCode = () =>
  randomBytes(10)
    .toString("hex")
    .replace(/(.{4})(?!$)/g, "$1-");

const totpOf = (secret: string, label = "") =>
  new OTPAuth.TOTP({
    issuer: ISSUER,
    label,
    algorithm: "SHA1",
    digits: 6,
    period: 30,
    secret: OTPAuth.Secret.fromBase32(secret),
  });

const wrongCode = () =>
  new AppError(
    "UNAUTHORIZED",
    "wrong or used code: enter the current code of your authenticator app, or an unused recovery code",
  );

export interface SecondFactorDeps {
  repo: SecondFactorRepo;
  /** Login's failure counts, which a wrong code counts against too. */
  accountsRepo: AccountsRepo;
  clock: Clock;
  /** Seals the TOTP secrets under the key kept outside the database; made on first use. */
  box: () => Promise<SecretBox>;
  /** Whether the person has a passkey, the other second factor. */
  hasPasskey: (ownerId: string) => Promise<boolean>;
}

/**
 * TOTP second factors (RFC 6238: SHA-1, 6 digits, 30 s) and their recovery codes. The secret is
 * stored sealed, the recovery codes and login challenges as SHA-256 only. A code is accepted one
 * step either side of now, and once: the step it was for is remembered.
 */
export function createSecondFactorService({ repo, accountsRepo, clock, box, hasPasskey }: SecondFactorDeps) {
  const now = () => clock.now();
  // Wrong codes per person, apart from the password's count: a right password clears that one, and
  // must not give whoever knows it five more guesses at the code each time.
  const byPerson = failureWindow(accountsRepo, "email", FAILURES_PER_EMAIL, THROTTLE_WINDOW_MS, now);
  const byAddress = failureWindow(accountsRepo, "address", FAILURES_PER_ADDRESS, THROTTLE_WINDOW_MS, now);

  /**
   * Takes the person's code: a TOTP code (its step, once) or an unused recovery code (once). Wrong
   * codes count five per person within login's window (only a right code clears them) and against
   * the client's address as wrong passwords do (429 beyond); a wrong one is a 401.
   */
  async function takeCode(ownerId: string, input: string, address: string): Promise<void> {
    const person = `code ${ownerId}`;
    const personAttempt = await retryWhileBusy(() => byPerson.attempt(person), WRITE_WAIT_MS);
    if (!personAttempt.allowed) throw throttled(personAttempt.retryAfter, "for this person");
    const addressAttempt = await retryWhileBusy(() => byAddress.attempt(address), WRITE_WAIT_MS);
    if (!addressAttempt.allowed) {
      await retryWhileBusy(() => byPerson.forgive(personAttempt.id), WRITE_WAIT_MS);
      throw throttled(addressAttempt.retryAfter, "from this address");
    }
    const code = input.trim();
    const row = await repo.findTotp(ownerId);
    if (!row?.confirmedAt) throw wrongCode();
    const step = stepOf((await box()).open(row.ciphertext), code);
    const accepted =
      step !== null
        ? await retryWhileBusy(() => repo.takeStep(ownerId, step), WRITE_WAIT_MS)
        : await retryWhileBusy(() => repo.useRecoveryCode(ownerId, recoveryKey(code), isoTime(now())), WRITE_WAIT_MS);
    if (!accepted) throw wrongCode();
    await retryWhileBusy(
      () => Promise.all([byPerson.clear(person), byAddress.forgive(addressAttempt.id)]),
      WRITE_WAIT_MS,
    );
  }

  /** The time step `code` is right for, or null. */
  const stepOf = (secret: string, code: string): number | null => {
    if (!/^\d{6}$/.test(code)) return null;
    const at = now();
    const delta = totpOf(secret).validate({ token: code, timestamp: at, window: 1 });
    return delta === null ? null : OTPAuth.TOTP.counter({ period: 30, timestamp: at }) + delta;
  };

  return {
    enrolled: (ownerId: string): Promise<boolean> => repo.enrolled(ownerId),

    /** How many of the person's recovery codes are unused (0 without TOTP). */
    recoveryCodesLeft: (ownerId: string): Promise<number> => repo.recoveryCodesLeft(ownerId),

    /** Starts (or restarts) enrolment: a new secret, unconfirmed until a code from it is confirmed. 409 when TOTP is on already. */
    async startEnrolment(caller: Principal, email: string): Promise<{ uri: string; secret: string; qr: string }> {
      // Held to enrolment (FORMSVC_REQUIRE_2FA) with passkeys: one of them is the second factor, else a password alone could enrol one.
      if (caller.enrolmentDue && (await hasPasskey(caller.ownerId)))
        throw new AppError(
          "SECOND_FACTOR_ENROLMENT_REQUIRED",
          "this server requires a second factor, and you have passkeys: log out and sign in with one of them",
        );
      const secret = new OTPAuth.Secret({ size: 20 }).base32;
      const sealed = (await box()).seal(secret);
      const started = await retryWhileBusy(() => repo.startTotp(caller.ownerId, sealed, isoTime(now())), WRITE_WAIT_MS);
      if (!started)
        throw new AppError(
          "CONFLICT",
          "a second factor is on already; to move it to a new phone, turn it off with a code first (POST /api/v1/auth/totp/disable)",
        );
      const uri = totpOf(secret, email).toString();
      return { uri, secret, qr: await QRCode.toDataURL(uri) };
    },

    /** Turns TOTP on with a code from the new secret; answers the recovery codes, which are shown this once. */
    async confirmEnrolment(caller: Principal, code: string): Promise<{ recoveryCodes: string[] }> {
      const row = await repo.findTotp(caller.ownerId);
      if (!row || row.confirmedAt)
        throw new AppError(
          "CONFLICT",
          row ? "a second factor is on already" : "no enrolment started: POST /api/v1/auth/totp first",
        );
      const step = stepOf((await box()).open(row.ciphertext), code.trim());
      if (step === null)
        throw new AppError("INVALID_PARAMETER", "wrong code: enter the current 6-digit code of your authenticator app");
      const recoveryCodes = Array.from({ length: RECOVERY_CODES }, newRecoveryCode);
      const confirmed = await retryWhileBusy(
        () => repo.confirmTotp(caller.ownerId, step, isoTime(now()), recoveryCodes.map(recoveryKey)),
        WRITE_WAIT_MS,
      );
      if (!confirmed) throw new AppError("CONFLICT", "a second factor is on already");
      return { recoveryCodes };
    },

    /** After a right password: a challenge to finish the login with, or null when the person has no second factor. */
    async challengeFor(ownerId: string): Promise<string | null> {
      if (!(await repo.enrolled(ownerId))) return null;
      const token = CHALLENGE_PREFIX + randomBytes(32).toString("base64url");
      const at = now();
      await retryWhileBusy(
        () =>
          repo.insertChallenge({
            tokenHash: hash(token),
            ownerId,
            expiresAt: isoTime(at + CHALLENGE_TTL_MS),
            now: isoTime(at),
          }),
        WRITE_WAIT_MS,
      );
      return token;
    },

    /**
     * Checks a login's second factor: a TOTP code (each once) or a recovery code (each once), with
     * takeCode's throttles; a wrong or lapsed challenge is a 401. Answers the person, whose
     * challenge is used up.
     */
    async verify(input: { challenge: string; code: string }, address: string): Promise<string> {
      const challengeHash = hash(input.challenge);
      const ownerId = input.challenge.startsWith(CHALLENGE_PREFIX)
        ? await repo.challengeOwner(challengeHash, isoTime(now()))
        : null;
      if (!ownerId)
        throw new AppError(
          "UNAUTHORIZED",
          "this sign-in has expired or is unknown (5 minutes): log in with your password again",
        );
      await takeCode(ownerId, input.code, address);
      await retryWhileBusy(() => repo.deleteChallenge(challengeHash), WRITE_WAIT_MS);
      return ownerId;
    },

    /** New recovery codes in place of all the old ones, for a code (TOTP or recovery); shown this once. */
    async renewRecoveryCodes(caller: Principal, code: string, address: string): Promise<{ recoveryCodes: string[] }> {
      await takeCode(caller.ownerId, code, address);
      const recoveryCodes = Array.from({ length: RECOVERY_CODES }, newRecoveryCode);
      const renewed = await retryWhileBusy(
        () => repo.replaceRecoveryCodes(caller.ownerId, recoveryCodes.map(recoveryKey)),
        WRITE_WAIT_MS,
      );
      if (!renewed) throw new AppError("CONFLICT", "two-step login is off: there are no recovery codes to renew");
      return { recoveryCodes };
    },

    /**
     * Turns the person's TOTP off for a code (TOTP or recovery): how a lost or new phone is moved
     * without an operator, by enrolling again. Their sessions stay; with FORMSVC_REQUIRE_2FA, their
     * next password login must enrol again.
     */
    async disable(caller: Principal, code: string, address: string): Promise<void> {
      await takeCode(caller.ownerId, code, address);
      await retryWhileBusy(() => repo.turnOff(caller.ownerId), WRITE_WAIT_MS);
    },

    /** The operator's reset: TOTP and recovery codes off, and every session of the person ended. */
    reset: (ownerId: string): Promise<boolean> => repo.reset(ownerId),
  };
}

export type SecondFactorService = ReturnType<typeof createSecondFactorService>;
