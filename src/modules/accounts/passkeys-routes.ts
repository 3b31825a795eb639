import type { AuthenticationResponseJSON, RegistrationResponseJSON } from "@simplewebauthn/server";
import { Elysia, t, type Static } from "elysia";
import { noBody, requestContext } from "../../http/context";
import { responses } from "../../http/docs";
import { SESSION_COOKIE, sessionCookie, sessionOrigin } from "../../http/session-cookie";
import { addressBucket } from "../../lib/address-bucket";
import { MAX_PASSKEY_NAME, type PasskeysService } from "./passkeys";
import { loggedIn, sameOriginJson } from "./routes";
import type { AccountsService } from "./service";

const PasskeySchema = t.Object(
  {
    id: t.String({ description: "the passkey's id here (pk_…)" }),
    name: t.String({ description: "what its person named it" }),
    createdAt: t.String({ format: "date-time", description: "when it was registered; ISO 8601, UTC" }),
    lastUsedAt: t.Union([t.String({ format: "date-time" }), t.Null()], {
      description: "when it last signed in; null if never",
    }),
  },
  { description: "one of the person's passkeys; never its key" },
);

export type PasskeyJson = Static<typeof PasskeySchema>;

const NameSchema = t.String({ minLength: 1, maxLength: MAX_PASSKEY_NAME, description: "a name to tell it by" });
const encoded = (description: string, maxLength = 8192) => t.String({ maxLength, description });

/** What `navigator.credentials.create` answered, as JSON (base64url), as @simplewebauthn/browser's `startRegistration` gives it. */
const RegistrationResponseSchema = t.Object(
  {
    id: encoded("the credential's id"),
    rawId: encoded("the credential's id"),
    type: t.Literal("public-key"),
    response: t.Object(
      {
        clientDataJSON: encoded("the client data"),
        attestationObject: encoded("the attestation object", 65536),
        transports: t.Optional(t.Array(t.String({ maxLength: 40 }), { maxItems: 10 })),
      },
      { additionalProperties: true },
    ),
    clientExtensionResults: t.Object({}, { additionalProperties: true }),
    authenticatorAttachment: t.Optional(t.String({ maxLength: 40 })),
  },
  { additionalProperties: true, description: "the browser's answer (PublicKeyCredential, as JSON)" },
);

/** What `navigator.credentials.get` answered, as JSON (base64url), as `startAuthentication` gives it. */
const AuthenticationResponseSchema = t.Object(
  {
    id: encoded("the credential's id"),
    rawId: encoded("the credential's id"),
    type: t.Literal("public-key"),
    response: t.Object(
      {
        clientDataJSON: encoded("the client data"),
        authenticatorData: encoded("the authenticator data"),
        signature: encoded("the signature"),
        userHandle: t.Optional(encoded("the user handle the passkey keeps")),
      },
      { additionalProperties: true },
    ),
    clientExtensionResults: t.Object({}, { additionalProperties: true }),
    authenticatorAttachment: t.Optional(t.String({ maxLength: 40 })),
  },
  { additionalProperties: true, description: "the browser's answer (PublicKeyCredential, as JSON)" },
);

const RegisterBodySchema = t.Object(
  { name: NameSchema, response: RegistrationResponseSchema },
  { additionalProperties: false },
);
const RenameBodySchema = t.Object({ name: NameSchema }, { additionalProperties: false });
export type PasskeyRenameBody = Static<typeof RenameBodySchema>;
const LoginBodySchema = t.Object({ response: AuthenticationResponseSchema }, { additionalProperties: false });
const NoFieldsSchema = t.Object({}, { additionalProperties: false });

const CreationOptionsSchema = t.Object(
  {
    challenge: t.String({ description: "base64url; works once, for 5 minutes" }),
    rp: t.Object({ id: t.Optional(t.String()), name: t.String() }, { additionalProperties: true }),
    user: t.Object(
      {
        id: t.String({ description: "the person's user handle: random, not their email" }),
        name: t.String(),
        displayName: t.String(),
      },
      { additionalProperties: true },
    ),
  },
  {
    additionalProperties: true,
    description:
      "PublicKeyCredentialCreationOptions as JSON: hand it to @simplewebauthn/browser's startRegistration (or decode it for navigator.credentials.create)",
  },
);
const RequestOptionsSchema = t.Object(
  {
    challenge: t.String({ description: "base64url; works once, for 5 minutes" }),
    rpId: t.Optional(t.String()),
  },
  {
    additionalProperties: true,
    description:
      "PublicKeyCredentialRequestOptions as JSON, with no allowCredentials (the browser offers the passkeys it holds for this site): hand it to startAuthentication",
  },
);

const UNAVAILABLE =
  "409 PASSKEYS_UNAVAILABLE when the server offers no passkeys: FORMSVC_PUBLIC_URL unset, an IP address, or http on a host other than localhost (GET /api/v1/auth/providers says why).";

/**
 * Passkeys: a signed-in person registers, names and removes theirs; anyone logs in with one.
 * `secureCookie`: the server is reached over https (FORMSVC_PUBLIC_URL).
 */
export function passkeysRoutes(passkeys: PasskeysService, accounts: AccountsService, opts: { secureCookie: boolean }) {
  return new Elysia({ name: "passkeys-routes" })
    .use(requestContext)
    .get("/auth/passkeys", async ({ principal }) => await passkeys.list(principal), {
      auth: noBody("session"),
      detail: {
        summary: "The session owner's passkeys",
        description:
          "The passkeys of the person this session logs in as, oldest first: name, when registered and last used; never key material. 401 without a live session (an API key is no session).",
        tags: ["Accounts"],
        responses: responses({ schema: t.Array(PasskeySchema), description: "the passkeys" }, 401, 429),
      },
    })
    .post(
      "/auth/passkeys/options",
      async ({ principal }) => await passkeys.registrationOptions(principal, await accounts.emailOf(principal.ownerId)),
      {
        auth: "session",
        detail: {
          summary: "Begin registering a passkey",
          description: `The options for the browser to make a passkey with (WebAuthn): the relying party (FORMSVC_PUBLIC_URL's host name), the person's user handle (random, not their email), a challenge (once, 5 minutes), a discoverable credential and user verification required, and the person's passkeys to exclude. Finish with POST /api/v1/auth/passkeys. With FORMSVC_REQUIRE_2FA, this is a way to enrol. ${UNAVAILABLE} Must carry the server's own Origin, else 403 CSRF.`,
          tags: ["Accounts"],
          responses: responses(
            { schema: CreationOptionsSchema, description: "the options for navigator.credentials.create" },
            401,
            403,
            409,
            429,
          ),
        },
      },
    )
    .post(
      "/auth/passkeys",
      async ({ principal, body }) => {
        const passkey = await passkeys.register(principal, {
          name: body.name,
          response: body.response as RegistrationResponseJSON,
        });
        // The session has shown an authenticator that verifies its person: enrolment, for FORMSVC_REQUIRE_2FA.
        await accounts.markSecondFactor(principal.keyId);
        return passkey;
      },
      {
        auth: "session",
        body: RegisterBodySchema,
        detail: {
          summary: "Register a passkey",
          description: `Checks the browser's answer to the options of POST /api/v1/auth/passkeys/options (its challenge, used up either way; the origin, FORMSVC_PUBLIC_URL's; the relying party; user verification) and keeps the passkey under \`name\` (1 to ${MAX_PASSKEY_NAME} characters): its credential id, public key, signature counter and transports. It then signs its person in without a password (POST /api/v1/auth/passkeys/login), as a second factor too; the session it was registered in counts as having proved one. A refused answer is a 400; a passkey registered already, 409. ${UNAVAILABLE} Must carry the server's own Origin, else 403 CSRF.`,
          tags: ["Accounts"],
          responses: responses({ schema: PasskeySchema, description: "registered" }, 400, 401, 403, 409, 429),
        },
      },
    )
    .patch(
      "/auth/passkeys/:passkeyId",
      async ({ principal, params, body }) => await passkeys.rename(principal, params.passkeyId, body.name),
      {
        auth: "session",
        params: t.Object({ passkeyId: t.String() }),
        body: RenameBodySchema,
        detail: {
          summary: "Rename a passkey",
          description: `Sets the passkey's name (1 to ${MAX_PASSKEY_NAME} characters). Another person's passkey, or an unknown one, is a 404. Must carry the server's own Origin, else 403 CSRF.`,
          tags: ["Accounts"],
          responses: responses({ schema: PasskeySchema, description: "renamed" }, 400, 401, 403, 404, 429),
        },
      },
    )
    .delete(
      "/auth/passkeys/:passkeyId",
      async ({ principal, params, set }) => {
        await passkeys.remove(principal, params.passkeyId);
        set.status = 204;
      },
      {
        auth: "session",
        params: t.Object({ passkeyId: t.String() }),
        detail: {
          summary: "Remove a passkey",
          description:
            "Forgets the passkey: it signs in no more (the authenticator keeps it until its person deletes it there). Another person's passkey, or an unknown one, is a 404 and nothing changes. Must carry the server's own Origin, else 403 CSRF.",
          tags: ["Accounts"],
          responses: responses({ status: 204, description: "removed" }, 400, 401, 403, 404, 429),
        },
      },
    )
    .post("/auth/passkeys/login/options", async () => await passkeys.loginOptions(), {
      ...sameOriginJson(NoFieldsSchema),
      detail: {
        summary: "Begin a login with a passkey",
        description: `Takes no API key; the body is \`{}\`. The options for the browser's navigator.credentials.get, with no credentials named (discoverable credentials: the browser offers the passkeys it holds for this site) and user verification required; the challenge works once, for 5 minutes. Finish with POST /api/v1/auth/passkeys/login. ${UNAVAILABLE} Must carry the server's own Origin, else 403 CSRF.`,
        tags: ["Accounts"],
        security: [],
        responses: responses(
          { schema: RequestOptionsSchema, description: "the options for navigator.credentials.get" },
          400,
          403,
          409,
          429,
        ),
      },
    })
    .post(
      "/auth/passkeys/login",
      async ({ body, client, caller, viaSession, request, set }) => {
        const ownerId = await passkeys.login(body.response as AuthenticationResponseJSON, addressBucket(client().ip));
        const { account, token } = await accounts.finishLogin(ownerId, sessionOrigin(request, client));
        // One browser, one session: the one it came with (if any) ends here.
        if (viaSession) await accounts.endSession(caller!.keyId);
        set.headers["set-cookie"] = sessionCookie(token, accounts.sessionMaxAgeSeconds, opts.secureCookie);
        return account;
      },
      {
        ...sameOriginJson(LoginBodySchema),
        detail: {
          summary: "Log in with a passkey",
          description: `Takes no API key. Checks the browser's answer to the options of POST /api/v1/auth/passkeys/login/options: its challenge (used up either way), the origin (FORMSVC_PUBLIC_URL's), the relying party, a passkey registered here whose user handle is its person's, its signature, user verification, and a signature counter that moved forward. Opens the session as Log in does (the ${SESSION_COOKIE} cookie); it has proved a second factor, so no TOTP code is asked. A refused answer is a 401 (a malformed one a 400), and every attempt counts against Log in's throttle per client address (20 within 15 minutes; 429 beyond). ${UNAVAILABLE} Must carry the server's own Origin, else 403 CSRF.`,
          tags: ["Accounts"],
          security: [],
          responses: responses(loggedIn(), 400, 401, 403, 409, 429),
        },
      },
    );
}
