import { Elysia, t } from "elysia";
import { requestContext } from "../../http/context";
import { responses } from "../../http/docs";
import { SESSION_COOKIE, sessionCookie, sessionOrigin } from "../../http/session-cookie";
import { AppError } from "../../lib/errors";
import { SsoRefused, type Oidc } from "./oidc";
import type { PasskeysStatus } from "./passkeys";

/** The cookie that carries a begun sign-in (state, nonce, PKCE verifier; signed) from start to callback, and nowhere else. */
const PENDING_COOKIE = "formsvc_oidc";
const PENDING_PATH = "/api/v1/auth/oidc";
const CALLBACK_PATH = `${PENDING_PATH}/callback`;

const pendingCookie = (value: string, maxAge: number, secure: boolean) =>
  `${PENDING_COOKIE}=${value}; Max-Age=${maxAge}; Path=${PENDING_PATH}; HttpOnly; SameSite=Lax${secure ? "; Secure" : ""}`;

function readPending(request: Request): string | null {
  for (const pair of (request.headers.get("cookie") ?? "").split(";")) {
    const eq = pair.indexOf("=");
    if (eq > 0 && pair.slice(0, eq).trim() === PENDING_COOKIE) return pair.slice(eq + 1).trim() || null;
  }
  return null;
}

/** The login page, telling why a sign-in was refused. */
/** The login page, saying why a sign-in was refused in its own words (see SsoRefused). */
const loginWith = (e: AppError) =>
  `/dashboard#/login?${new URLSearchParams({ sso: e instanceof SsoRefused ? e.reason : "unchecked" })}`;

const location = (description: string) => ({
  Location: { description, required: true, schema: { type: "string" } },
});

const ProvidersSchema = t.Object(
  {
    oidc: t.Nullable(
      t.Object({
        name: t.String({ description: 'what the login page\'s "Sign in with …" button names (FORMSVC_OIDC_NAME)' }),
        start: t.String({ description: "where the button leads: GET it in the browser" }),
      }),
    ),
    passkeys: t.Object({
      available: t.Boolean({ description: "whether the login page offers passkeys (POST /api/v1/auth/passkeys/…)" }),
      reason: t.Optional(t.String({ description: "why not, when not: what FORMSVC_PUBLIC_URL lacks" })),
    }),
  },
  { description: "the ways to sign in besides a password" },
);

interface Options {
  /** The server is reached over https (FORMSVC_PUBLIC_URL): the cookies are Secure. */
  secureCookie: boolean;
  sessionMaxAgeSeconds: number;
  /** FORMSVC_PUBLIC_URL, which the callback's address starts with (else the request's own origin). */
  publicUrl: string;
  /** Whether passkeys are offered (passkeys.ts `relyingParty`), and why not. */
  passkeys: PasskeysStatus;
}

/** OpenID Connect sign-in (when configured), and what the login page offers. Outside the API's key auth, as login is. */
export function oidcRoutes(oidc: Oidc | null, opts: Options) {
  const callbackUri = (ownOrigin: string | null) => `${opts.publicUrl || ownOrigin || ""}${CALLBACK_PATH}`;
  const configured = () => {
    if (!oidc) throw new AppError("NOT_FOUND", "OpenID Connect sign-in is not configured (FORMSVC_OIDC_ISSUER)");
    return oidc;
  };
  return new Elysia({ name: "oidc-routes" })
    .use(requestContext)
    .get(
      "/auth/providers",
      () => ({ oidc: oidc && { name: oidc.name, start: `${PENDING_PATH}/start` }, passkeys: opts.passkeys }),
      {
        detail: {
          summary: "Ways to sign in",
          description:
            'Takes no API key. Whether the login page offers "Sign in with …" (OpenID Connect, with FORMSVC_OIDC_ISSUER, FORMSVC_OIDC_CLIENT_ID and FORMSVC_OIDC_CLIENT_SECRET set): `oidc` is null when it does not; and passkeys, which need FORMSVC_PUBLIC_URL with a host name (`localhost` on one\'s own machine; https elsewhere): `passkeys.reason` says what is missing.',
          tags: ["Accounts"],
          security: [],
          responses: responses({ schema: ProvidersSchema, description: "the ways to sign in" }, 429),
        },
      },
    )
    .get(
      `${PENDING_PATH.slice("/api/v1".length)}/start`,
      async ({ ownOrigin, set }) => {
        const sso = configured();
        set.status = 302;
        try {
          const { url, pending, maxAgeSeconds } = await sso.start(callbackUri(ownOrigin()));
          set.headers.location = url;
          set.headers["set-cookie"] = pendingCookie(pending, maxAgeSeconds, opts.secureCookie);
        } catch (e) {
          // A provider that cannot be reached is said on the login page, where the person clicked.
          if (!(e instanceof AppError)) throw e;
          set.headers.location = loginWith(e);
        }
      },
      {
        detail: {
          summary: "Sign in with OpenID Connect",
          description: `Takes no API key; opened by the browser (the login page's "Sign in with …"). Sends it to the provider (authorization code flow with PKCE, \`state\` and \`nonce\`); these ride in a signed HttpOnly cookie, ${PENDING_COOKIE} (Path=${PENDING_PATH}, 10 minutes), to the callback. 404 when not configured; when the provider's discovery document cannot be read, back to the login page, which says so.`,
          tags: ["Accounts"],
          security: [],
          responses: responses(
            {
              status: 302,
              description:
                "to the provider's authorization endpoint; when it cannot be reached, to the login page, saying so",
              headers: {
                ...location("the provider's authorization URL, or /dashboard#/login?sso=unreachable"),
                "Set-Cookie": { description: `${PENDING_COOKIE}=… (none when refused)`, schema: { type: "string" } },
              },
            },
            404,
            429,
          ),
        },
      },
    )
    .get(
      `${CALLBACK_PATH.slice("/api/v1".length)}`,
      async ({ request, ownOrigin, client, set }) => {
        const sso = configured();
        set.status = 302;
        try {
          const signedIn = await sso.finish(
            new URL(callbackUri(ownOrigin()) + new URL(request.url).search),
            readPending(request),
            sessionOrigin(request, client),
          );
          if ("challenge" in signedIn) {
            // The login page asks for the code, as after a right password.
            set.headers.location = `/dashboard#/login?${new URLSearchParams({ challenge: signedIn.challenge })}`;
            set.headers["set-cookie"] = pendingCookie("", 0, opts.secureCookie);
            return;
          }
          set.headers.location = "/dashboard";
          // The begun sign-in is over: its cookie goes with the session's arrival.
          set.headers["set-cookie"] = [
            sessionCookie(signedIn.token, opts.sessionMaxAgeSeconds, opts.secureCookie),
            pendingCookie("", 0, opts.secureCookie),
          ] as unknown as string;
        } catch (e) {
          // Any refusal (a provider out of reach too) goes back to the login page, which shows why; the begun sign-in is over either way.
          if (!(e instanceof AppError)) throw e;
          set.headers.location = loginWith(e);
          set.headers["set-cookie"] = pendingCookie("", 0, opts.secureCookie);
        }
      },
      {
        detail: {
          summary: "OpenID Connect callback",
          description: `Takes no API key; where the provider sends the browser back (the redirect URI to register there: FORMSVC_PUBLIC_URL${CALLBACK_PATH}). Checks \`state\` against the ${PENDING_COOKIE} cookie, exchanges the code (with the PKCE verifier), and checks the ID token's signature (the issuer's JWKS), issuer, audience, expiry and \`nonce\`. The person is the one with the token's \`email\`, which must have \`email_verified: true\` and, with FORMSVC_OIDC_ALLOWED_DOMAINS, one of those domains; a person new to formsvc is made (with their personal team) and, with FORMSVC_OIDC_TEAM, joins that team with FORMSVC_OIDC_ROLE (default viewer). Then a session opens (the ${SESSION_COOKIE} cookie, as Log in) and the browser goes to /dashboard; for a person with a TOTP second factor, the browser goes to the login page with the login's challenge instead (\`#/login?challenge=…\`, finished by POST /api/v1/auth/login/second-factor as after a password). A refusal sends it to the login page, whose address carries why as one of a fixed set of reasons (\`#/login?sso=lapsed|unchecked|no-email|unverified|domain|misconfigured|unreachable\`), which the page words itself.`,
          tags: ["Accounts"],
          security: [],
          responses: responses(
            {
              status: 302,
              description: "signed in: to /dashboard, with the session cookie; refused: to the login page, saying why",
              headers: {
                ...location(
                  "/dashboard; /dashboard#/login?challenge=… for a code; /dashboard#/login?sso=REASON when refused",
                ),
                "Set-Cookie": {
                  description: `the session cookie, and ${PENDING_COOKIE} cleared; when refused, only the latter`,
                  required: true,
                  schema: { type: "string" },
                },
              },
            },
            404,
            429,
          ),
        },
      },
    );
}
