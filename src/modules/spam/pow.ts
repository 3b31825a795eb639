import { createHmac, randomInt } from "node:crypto";
import { createChallenge, verifySolution } from "altcha-lib";
import { deriveKey } from "altcha-lib/algorithms/pbkdf2";
import { TypeCompiler } from "elysia/type-system";
import { isoTime, type Clock } from "../../lib/clock";
import { PayloadSchema, type ChallengeJson, type PayloadJson } from "./model";
import type { SpamRepo, UsedChallenge } from "./repo";

/** How long a challenge may be solved and its solution used. */
export const CHALLENGE_TTL_MS = 10 * 60 * 1000;

/**
 * PBKDF2 iterations per derivation. The work a solver does is (counter + 1) derivations, and
 * issuing a challenge costs the server one, so difficulty is set by the counter range
 * (FORMSVC_POW_MAX_COUNTER) and this stays small. Measured with altcha-lib's own solver, one
 * thread, on a 2-core AMD EPYC server (`bun bench/pow.ts 200`): 0.15–0.18 ms per derivation
 * (node:crypto and WebCrypto alike); at the default 500, 38–46 ms on average, p90 70–80 ms, ~85 ms
 * for the largest counter. A mid-range phone, 3–5x slower single-threaded, needs 0.1–0.25 s on
 * average and under 0.5 s at worst, less with the widget's parallel workers. Issuing a challenge
 * costs the server ~0.33 ms of CPU; verifying a solution ~0.1 ms (two HMACs, no derivation).
 */
export const POW_ITERATIONS = 1000;
const ALGORITHM = "PBKDF2/SHA-256";
// The widget derives an AES-GCM key, which must be 16, 24 or 32 bytes long.
const KEY_LENGTH = 32;
// Ours encode to ~700 characters; anything much longer is not one of ours.
const MAX_PAYLOAD_CHARS = 4096;

// Compiled on first use, not at start (start-up time and idle memory).
let payloadShape: ReturnType<typeof TypeCompiler.Compile<typeof PayloadSchema>> | undefined;

/** Why a proof of work was refused. */
export type PowFailure = "missing" | "malformed" | "expired" | "other-form" | "used" | "invalid";

/** The `altcha` field's value as the widget sends it (base64 of JSON), or null when it is anything else. */
export function decodePayload(raw: unknown): PayloadJson | null {
  if (
    typeof raw !== "string" ||
    raw.length > MAX_PAYLOAD_CHARS ||
    raw.length % 4 !== 0 ||
    !/^[A-Za-z0-9+/]+={0,2}$/.test(raw)
  )
    return null;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(raw, "base64").toString("utf8"));
  } catch {
    return null;
  }
  payloadShape ??= TypeCompiler.Compile(PayloadSchema);
  return payloadShape.Check(value) ? value : null;
}

/** The two HMAC keys altcha-lib takes, from the one challenge secret of the database. */
export function powSecrets(challengeSecret: string) {
  return {
    // Signs the challenge's parameters.
    hmacSignatureSecret: challengeSecret,
    // Signs the expected derived key, so a solution is verified without deriving it again.
    hmacKeySignatureSecret: createHmac("sha256", challengeSecret).update("formsvc altcha key signature").digest("hex"),
  };
}

export interface PowDeps {
  repo: SpamRepo;
  /** The database's challenge secret (SpamRepo.findChallengeSecret), read once at start. */
  challengeSecret: string;
  clock: Clock;
  /** The largest counter a challenge asks for; the solver's work is uniform in 1..maxCounter + 1 derivations. */
  maxCounter: number;
}

/**
 * Proof-of-work challenges in the ALTCHA v2 format, signed with the database's challenge secret,
 * bound to one form, valid for 10 minutes, and accepted once.
 */
export function createPowService({ repo, challengeSecret, clock, maxCounter }: PowDeps) {
  const { hmacSignatureSecret, hmacKeySignatureSecret } = powSecrets(challengeSecret);

  return {
    /** A fresh challenge for this form: the solver must find a counter drawn uniformly from 0..maxCounter. */
    async createChallenge(formId: string): Promise<ChallengeJson> {
      const challenge = await createChallenge({
        algorithm: ALGORITHM,
        cost: POW_ITERATIONS,
        keyLength: KEY_LENGTH,
        counter: randomInt(0, maxCounter + 1),
        deriveKey,
        data: { formId },
        expiresAt: Math.ceil((clock.now() + CHALLENGE_TTL_MS) / 1000),
        hmacSignatureSecret,
        hmacKeySignatureSecret,
      });
      return challenge as ChallengeJson;
    },

    /**
     * Checks a widget payload for this form: why it is refused, or the solution to record as used.
     * The record is written with the submission, in its transaction (spam/repo.ts), whose unique
     * signature makes it single use: two submissions with one solution cannot both commit, in this
     * process or another, and a submission that fails to commit leaves the solution unused.
     */
    async verify(formId: string, raw: unknown): Promise<PowFailure | UsedChallenge> {
      if (raw === undefined || raw === null || raw === "") return "missing";
      const payload = decodePayload(raw);
      if (!payload) return "malformed";
      const { parameters, signature } = payload.challenge;
      // Cheap refusals first: a replayed payload costs a lookup, not a verification.
      if (await repo.isChallengeUsed(signature)) return "used";
      if (parameters.expiresAt * 1000 <= clock.now()) return "expired";
      if (parameters.data.formId !== formId) return "other-form";
      let result;
      try {
        result = await verifySolution({
          challenge: payload.challenge,
          solution: payload.solution,
          deriveKey,
          hmacSignatureSecret,
          hmacKeySignatureSecret,
        });
      } catch {
        return "malformed";
      }
      if (result.expired) return "expired";
      if (!result.verified) return "invalid";
      return { signature, expiresAt: isoTime(parameters.expiresAt * 1000) };
    },

    /** Forgets used solutions whose challenges have expired; returns how many. */
    deleteExpiredChallenges: (): Promise<number> => repo.deleteExpiredChallenges(isoTime(clock.now())),
  };
}

export type PowService = ReturnType<typeof createPowService>;
