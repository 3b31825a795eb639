import { useEffect, useRef, useState } from "preact/hooks";
import { FormsvcError } from "../api";
import { auth, type Providers } from "../calls";
import { act, ErrorNote } from "../ui/bits";
import { go, route } from "../router";
import { loginNotice, me } from "../session";

/**
 * Why a single sign-on was refused (`#/login?sso=REASON`), in the page's own words: the address is
 * anyone's to write, so no text of it is shown.
 */
const SSO_REFUSED: Record<string, string> = {
  lapsed: "That sign-in was not started here, or took too long: sign in again.",
  unchecked: "The sign-in could not be checked: sign in again. If it keeps failing, the server's log says why.",
  "no-email": "The provider sent no email address for your account.",
  unverified: "The provider has not verified your email address: verify it there, then sign in again.",
  domain: "People of your email's domain may not sign in here.",
  misconfigured: "This server's sign-in is misconfigured: tell its operator.",
  unreachable: "The sign-in provider cannot be reached: try again later.",
};

/**
 * Email and password, "Sign in with a passkey" where the server offers passkeys, or "Sign in with
 * …" when it has OpenID Connect; afterwards, back to where the user was (`#/login?next=…`) or the
 * forms. A refused single sign-on comes back here with why (`#/login?sso=REASON`).
 */
export function LoginPage() {
  const [busy, setBusy] = useState(false);
  const refusal = SSO_REFUSED[route.value.query.get("sso") ?? ""];
  const [error, setError] = useState<unknown>(refusal ? new Error(refusal) : null);
  // Set once the password was right for a person with a second factor: the code step.
  // A sign-in with the provider of a person with TOTP comes back with it (`#/login?challenge=…`).
  const [challenge, setChallenge] = useState<string | null>(route.value.query.get("challenge"));
  const [providers, setProviders] = useState<Providers | null>(null);
  const sso = providers?.oidc;
  const email = useRef<HTMLInputElement>(null);
  const code = useRef<HTMLInputElement>(null);
  useEffect(() => (challenge ? code : email).current?.focus(), [challenge]);
  useEffect(() => void auth.providers().then(setProviders), []);
  const next = route.value.query.get("next");
  const done = () => {
    loginNotice.value = null;
    go(next && next.startsWith("#/") && !next.startsWith("#/login") ? next : "#/forms", true);
  };
  return (
    <main class="login" id="main">
      <div class="login-card">
        <p class="brand brand-large" aria-hidden="true">
          <span class="brand-mark">F</span> formsvc
        </p>
        <h1>Log in</h1>
        {loginNotice.value && !error && (
          <p class="note" role="status">
            {loginNotice.value}
          </p>
        )}
        <form
          class="stack"
          onSubmit={act(async (e) => {
            e.preventDefault();
            const data = new FormData(e.currentTarget);
            setBusy(true);
            setError(null);
            try {
              me.value = challenge
                ? await auth.secondFactor(challenge, String(data.get("code")))
                : await auth.login(String(data.get("email")), String(data.get("password")));
              done();
            } catch (err) {
              if (err instanceof FormsvcError && err.code === "SECOND_FACTOR_REQUIRED" && err.challenge) {
                setChallenge(err.challenge);
                setError(null);
              } else setError(err);
              setBusy(false);
            }
          })}
        >
          {challenge ? (
            <label class="field">
              <span>Code from your authenticator app, or a recovery code</span>
              <input ref={code} name="code" autocomplete="one-time-code" required />
            </label>
          ) : (
            <>
              <label class="field">
                <span>Email</span>
                <input ref={email} name="email" type="email" autocomplete="username" required />
              </label>
              <label class="field">
                <span>Password</span>
                <input name="password" type="password" autocomplete="current-password" required />
              </label>
            </>
          )}
          {error !== null && <ErrorNote error={error} />}
          <button type="submit" class="button button-primary" disabled={busy}>
            {busy ? "Logging in…" : "Log in"}
          </button>
        </form>
        {providers?.passkeys.available && !challenge && (
          <p class="login-sso">
            <button
              type="button"
              class="button"
              disabled={busy}
              onClick={act(async () => {
                setBusy(true);
                setError(null);
                try {
                  me.value = await auth.passkeyLogin();
                  done();
                } catch (err) {
                  setError(err);
                  setBusy(false);
                }
              })}
            >
              Sign in with a passkey
            </button>
          </p>
        )}
        {sso && (
          <p class="login-sso">
            <a class="button" href={sso.start}>
              Sign in with {sso.name}
            </a>
          </p>
        )}
        <p class="small">
          <a href="#/forgot">Forgot your password?</a>
        </p>
        <p class="muted small">
          First time here? Open the setup link <code>formsvc serve</code> printed, or set a password on the server:{" "}
          <code>formsvc owners set-password you@example.com</code>
        </p>
      </div>
    </main>
  );
}
