import { t, type Static } from "elysia";

const hex = (length: number, description: string) => t.String({ pattern: `^[0-9a-f]{${length}}$`, description });
// A whole number that is a JSON number (Elysia's t.Integer would also take "5").
const whole = (min: number, max: number, description: string) =>
  t.Number({ multipleOf: 1, minimum: min, maximum: max, description });

/**
 * A proof-of-work challenge in the ALTCHA v2 format, as `altcha-lib` 2.x creates it and the
 * `altcha` 3.x widget fetches and solves it (deterministic mode: the solver counts up from 0 until
 * the derived key starts with `keyPrefix`). Exactly what formsvc issues, so a payload whose
 * challenge has any other shape is refused before its signature is checked.
 */
export const ChallengeSchema = t.Object(
  {
    parameters: t.Object(
      {
        algorithm: t.Literal("PBKDF2/SHA-256", { description: "key derivation the solver repeats" }),
        cost: whole(1, 1_000_000, "PBKDF2 iterations per derivation"),
        data: t.Object(
          { formId: t.String({ minLength: 1, maxLength: 200, description: "the form this challenge is for" }) },
          { additionalProperties: false },
        ),
        expiresAt: whole(1, 1e11, "Unix time in seconds after which the solution is refused (10 minutes after issue)"),
        keyLength: whole(32, 32, "derived key length in bytes"),
        keyPrefix: hex(32, "the first bytes of the derived key the solver must reach"),
        keySignature: hex(64, "HMAC of the expected derived key, so the server verifies without deriving again"),
        nonce: hex(32, "random, per challenge"),
        salt: hex(32, "random, per challenge"),
      },
      { additionalProperties: false },
    ),
    signature: hex(64, "HMAC-SHA-256 of the parameters (canonical JSON) with the server's challenge secret"),
  },
  {
    additionalProperties: false,
    description: "an ALTCHA v2 proof-of-work challenge; point the altcha widget's challenge attribute at this endpoint",
  },
);
export type ChallengeJson = Static<typeof ChallengeSchema>;

/**
 * What the `altcha` widget puts in its form field (`altcha`), base64-decoded: the challenge it
 * fetched and the solution it found.
 */
export const PayloadSchema = t.Object({
  challenge: ChallengeSchema,
  solution: t.Object(
    {
      counter: whole(0, 0xffffffff, "the counter that reaches the key prefix"),
      derivedKey: hex(64, "the derived key, lowercase hex"),
      time: t.Optional(t.Number({ minimum: 0, description: "solving time in ms, as the widget reports it" })),
    },
    { additionalProperties: false },
  ),
});
export type PayloadJson = Static<typeof PayloadSchema>;

/** What the spam checks found for a submission: the learning filter's score and the reasons it was filed as spam. */
export const SpamVerdictSchema = t.Object(
  {
    score: t.Number({
      minimum: 0,
      maximum: 1,
      description: "the owner's learning filter: 0 = like what they marked not spam, 1 = like what they marked spam",
    }),
    reasons: t.Array(t.String(), {
      description:
        "why it was filed as spam, each a rule or check: filter, honeypot, blocked-word, blocked-email-domain, disposable-email, too-many-links, duplicate; [] for the inbox",
    }),
  },
  { additionalProperties: false },
);
export type SpamVerdict = Static<typeof SpamVerdictSchema>;

/** What the learning filter has learned (`GET /api/v1/spam-filter`, `formsvc spam status --json`). */
export const FilterStatusSchema = t.Object({
  teamId: t.String({ description: "the team whose filter it is (each team's forms teach one filter)" }),
  owner: t.String({ description: "the owner's email (the operator's choice), or the caller's" }),
  spam: t.Unsafe<number>({ type: "integer", minimum: 0, description: "submissions it learned as spam" }),
  notSpam: t.Unsafe<number>({ type: "integer", minimum: 0, description: "submissions it learned as not spam" }),
  filing: t.Boolean({ description: "whether it files spam yet (once it has learned from 20 of each)" }),
  filingSince: t.Nullable(t.String({ description: "when it began filing spam; null while it does not" })),
});
export type FilterStatusJson = Static<typeof FilterStatusSchema>;
