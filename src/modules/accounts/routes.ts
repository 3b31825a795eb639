import type { TSchema } from "@sinclair/typebox";
import { Elysia, t } from "elysia";
import { jsonBody, noBody, requestContext } from "../../http/context";
import { responses } from "../../http/docs";
import { requireSameOrigin } from "../../http/same-origin";
import { clearedSessionCookie, SESSION_COOKIE, sessionCookie, sessionOrigin } from "../../http/session-cookie";
import { addressBucket } from "../../lib/address-bucket";
import {
  AccountPatchSchema,
  AccountSchema,
  LoginBodySchema,
  RecoveryCodesSchema,
  ResetAcceptedSchema,
  ResetBodySchema,
  ResetConfirmBodySchema,
  SecondFactorBodySchema,
  SessionSchema,
  SessionsEndedSchema,
  SetupBodySchema,
  TotpCodeBodySchema,
  TotpConfirmBodySchema,
  TotpEnrolmentSchema,
} from "./model";
import type { SecondFactorService } from "./second-factor";
import type { AccountsService } from "./service";

const setCookie = (description: string) => ({
  "Set-Cookie": { description, required: true, schema: { type: "string" } },
});

/** The answer of every route that opens a session: the person, and the session's cookie. */
export const loggedIn = (description = "logged in: the owner, and the session cookie") => ({
  schema: AccountSchema,
  description,
  headers: setCookie(`[__Host-]${SESSION_COOKIE}=<token>; Max-Age=…; Path=/; HttpOnly; SameSite=Lax[; Secure]`),
});

// Before the body is read: another site's page must not make a visitor's browser log in, set up or reset at its choosing.
export const sameOriginJson = <S extends TSchema>(schema: S) =>
  jsonBody(
    ({ request, ownOrigin }: { request: Request; ownOrigin: () => string | null }) =>
      requireSameOrigin(request, ownOrigin()),
    schema,
  );

// Not sent is said to anyone who asks: it tells only that this server cannot send mail, and the person
// who forgot a password learns to ask the operator (who can also run `owners set-password`).
const resetAccepted = (smtpConfigured: boolean) => ({
  message: smtpConfigured
    ? "if this email belongs to an owner, a link to set a new password is on its way (it works once, for 1 hour)"
    : "if this email belongs to an owner, a link to set a new password is queued, but no SMTP server is set (FORMSVC_SMTP_URL), so it is not sent until the operator sets one",
  smtpConfigured,
});

/** Login, logout and the session's owner; first-run setup and password reset. `secureCookie`: the server is reached over https (FORMSVC_PUBLIC_URL). */
export function accountsRoutes(
  accounts: AccountsService,
  opts: { secureCookie: boolean; secondFactor: SecondFactorService },
) {
  const { secondFactor } = opts;
  return new Elysia({ name: "accounts-routes" })
    .use(requestContext)
    .post(
      "/auth/login",
      async ({ body, client, caller, viaSession, request, set }) => {
        const result = await accounts.login(
          body,
          addressBucket(client().ip),
          sessionOrigin(request, client),
          secondFactor.challengeFor,
        );
        if ("challenge" in result) {
          set.status = 401;
          return {
            error:
              "this account has a second factor: send a code with the challenge to POST /api/v1/auth/login/second-factor",
            code: "SECOND_FACTOR_REQUIRED",
            challenge: result.challenge,
          };
        }
        const { account, token } = result;
        // One browser, one session: the one it came with (if any) ends here.
        if (viaSession) await accounts.endSession(caller!.keyId);
        set.headers["set-cookie"] = sessionCookie(token, accounts.sessionMaxAgeSeconds, opts.secureCookie);
        return account;
      },
      {
        ...sameOriginJson(LoginBodySchema),
        detail: {
          summary: "Log in",
          description: `Takes no API key. Checks an owner's email and password (set with \`formsvc owners set-password\`) and opens a session: the ${SESSION_COOKIE} cookie (HttpOnly, SameSite=Lax, Path=/; when FORMSVC_PUBLIC_URL is https, Secure and named __Host-${SESSION_COOKIE}), which then acts as the owner's secret key on every endpoint but submit and challenge. The request must carry an Origin header equal to the server's own (FORMSVC_PUBLIC_URL's origin, else the request's Host), else 403 CSRF. A wrong email and a wrong password get the same 401. Five failed logins for one email within 15 minutes, or twenty from one client address, are answered 429 (with Retry-After) until the oldest leaves the window. The session ends after FORMSVC_SESSION_IDLE_DAYS without a request or FORMSVC_SESSION_MAX_DAYS after the login. A person with a second factor (TOTP) gets no session but a 401 SECOND_FACTOR_REQUIRED with a \`challenge\` (5 minutes), to finish with POST /api/v1/auth/login/second-factor.`,
          tags: ["Accounts"],
          security: [],
          responses: responses(loggedIn(), 400, 401, 403, 429),
        },
      },
    )
    .post(
      "/auth/setup",
      async ({ body, request, client, set }) => {
        const { account, token } = await accounts.setup(body, sessionOrigin(request, client));
        set.headers["set-cookie"] = sessionCookie(token, accounts.sessionMaxAgeSeconds, opts.secureCookie);
        return account;
      },
      {
        ...sameOriginJson(SetupBodySchema),
        detail: {
          summary: "Set up the first owner",
          description: `Takes no API key. First run: while no owner has a password, \`formsvc serve\` prints a link \`/dashboard/setup?token=…\` (valid 30 minutes, a new one at each start, usable once). With its token this sets the first owner's email and password (12 to 1024 characters, as \`owners set-password\`) and logs them in (the ${SESSION_COOKIE} cookie, as Log in). A wrong, used or expired token is a 400; once any owner has a password, 409; an address that is an owner's already (one made by \`init --owner\` has no password), 409 OWNER_EXISTS: that owner sets its password with a reset instead. None changes anything. Must carry the server's own Origin, else 403 CSRF.`,
          tags: ["Accounts"],
          security: [],
          responses: responses(loggedIn("set up and logged in: the owner, and the session cookie"), 400, 403, 409, 429),
        },
      },
    )
    .post(
      "/auth/reset",
      async ({ body, client, set }) => {
        await accounts.requestReset(body, addressBucket(client().ip));
        set.status = 202;
        return resetAccepted(accounts.smtpConfigured);
      },
      {
        ...sameOriginJson(ResetBodySchema),
        detail: {
          summary: "Ask for a password reset link",
          description:
            "Takes no API key. Always 202 with the same answer, whether or not the email is an owner's; `smtpConfigured: false` says the email is only queued, as no FORMSVC_SMTP_URL is set. An owner (with a password or, made by `init --owner`, without one) gets an email (sent through the outbox, to FORMSVC_SMTP_URL) with a link to FORMSVC_PUBLIC_URL/dashboard/reset, which works once, for 1 hour; at most one such email per owner every 5 minutes, however often it is asked for. More than 5 requests from one client address within 15 minutes are answered 429 (with Retry-After). Must carry the server's own Origin, else 403 CSRF.",
          tags: ["Accounts"],
          security: [],
          responses: responses(
            { status: 202, schema: ResetAcceptedSchema, description: "asked: the same answer for every email" },
            400,
            403,
            429,
          ),
        },
      },
    )
    .post(
      "/auth/reset/confirm",
      async ({ body, set }) => {
        await accounts.confirmReset(body);
        set.status = 204;
      },
      {
        ...sameOriginJson(ResetConfirmBodySchema),
        detail: {
          summary: "Set a new password with a reset link",
          description:
            "Takes no API key. Sets the password of the owner the emailed link's token names (12 to 1024 characters) and ends every session of theirs; the link, and any other they were sent, is used up. A wrong, used or expired token is a 400 and changes nothing. Log in with the new password afterwards. Must carry the server's own Origin, else 403 CSRF.",
          tags: ["Accounts"],
          security: [],
          responses: responses(
            { status: 204, description: "the password is set; every session has ended" },
            400,
            403,
            429,
          ),
        },
      },
    )
    .post(
      "/auth/login/second-factor",
      async ({ body, client, caller, viaSession, request, set }) => {
        const ownerId = await secondFactor.verify(body, addressBucket(client().ip));
        const { account, token } = await accounts.finishLogin(ownerId, sessionOrigin(request, client));
        if (viaSession) await accounts.endSession(caller!.keyId);
        set.headers["set-cookie"] = sessionCookie(token, accounts.sessionMaxAgeSeconds, opts.secureCookie);
        return account;
      },
      {
        ...sameOriginJson(SecondFactorBodySchema),
        detail: {
          summary: "Finish a login with a second factor",
          description: `Takes no API key. With the \`challenge\` of a login's 401 SECOND_FACTOR_REQUIRED (valid 5 minutes) and a code: the current TOTP code of the person's authenticator app (each code is accepted once) or one of their recovery codes (each once). Opens the session as Log in does (the ${SESSION_COOKIE} cookie). A wrong code is a 401 and counts against a throttle of its own, 5 wrong codes per person (a right password does not clear it), and against Log in's 20 per client address, within 15 minutes; 429 beyond; a wrong or lapsed challenge is a 401. Must carry the server's own Origin, else 403 CSRF.`,
          tags: ["Accounts"],
          security: [],
          responses: responses(loggedIn(), 400, 401, 403, 429),
        },
      },
    )
    .post(
      "/auth/totp",
      async ({ principal }) => await secondFactor.startEnrolment(principal, await accounts.emailOf(principal.ownerId)),
      {
        auth: "session",
        detail: {
          summary: "Start TOTP enrolment",
          description:
            "A new TOTP secret (RFC 6238: SHA-1, 6 digits, 30 s) for the session's person, as an otpauth:// URI, its QR code and the base32 secret; it is not used until confirmed with a code from it (POST /api/v1/auth/totp/confirm). Asking again replaces an unconfirmed secret; with TOTP on already, 409 (turn it off first with a code, POST /api/v1/auth/totp/disable, or the operator does: `formsvc owners 2fa reset --owner EMAIL`). Under FORMSVC_REQUIRE_2FA, a session held to enrolment of a person with passkeys is a 403 SECOND_FACTOR_ENROLMENT_REQUIRED: they sign in with a passkey instead. The secret is stored encrypted (AES-256-GCM) under FORMSVC_SECRET_KEY or the key file beside the database. Must carry the server's own Origin, else 403 CSRF.",
          tags: ["Accounts"],
          responses: responses({ schema: TotpEnrolmentSchema, description: "the secret to enrol" }, 401, 403, 409, 429),
        },
      },
    )
    .post(
      "/auth/totp/confirm",
      async ({ principal, body }) => {
        const codes = await secondFactor.confirmEnrolment(principal, body.code);
        // This session has proved the factor it enrolled; FORMSVC_REQUIRE_2FA lets it go on.
        await accounts.markSecondFactor(principal.keyId);
        return codes;
      },
      {
        auth: "session",
        body: TotpConfirmBodySchema,
        detail: {
          summary: "Turn TOTP on",
          description:
            "Confirms the enrolment with the current code of the new secret and turns TOTP on: from now on a login asks for a code too. Answers 10 recovery codes, each usable once in place of a code; they are shown this once (only their hashes are kept). A wrong code is a 400; no enrolment started, or TOTP on already, a 409. Must carry the server's own Origin, else 403 CSRF.",
          tags: ["Accounts"],
          responses: responses(
            { schema: RecoveryCodesSchema, description: "TOTP is on: the recovery codes" },
            400,
            401,
            403,
            409,
            429,
          ),
        },
      },
    )
    .post(
      "/auth/totp/recovery-codes",
      async ({ principal, body, client }) =>
        await secondFactor.renewRecoveryCodes(principal, body.code, addressBucket(client().ip)),
      {
        auth: "session",
        body: TotpCodeBodySchema,
        detail: {
          summary: "Renew the recovery codes",
          description:
            "For the current code of the authenticator app (or an unused recovery code), 10 new recovery codes in place of every old one, shown this once. A wrong code is a 401 and counts against login's throttles (429 beyond); TOTP off, a 409. Must carry the server's own Origin, else 403 CSRF.",
          tags: ["Accounts"],
          responses: responses(
            { schema: RecoveryCodesSchema, description: "the new recovery codes; the old ones no longer work" },
            400,
            401,
            403,
            409,
            429,
          ),
        },
      },
    )
    .post(
      "/auth/totp/disable",
      async ({ principal, body, client, set }) => {
        await secondFactor.disable(principal, body.code, addressBucket(client().ip));
        set.status = 204;
      },
      {
        auth: "session",
        body: TotpCodeBodySchema,
        detail: {
          summary: "Turn TOTP off",
          description:
            "For the current code of the authenticator app (or an unused recovery code), turns TOTP off and deletes the recovery codes; the person's sessions stay. This is how a second factor moves to a new phone without an operator: log in with a recovery code, turn it off, enrol again. With FORMSVC_REQUIRE_2FA, the next login with the password must enrol again. A wrong code is a 401 and counts against login's throttles (429 beyond). Must carry the server's own Origin, else 403 CSRF.",
          tags: ["Accounts"],
          responses: responses({ status: 204, description: "TOTP is off" }, 400, 401, 403, 429),
        },
      },
    )
    .post(
      "/auth/logout",
      async ({ principal, set }) => {
        await accounts.endSession(principal.keyId);
        set.headers["set-cookie"] = clearedSessionCookie(opts.secureCookie);
        set.status = 204;
      },
      {
        auth: "session",
        detail: {
          summary: "Log out",
          description:
            "Ends the session the request carries (later requests with it are a 401) and clears the cookie. Like every request that changes something with a session, it must carry the server's own Origin (else 403 CSRF).",
          tags: ["Accounts"],
          responses: responses(
            {
              status: 204,
              description: "the session has ended; the cookie is cleared",
              headers: setCookie(`[__Host-]${SESSION_COOKIE}=; Max-Age=0; …`),
            },
            401,
            403,
            429,
          ),
        },
      },
    )
    .get("/auth/me", async ({ principal }) => await accounts.account(principal), {
      auth: noBody("session"),
      detail: {
        summary: "The session's owner",
        description:
          "The owner the session cookie logs in as, and whether the server can send email (`smtpConfigured`, which the dashboard shows on its pages that send email); 401 without a live session (an API key is no session).",
        tags: ["Accounts"],
        responses: responses({ schema: AccountSchema, description: "the owner" }, 401, 429),
      },
    })
    .patch("/auth/me", async ({ principal, body }) => await accounts.updateAccount(principal, body), {
      auth: "session",
      body: AccountPatchSchema,
      detail: {
        summary: "Change the session's owner",
        description:
          "Sets what the owner may change of their account: `timeZone`, the IANA zone every email to them writes its times in. Fields left out stay. An unknown zone is a 400. Must carry the server's own Origin, else 403 CSRF.",
        tags: ["Accounts"],
        responses: responses({ schema: AccountSchema, description: "the owner, changed" }, 400, 401, 403, 429),
      },
    })
    .get("/auth/sessions", async ({ principal }) => await accounts.listSessions(principal), {
      auth: noBody("session"),
      detail: {
        summary: "The session owner's sessions",
        description:
          "Every live session of the person this session logs in as (never another person's), newest first: when it was opened and last used, the User-Agent and client address of its login, and `current: true` on the one this request carries. A session keeps its login's address until it ends (logout, one of the DELETEs here, a new password, or its lifetime). 401 without a live session (an API key is no session).",
        tags: ["Accounts"],
        responses: responses({ schema: t.Array(SessionSchema), description: "the sessions, newest first" }, 401, 429),
      },
    })
    .delete(
      "/auth/sessions/:sessionId",
      async ({ params, principal, set }) => {
        await accounts.endOwnSession(principal, params.sessionId);
        if (params.sessionId === principal.keyId) set.headers["set-cookie"] = clearedSessionCookie(opts.secureCookie);
        set.status = 204;
      },
      {
        auth: "session",
        params: t.Object({ sessionId: t.String() }),
        detail: {
          summary: "End one of the session owner's sessions",
          description:
            "Ends the session at once, on every instance: its next request is a 401. The one this request carries may be named too (as Log out). Another person's session, or an unknown or ended one, is a 404 and nothing changes. Must carry the server's own Origin, else 403 CSRF.",
          tags: ["Accounts"],
          responses: responses({ status: 204, description: "the session has ended" }, 400, 401, 403, 404, 429),
        },
      },
    )
    .delete("/auth/sessions", async ({ principal }) => ({ ended: await accounts.endOtherSessions(principal) }), {
      auth: "session",
      detail: {
        summary: "End the session owner's other sessions",
        description:
          'Ends every session of the person this session logs in as but this one, at once, on every instance ("log out everywhere else"). Must carry the server\'s own Origin, else 403 CSRF.',
        tags: ["Accounts"],
        responses: responses({ schema: SessionsEndedSchema, description: "how many ended" }, 401, 403, 429),
      },
    });
}
