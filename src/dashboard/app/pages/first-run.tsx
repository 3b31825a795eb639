import { useState } from "preact/hooks";
import type { ComponentChildren } from "preact";
import { auth } from "../calls";
import type { ResetAccepted } from "../../../client/index";
import { act, ErrorNote, NoSmtpNote } from "../ui/bits";
import { go } from "../router";
import { loginNotice, me } from "../session";

/** The token of a link the app was opened with (`/dashboard/setup?token=…`, `/dashboard/reset?token=…`). */
const linkToken = () => new URLSearchParams(location.search).get("token") ?? "";

/** Leaves the link's address (its token out of the address bar and history) for a route of the app. */
function leaveLink(hash: string) {
  history.replaceState(null, "", `/dashboard${hash}`);
  go(hash, true);
}

/** The card the pages outside a session share with the login page. */
export function Card({ title, children }: { title: string; children: ComponentChildren }) {
  return (
    <main class="login" id="main">
      <div class="login-card">
        <p class="brand brand-large" aria-hidden="true">
          <span class="brand-mark">F</span> formsvc
        </p>
        <h1>{title}</h1>
        {children}
      </div>
    </main>
  );
}

/** A form of the card: one submit, its error, and a busy state. */
function useSubmit(action: (data: FormData) => Promise<void>) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const onSubmit = act(async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await action(new FormData(e.currentTarget as HTMLFormElement));
    } catch (err) {
      setError(err);
    }
    setBusy(false);
  });
  return { busy, error, onSubmit, setError };
}

const NewPassword = ({ label }: { label: string }) => (
  <label class="field">
    <span>{label}</span>
    <input name="password" type="password" autocomplete="new-password" minLength={12} required />
    <span class="muted small">At least 12 characters: a few words make a good one.</span>
  </label>
);

/** First run: the first owner's email and password, with the token of the link `formsvc serve` printed; then logged in. */
export function SetupPage() {
  const { busy, error, onSubmit } = useSubmit(async (data) => {
    me.value = await auth.setup(linkToken(), String(data.get("email")), String(data.get("password")));
    leaveLink("#/forms");
  });
  return (
    <Card title="Set up formsvc">
      <p>Welcome. Choose the email and password you will log in with; you are the first owner.</p>
      <form class="stack" onSubmit={onSubmit}>
        <label class="field">
          <span>Email</span>
          <input name="email" type="email" autocomplete="username" required autoFocus />
        </label>
        <NewPassword label="Password" />
        {error !== null && <ErrorNote error={error} />}
        {(error as { code?: string } | null)?.code === "OWNER_EXISTS" && (
          <p>
            <a href="/dashboard#/forgot">Reset that owner's password</a>
          </p>
        )}
        <button type="submit" class="button button-primary" disabled={busy}>
          {busy ? "Setting up…" : "Set up and log in"}
        </button>
      </form>
    </Card>
  );
}

/** The page of an emailed reset link: a new password, then the login page. */
export function ResetPage() {
  const { busy, error, onSubmit } = useSubmit(async (data) => {
    await auth.confirmReset(linkToken(), String(data.get("password")));
    loginNotice.value = "Your password is set. Log in with it; every earlier session has ended.";
    leaveLink("#/login");
  });
  return (
    <Card title="Choose a new password">
      <form class="stack" onSubmit={onSubmit}>
        <NewPassword label="New password" />
        {error !== null && <ErrorNote error={error} />}
        <button type="submit" class="button button-primary" disabled={busy}>
          {busy ? "Saving…" : "Set the new password"}
        </button>
      </form>
      <p class="muted small">
        <a href="/dashboard#/forgot">Ask for a new link</a> · <a href="/dashboard#/login">Log in</a>
      </p>
    </Card>
  );
}

/** "Forgot your password?": asks for a reset email; the same answer whatever the address. */
export function ForgotPage() {
  const [sent, setSent] = useState<ResetAccepted | null>(null);
  const { busy, error, onSubmit } = useSubmit(async (data) => {
    setSent(await auth.requestReset(String(data.get("email"))));
  });
  return (
    <Card title="Forgot your password?">
      {sent && !sent.smtpConfigured ? (
        <>
          <NoSmtpNote what="password reset links" />
          <p>
            Ask the operator, who can also set your password at once with <code>formsvc owners set-password</code>.
          </p>
        </>
      ) : sent ? (
        <p class="note" role="status">
          {sent.message.charAt(0).toUpperCase() + sent.message.slice(1)}. Check your inbox.
        </p>
      ) : (
        <form class="stack" onSubmit={onSubmit}>
          <p>Enter your email: we send a link to choose a new password.</p>
          <label class="field">
            <span>Email</span>
            <input name="email" type="email" autocomplete="username" required autoFocus />
          </label>
          {error !== null && <ErrorNote error={error} />}
          <button type="submit" class="button button-primary" disabled={busy}>
            {busy ? "Sending…" : "Send the link"}
          </button>
        </form>
      )}
      <p class="muted small">
        <a href="#/login">Back to log in</a>
      </p>
    </Card>
  );
}
