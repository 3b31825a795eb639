import * as client from "openid-client";
import type { Clock } from "../../lib/clock";
import { isoTime } from "../../lib/clock";
import { normalizeEmail } from "../../lib/email";
import { AppError } from "../../lib/errors";
import type { Logger } from "../../lib/log";
import type { Role } from "../../lib/rights";
import type { Signer } from "../../lib/signing";
import type { OwnersService } from "../owners/service";
import type { AccountsService, SessionOrigin } from "./service";

export interface OidcSettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** What the login page's button names. */
  name: string;
  /** Email domains that may sign in; empty: any. */
  allowedDomains: string[];
  /** A team a person new to formsvc joins, with `role`; empty: none. */
  team: string;
  role: Role;
}

export interface OidcDeps {
  settings: OidcSettings;
  owners: Pick<OwnersService, "findOwner" | "ensureOwner">;
  accounts: Pick<AccountsService, "openSession">;
  /** A login challenge when the person has a TOTP second factor, which a sign-in with the provider asks too. */
  challengeFor: (ownerId: string) => Promise<string | null>;
  teamExists: (id: string) => Promise<boolean>;
  /** Makes the person a member of the team unless they are one already. */
  joinTeam: (m: { teamId: string; ownerId: string; role: Role; at: string }) => Promise<void>;
  /** Signs the pending sign-in a browser carries between start and callback. */
  signer: Signer;
  clock: Clock;
  log: Logger;
}

/** A sign-in begun and not finished within this long is refused (the provider's login page has had its time). */
const PENDING_TTL_MS = 10 * 60 * 1000;

interface Pending {
  state: string;
  nonce: string;
  verifier: string;
  expiresAt: number;
}

/**
 * Why a sign-in was refused. The login page says it in words of its own (`#/login?sso=REASON`),
 * never in words from the address: a link anyone can send must not put text on formsvc's page.
 */
export const SSO_REFUSALS = [
  "lapsed",
  "unchecked",
  "no-email",
  "unverified",
  "domain",
  "misconfigured",
  "unreachable",
] as const;
export type SsoRefusal = (typeof SSO_REFUSALS)[number];

export class SsoRefused extends AppError {
  constructor(
    readonly reason: SsoRefusal,
    message: string,
  ) {
    super(reason === "unreachable" ? "UNAVAILABLE" : "UNAUTHORIZED", message);
  }
}

/**
 * Sign-in with an OpenID Connect provider: discovery, the authorization code flow with PKCE, `state`
 * and `nonce`; openid-client checks the ID token's signature against the issuer's JWKS, its issuer,
 * audience, expiry and nonce. What the browser must bring back (state, nonce, PKCE verifier) rides
 * in a signed cookie of its own rather than a table: nothing is stored for a sign-in never finished,
 * and any instance on a shared database can finish what another began. A person is matched by a
 * verified email only: an unverified one could be anyone's.
 */
export function createOidc(d: OidcDeps) {
  const s = d.settings;
  // The login page shows only the reason; the operator reads the detail here.
  const refused = (reason: SsoRefusal, message: string) => {
    d.log.info("oidc sign-in refused", { reason, detail: message });
    return new SsoRefused(reason, message);
  };
  let discovered: Promise<client.Configuration> | null = null;
  // Discovered once, on first use: a provider down at startup must not stop formsvc, and a failed discovery is tried again next time.
  const configuration = () =>
    (discovered ??= client
      .discovery(new URL(s.issuer), s.clientId, s.clientSecret, undefined, {
        // openid-client trusts an ID token from the token endpoint without its signature (OpenID Connect
        // allows it over TLS); the contract asks for the signature against the issuer's JWKS all the same.
        execute: [
          client.enableNonRepudiationChecks,
          ...(new URL(s.issuer).protocol === "http:" ? [client.allowInsecureRequests] : []),
        ],
      })
      .catch((e: unknown) => {
        discovered = null;
        d.log.warn("oidc discovery failed", { issuer: s.issuer, error: (e as Error).message });
        throw refused("unreachable", `the sign-in provider (${s.issuer}) cannot be reached; try again later`);
      }));

  const seal = (p: Pending) => {
    const body = Buffer.from(JSON.stringify(p)).toString("base64url");
    return `${body}.${d.signer.sign("oidc-pending", body)}`;
  };
  const unseal = (sealed: string | null): Pending => {
    const [body = "", signature = ""] = (sealed ?? "").split(".");
    if (!body || !d.signer.verifies(signature, "oidc-pending", body))
      throw refused("lapsed", "this sign-in was not started here, or has lapsed: start it again");
    const p = JSON.parse(Buffer.from(body, "base64url").toString()) as Pending;
    if (d.clock.now() >= p.expiresAt) throw refused("lapsed", "this sign-in took too long: start it again");
    return p;
  };

  return {
    /** The button's words, "Sign in with {name}". */
    name: s.name || new URL(s.issuer).hostname,

    /** Where to send the browser, and what it keeps meanwhile (sealed: signed, with its lapse). */
    async start(redirectUri: string): Promise<{ url: string; pending: string; maxAgeSeconds: number }> {
      const config = await configuration();
      const pending: Pending = {
        state: client.randomState(),
        nonce: client.randomNonce(),
        verifier: client.randomPKCECodeVerifier(),
        expiresAt: d.clock.now() + PENDING_TTL_MS,
      };
      const url = client.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri,
        scope: "openid email profile",
        response_type: "code",
        code_challenge: await client.calculatePKCECodeChallenge(pending.verifier),
        code_challenge_method: "S256",
        state: pending.state,
        nonce: pending.nonce,
      });
      return { url: url.href, pending: seal(pending), maxAgeSeconds: PENDING_TTL_MS / 1000 };
    },

    /**
     * Finishes a sign-in at the callback (`callback`: the URL the provider sent the browser to, on the redirect URI start was given):
     * every check, then the person (created if new, then joining the configured team) and a session.
     * Every refusal is an AppError (401, 503 when the provider cannot be reached) and changes nothing.
     */
    /**
     * Checks the provider's answer and opens the person's session; a person with a TOTP second
     * factor gets the login's challenge instead, to finish as a password login is finished: formsvc's
     * own second factor is not the provider's to waive.
     */
    async finish(
      callback: URL,
      sealed: string | null,
      origin: SessionOrigin,
    ): Promise<{ token: string } | { challenge: string }> {
      const pending = unseal(sealed);
      const config = await configuration();
      let who: Record<string, unknown>;
      try {
        // The redirect URI sent to the token endpoint is the callback's address without its query: the one start sent.
        const tokens = await client.authorizationCodeGrant(config, callback, {
          pkceCodeVerifier: pending.verifier,
          expectedState: pending.state,
          expectedNonce: pending.nonce,
          idTokenExpected: true,
        });
        const claims = tokens.claims()!;
        // Some providers put the email in the ID token, others only at the UserInfo endpoint (whose `sub` must be the token's).
        who = claims.email !== undefined ? claims : await client.fetchUserInfo(config, tokens.access_token, claims.sub);
      } catch (e) {
        const error = e as Error & { error?: string; error_description?: string; cause?: unknown };
        // The provider's own refusal (the person said no) or the check that failed, rather than the library's wrapping of it.
        const reason =
          error.error_description ??
          error.error ??
          (error.cause instanceof Error ? error.cause.message : null) ??
          error.message;
        throw refused("unchecked", `the sign-in could not be checked: ${reason}`);
      }
      const email = typeof who.email === "string" ? normalizeEmail(who.email) : null;
      if (!email) throw refused("no-email", "the provider sent no email address for this account");
      if (who.email_verified !== true)
        throw refused("unverified", `the provider has not verified ${email}: verify it there, then sign in again`);
      const domain = email.slice(email.lastIndexOf("@") + 1);
      if (s.allowedDomains.length && !s.allowedDomains.includes(domain))
        throw refused("domain", `people of ${domain} may not sign in here`);

      let owner = await d.owners.findOwner(email);
      if (!owner) {
        if (s.team && !(await d.teamExists(s.team))) {
          d.log.warn("FORMSVC_OIDC_TEAM names no team", { team: s.team });
          throw refused(
            "misconfigured",
            "this server's sign-in is misconfigured (FORMSVC_OIDC_TEAM names no team); tell its operator",
          );
        }
        owner = await d.owners.ensureOwner(email);
        if (s.team)
          // Two first sign-ins of one person at once both get here: the second finds the membership made.
          await d.joinTeam({ teamId: s.team, ownerId: owner.id, role: s.role, at: isoTime(d.clock.now()) });
      }
      const challenge = await d.challengeFor(owner.id);
      if (challenge) return { challenge };
      return { token: (await d.accounts.openSession(owner.id, origin)).token };
    },
  };
}

export type Oidc = ReturnType<typeof createOidc>;
