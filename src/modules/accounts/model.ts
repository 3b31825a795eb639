import { t, type Static } from "elysia";
import { IANA_NAME } from "../../lib/people-time";
import { EMAIL_PATTERN } from "../../lib/email";
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from "./password";

/** Whether the server can send email; says nothing of the server it sends to. */
const SmtpConfigured = () =>
  t.Boolean({
    description:
      "whether FORMSVC_SMTP_URL is set; while it is not, every email (notifications, recipient confirmations, autoresponses, password resets, invitations) is queued and sent only once it is set and the server restarted",
  });

const TimeZone = () =>
  t.String({
    minLength: 1,
    maxLength: 64,
    pattern: IANA_NAME.source,
    description:
      "the IANA time zone the owner reads times in (`Europe/Berlin`; default `UTC`): emails write their times in it. Any case is taken; the canonical spelling is kept.",
    examples: ["Europe/Berlin"],
  });

/** `PATCH /auth/me`: what an owner may change of their account. */
export const AccountPatchSchema = t.Object({ timeZone: t.Optional(TimeZone()) }, { additionalProperties: false });

/** The owner a login or a session acts for, as `POST /auth/login` and `GET /auth/me` answer it. */
export const AccountSchema = t.Object(
  {
    id: t.String({ description: "the owner's id (own_…)" }),
    email: t.String({
      description: "the owner's email, lower-cased: what they log in with and where notifications go",
    }),
    createdAt: t.String({ format: "date-time", description: "ISO 8601, UTC, milliseconds" }),
    timeZone: TimeZone(),
    smtpConfigured: SmtpConfigured(),
    totpEnabled: t.Boolean({
      description: "the person has a TOTP second factor: a login with the password asks for a code too",
    }),
    recoveryCodesLeft: t.Unsafe<number>({
      type: "integer",
      minimum: 0,
      description: "how many of the person's recovery codes are unused (0 without TOTP)",
    }),
  },
  { additionalProperties: false },
);
export type AccountJson = Static<typeof AccountSchema>;

/** `POST /auth/login`: an owner's email and the password set with `formsvc owners set-password`. */
export const LoginBodySchema = t.Object(
  {
    email: t.String({
      minLength: 1,
      maxLength: 320,
      pattern: EMAIL_PATTERN,
      error: "email must be an email address",
      description:
        "the owner's email (any case, whitespace around it ignored): at most 254 characters, 64 before the @",
    }),
    password: t.String({
      minLength: 1,
      maxLength: 4096,
      error: "password must be a string of 1 to 4096 characters",
      description: "the owner's password; any other is a 401, whatever its length",
    }),
  },
  { additionalProperties: true, description: "JSON; other fields are ignored" },
);
export type LoginBody = Static<typeof LoginBodySchema>;

// The rule of password.ts `checkPasswordRule`, which counts characters (code points) as JSON Schema does;
// the schema's check counts UTF-16 units, so an emoji counts twice toward the most.
const password = (description: string) =>
  t.String({
    minLength: MIN_PASSWORD_LENGTH,
    maxLength: MAX_PASSWORD_LENGTH,
    error: `password must be at least ${MIN_PASSWORD_LENGTH} characters and at most ${MAX_PASSWORD_LENGTH}; a few words make a good one`,
    description: `${description}: ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters (the most counted in UTF-16 units: a character beyond U+FFFF, such as an emoji, counts twice)`,
  });
const token = (description: string) =>
  t.String({ minLength: 1, maxLength: 200, error: "token must be the token of the link", description });

/** `POST /auth/setup`: the first owner, with the token of the link `formsvc serve` printed. */
export const SetupBodySchema = t.Object(
  {
    token: token("the `token` of the setup link `formsvc serve` printed"),
    email: LoginBodySchema.properties.email,
    password: password("the first owner's password"),
  },
  { additionalProperties: true, description: "JSON; other fields are ignored" },
);
export type SetupBody = Static<typeof SetupBodySchema>;

/** `POST /auth/reset`: the email of the owner who forgot their password. */
export const ResetBodySchema = t.Object(
  { email: LoginBodySchema.properties.email },
  { additionalProperties: true, description: "JSON; other fields are ignored" },
);
export type ResetBody = Static<typeof ResetBodySchema>;

/** `POST /auth/reset`'s answer, the same whether or not the email is an owner's. */
export const ResetAcceptedSchema = t.Object(
  {
    message: t.String({ description: "what happens next, the same sentence for every email" }),
    smtpConfigured: SmtpConfigured(),
  },
  { additionalProperties: false },
);
export type ResetAcceptedJson = Static<typeof ResetAcceptedSchema>;

/** `POST /auth/reset/confirm`: the token of the emailed link and the new password. */
export const ResetConfirmBodySchema = t.Object(
  {
    token: token("the `token` of the link in the reset email"),
    password: password("the new password"),
  },
  { additionalProperties: true, description: "JSON; other fields are ignored" },
);
export type ResetConfirmBody = Static<typeof ResetConfirmBodySchema>;

/** `POST /auth/totp`: a new TOTP secret to enrol, unconfirmed until `POST /auth/totp/confirm`. */
export const TotpEnrolmentSchema = t.Object(
  {
    uri: t.String({ description: "the otpauth:// URI (SHA-1, 6 digits, 30 s) for an authenticator app" }),
    secret: t.String({ description: "the secret in base32, for typing into an app that cannot scan" }),
    qr: t.String({ description: "the URI as a QR code: a data:image/png;base64 URL" }),
  },
  { additionalProperties: false },
);

const Code = (description: string) => t.String({ minLength: 1, maxLength: 64, description });

/** `POST /auth/totp/confirm`: a code from the new secret. */
export const TotpConfirmBodySchema = t.Object(
  { code: Code("the current 6-digit code of the authenticator app") },
  { additionalProperties: false },
);

/** `POST /auth/totp/recovery-codes` and `/auth/totp/disable`: proof that the person holds the second factor. */
export const TotpCodeBodySchema = t.Object(
  { code: Code("the current code of the authenticator app, or an unused recovery code") },
  { additionalProperties: false },
);

export type TotpEnrolmentJson = Static<typeof TotpEnrolmentSchema>;
export type TotpCodeBody = Static<typeof TotpCodeBodySchema>;
export type TotpConfirmBody = Static<typeof TotpConfirmBodySchema>;

/** The recovery codes, shown this once. */
export const RecoveryCodesSchema = t.Object(
  {
    recoveryCodes: t.Array(t.String(), {
      description: "10 single-use codes, each usable once in place of a TOTP code; only their hashes are kept",
    }),
  },
  { additionalProperties: false },
);

export type RecoveryCodesJson = Static<typeof RecoveryCodesSchema>;

/** `POST /auth/login/second-factor`: the challenge a login answered, and a TOTP or recovery code. */
export const SecondFactorBodySchema = t.Object(
  {
    challenge: t.String({
      minLength: 1,
      maxLength: 200,
      description: "the `challenge` of the login's 401 SECOND_FACTOR_REQUIRED",
    }),
    code: Code("a TOTP code (each accepted once) or an unused recovery code"),
  },
  { additionalProperties: false },
);
export type SecondFactorBody = Static<typeof SecondFactorBodySchema>;
/** One of the caller's sessions, as `GET /auth/sessions` lists it; never its token. */
export const SessionSchema = t.Object(
  {
    id: t.String({ description: "the session's id (ses_…)" }),
    createdAt: t.String({ format: "date-time", description: "when it was opened (the login); ISO 8601, UTC" }),
    lastSeenAt: t.String({
      format: "date-time",
      description: "when it was last used, to the minute; ISO 8601, UTC",
    }),
    userAgent: t.Union([t.String(), t.Null()], {
      description: "the User-Agent of the browser that opened it (its first 512 characters); null when none was sent",
    }),
    address: t.Union([t.String(), t.Null()], {
      description:
        "the client address of the login, as the rate limits see it (behind FORMSVC_TRUSTED_PROXIES, the address they name); kept with the session until it ends",
    }),
    current: t.Boolean({ description: "true for the session this request was made with" }),
  },
  { additionalProperties: false },
);
export type SessionJson = Static<typeof SessionSchema>;

/** `DELETE /auth/sessions`'s answer. */
export const SessionsEndedSchema = t.Object(
  { ended: t.Unsafe<number>({ type: "integer", minimum: 0, description: "how many sessions ended" }) },
  { additionalProperties: false },
);
