import type {
  AuthenticationResponseJSON,
  AuthenticatorTransportFuture,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
  VerifiedAuthenticationResponse,
  VerifiedRegistrationResponse,
} from "@simplewebauthn/server";
import { randomBytes } from "node:crypto";
import { isIP } from "node:net";
import { retryWhileBusy } from "../../db/busy";
import { isoTime, type Clock } from "../../lib/clock";
import { AppError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import type { Principal } from "../../lib/principal";
import type { PasskeysRepo } from "./passkeys-repo";
import type { AccountsRepo } from "./repo";
import { FAILURES_PER_ADDRESS, THROTTLE_WINDOW_MS, throttled } from "./service";
import { failureWindow } from "./throttle";

/** A registration or login begun lives this long, and is used once. */
const CHALLENGE_TTL_MS = 5 * 60 * 1000;
const WRITE_WAIT_MS = 5_000;
/** What an authenticator shows beside the person's email. */
const RP_NAME = "formsvc";
export const MAX_PASSKEY_NAME = 100;

/** One of a person's passkeys as they see it: never its key. */
export interface Passkey {
  id: string;
  name: string;
  createdAt: string;
  lastUsedAt: string | null;
}

/** Whether this server offers passkeys, and why not. */
export type PasskeysStatus = { available: true } | { available: false; reason: string };

type RelyingParty = { id: string; origin: string } | { reason: string };

/**
 * The relying party a passkey is bound to: FORMSVC_PUBLIC_URL's host name, and its origin the one
 * a browser must sign for. Browsers make passkeys for a host name only (never an IP address) and in
 * a secure context only: https, or http on localhost.
 */
export function relyingParty(publicUrl: string): RelyingParty {
  if (!publicUrl)
    return {
      reason:
        "passkeys need FORMSVC_PUBLIC_URL, the address people open formsvc at: a passkey belongs to its host name",
    };
  const url = new URL(publicUrl);
  const host = url.hostname;
  if (isIP(host.replace(/^\[|\]$/g, "")))
    return {
      reason: `passkeys need a host name, and FORMSVC_PUBLIC_URL is an IP address (${host}): set it to a name (localhost on this machine)`,
    };
  const local = host === "localhost" || host.endsWith(".localhost");
  if (url.protocol !== "https:" && !local)
    return { reason: "passkeys need https: browsers offer them on http only for localhost (FORMSVC_PUBLIC_URL)" };
  return { id: host, origin: url.origin };
}

/** The challenge a browser signed, read from its client data; null when that is not what it should be. */
function signedChallenge(clientDataJSON: string): string | null {
  try {
    const data = JSON.parse(Buffer.from(clientDataJSON, "base64url").toString("utf8")) as { challenge?: unknown };
    return typeof data.challenge === "string" && data.challenge.length <= 200 ? data.challenge : null;
  } catch {
    return null;
  }
}

const hash = (challenge: string) => Bun.SHA256.hash(challenge, "hex");

/** The WebAuthn library, loaded at the first passkey ceremony: most starts of formsvc (each CLI command) need none. */
let library: Promise<typeof import("@simplewebauthn/server")> | null = null;
const webauthn = () => (library ??= import("@simplewebauthn/server"));

const toPasskey = (p: { id: string; name: string; createdAt: string; lastUsedAt: string | null }): Passkey => ({
  id: p.id,
  name: p.name,
  createdAt: p.createdAt,
  lastUsedAt: p.lastUsedAt,
});

const validName = (name: string) => {
  const trimmed = name.trim();
  if (!trimmed || trimmed.length > MAX_PASSKEY_NAME)
    throw new AppError("VALIDATION_FAILED", `a passkey's name is 1 to ${MAX_PASSKEY_NAME} characters`);
  return trimmed;
};

export interface PasskeysDeps {
  repo: PasskeysRepo;
  /** Login's failure counts, which a refused passkey login counts against too. */
  accountsRepo: AccountsRepo;
  clock: Clock;
  /** FORMSVC_PUBLIC_URL: the relying party. */
  publicUrl: string;
}

/**
 * Passkeys (WebAuthn Level 2): discoverable credentials with user verification, registered by a
 * signed-in person, each named; a login with one needs no password and proves a second factor.
 * Every challenge is random, kept as its SHA-256 for 5 minutes, and used up by the first answer
 * that names it, right or wrong.
 */
export function createPasskeysService({ repo, accountsRepo, clock, publicUrl }: PasskeysDeps) {
  const rp = relyingParty(publicUrl);
  const now = () => clock.now();
  const byAddress = failureWindow(accountsRepo, "address", FAILURES_PER_ADDRESS, THROTTLE_WINDOW_MS, now);

  const party = () => {
    if ("reason" in rp) throw new AppError("PASSKEYS_UNAVAILABLE", rp.reason);
    return rp;
  };

  /** A new challenge, kept (for a registration, as `ownerId`'s). */
  async function newChallenge(ownerId: string | null): Promise<Uint8Array<ArrayBuffer>> {
    const bytes = new Uint8Array(randomBytes(32));
    const at = now();
    await retryWhileBusy(
      () =>
        repo.insertChallenge({
          hash: hash(Buffer.from(bytes).toString("base64url")),
          ownerId,
          expiresAt: isoTime(at + CHALLENGE_TTL_MS),
          now: isoTime(at),
        }),
      WRITE_WAIT_MS,
    );
    return bytes;
  }

  /**
   * With FORMSVC_REQUIRE_2FA, a session whose login proved no second factor may enrol one; but a
   * person with passkeys proves it by signing in with one, else a password alone could add a key.
   */
  const has = async (ownerId: string) => (await repo.list(ownerId)).length > 0;
  const mayRegister = async (caller: Principal) => {
    if (caller.enrolmentDue && (await has(caller.ownerId)))
      throw new AppError(
        "SECOND_FACTOR_ENROLMENT_REQUIRED",
        "this server requires a second factor, and you have passkeys: log out and sign in with one of them",
      );
  };

  /** Uses up the challenge the answer signed; false when it is unknown, lapsed, used or not this caller's. */
  const takeChallenge = (challenge: string, ownerId: string | null) =>
    retryWhileBusy(() => repo.takeChallenge(hash(challenge), ownerId, isoTime(now())), WRITE_WAIT_MS);

  return {
    status: (): PasskeysStatus => ("reason" in rp ? { available: false, reason: rp.reason } : { available: true }),

    /** Whether the person has a passkey. */
    has,

    list: async (caller: Principal): Promise<Passkey[]> => (await repo.list(caller.ownerId)).map(toPasskey),

    /** Begins a registration: the options for the browser's `navigator.credentials.create`. */
    async registrationOptions(caller: Principal, email: string): Promise<PublicKeyCredentialCreationOptionsJSON> {
      const { id } = party();
      await mayRegister(caller);
      const handle = await retryWhileBusy(
        () => repo.userHandle(caller.ownerId, randomBytes(32).toString("base64url")),
        WRITE_WAIT_MS,
      );
      const existing = await repo.list(caller.ownerId);
      return (await webauthn()).generateRegistrationOptions({
        rpName: RP_NAME,
        rpID: id,
        userName: email,
        userDisplayName: email,
        userID: new Uint8Array(Buffer.from(handle, "base64url")),
        challenge: await newChallenge(caller.ownerId),
        timeout: CHALLENGE_TTL_MS,
        attestationType: "none",
        excludeCredentials: existing.map((p) => ({
          id: p.credentialId,
          transports: p.transports as AuthenticatorTransportFuture[],
        })),
        authenticatorSelection: { residentKey: "required", requireResidentKey: true, userVerification: "required" },
      });
    },

    /** Finishes a registration begun by the caller: checks the browser's answer and keeps the passkey under `name`. */
    async register(caller: Principal, input: { name: string; response: RegistrationResponseJSON }): Promise<Passkey> {
      const { id: rpId, origin } = party();
      const name = validName(input.name);
      await mayRegister(caller);
      const challenge = signedChallenge(input.response.response.clientDataJSON);
      if (!challenge) throw new AppError("INVALID_PARAMETER", "response.response.clientDataJSON is not a browser's");
      if (!(await takeChallenge(challenge, caller.ownerId)))
        throw new AppError(
          "INVALID_PARAMETER",
          "this registration was not begun here, was used, or has lapsed (5 minutes): start again",
        );
      let verified: VerifiedRegistrationResponse;
      try {
        verified = await (
          await webauthn()
        ).verifyRegistrationResponse({
          response: input.response,
          expectedChallenge: challenge,
          expectedOrigin: origin,
          expectedRPID: rpId,
          requireUserVerification: true,
        });
      } catch (e) {
        throw new AppError("INVALID_PARAMETER", `the passkey was refused: ${(e as Error).message}`);
      }
      if (!verified.verified) throw new AppError("INVALID_PARAMETER", "the passkey was refused");
      const { credential } = verified.registrationInfo;
      const row = {
        id: newId("pk"),
        ownerId: caller.ownerId,
        credentialId: credential.id,
        publicKey: Buffer.from(credential.publicKey).toString("base64url"),
        counter: credential.counter,
        transports: input.response.response.transports ?? credential.transports ?? [],
        name,
        createdAt: isoTime(now()),
        lastUsedAt: null,
      };
      if (!(await retryWhileBusy(() => repo.insert(row), WRITE_WAIT_MS)))
        throw new AppError("CONFLICT", "this passkey is registered already");
      return toPasskey(row);
    },

    async rename(caller: Principal, id: string, name: string): Promise<Passkey> {
      const row = await repo.rename(caller.ownerId, id, validName(name));
      if (!row) throw new AppError("NOT_FOUND", `no passkey ${id} of yours`);
      return toPasskey(row);
    },

    async remove(caller: Principal, id: string): Promise<void> {
      if (!(await repo.remove(caller.ownerId, id))) throw new AppError("NOT_FOUND", `no passkey ${id} of yours`);
    },

    /** Begins a login: options without credentials, for the browser to offer whichever passkey of this site it holds. */
    async loginOptions(): Promise<PublicKeyCredentialRequestOptionsJSON> {
      const { id } = party();
      return (await webauthn()).generateAuthenticationOptions({
        rpID: id,
        allowCredentials: [],
        userVerification: "required",
        timeout: CHALLENGE_TTL_MS,
        challenge: await newChallenge(null),
      });
    },

    /**
     * Checks a login's answer: a challenge begun here and unused, a passkey registered here whose
     * user handle is its person's, signed with user verification, its counter moving forward.
     * Every attempt counts against login's throttle for the client's address (429 beyond) until it
     * succeeds. Answers the person.
     */
    async login(response: AuthenticationResponseJSON, address: string): Promise<string> {
      const { id: rpId, origin } = party();
      const attempt = await retryWhileBusy(() => byAddress.attempt(address), WRITE_WAIT_MS);
      if (!attempt.allowed) throw throttled(attempt.retryAfter, "from this address");
      const challenge = signedChallenge(response.response.clientDataJSON);
      if (!challenge) throw new AppError("INVALID_PARAMETER", "response.response.clientDataJSON is not a browser's");
      if (!(await takeChallenge(challenge, null)))
        throw new AppError(
          "UNAUTHORIZED",
          "this passkey sign-in was not begun here, was used, or has lapsed (5 minutes): try again",
        );
      const refused = (why: string) => new AppError("UNAUTHORIZED", `the passkey was refused: ${why}`);
      const passkey = await repo.byCredential(response.id);
      if (!passkey) throw refused("it is not registered here (or was removed)");
      let checked: VerifiedAuthenticationResponse;
      try {
        checked = await (
          await webauthn()
        ).verifyAuthenticationResponse({
          response,
          expectedChallenge: challenge,
          expectedOrigin: origin,
          expectedRPID: rpId,
          requireUserVerification: true,
          credential: {
            id: passkey.credentialId,
            publicKey: new Uint8Array(Buffer.from(passkey.publicKey, "base64url")),
            counter: passkey.counter,
            transports: passkey.transports as AuthenticatorTransportFuture[],
          },
        });
      } catch (e) {
        throw refused((e as Error).message);
      }
      if (!checked.verified) throw refused("its signature does not match");
      const handle = response.response.userHandle;
      if (!handle || (await repo.handleOwner(handle)) !== passkey.ownerId) throw refused("it names another person");
      const recorded = await retryWhileBusy(
        () => repo.used(passkey.id, passkey.counter, checked.authenticationInfo.newCounter, isoTime(now())),
        WRITE_WAIT_MS,
      );
      if (!recorded) throw refused("another login used the same signature counter");
      await retryWhileBusy(() => byAddress.forgive(attempt.id), WRITE_WAIT_MS);
      return passkey.ownerId;
    },

    /** The operator's second factor reset takes the person's passkeys too; returns how many. */
    removeAll: (ownerId: string): Promise<number> => repo.removeAll(ownerId),

    /** Forgets registrations and logins begun and never finished. */
    forgetLapsedChallenges: (): Promise<number> => repo.deleteLapsedChallenges(isoTime(now())),
  };
}

export type PasskeysService = ReturnType<typeof createPasskeysService>;
