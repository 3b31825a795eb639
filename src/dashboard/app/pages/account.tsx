import { useState } from "preact/hooks";
import { auth } from "../calls";
import { enrolmentRequired, me } from "../session";
import { PageTitle } from "../shell";
import type { TotpEnrolment } from "../../../client/index";
import { act, announce, CopyButton, ErrorNote } from "../ui/bits";

// The zones this browser knows, UTC first; the owner's own is kept even where the browser lacks it.
const ZONES = ["UTC", ...Intl.supportedValuesOf("timeZone").filter((z) => z !== "UTC")];
const browserZone = Intl.DateTimeFormat().resolvedOptions().timeZone;

/** The owner's own settings: for now, the time zone emails write their times in. */
export function AccountPage() {
  const account = me.value!;
  const [zone, setZone] = useState(account.timeZone);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const zones = ZONES.includes(account.timeZone) ? ZONES : [account.timeZone, ...ZONES];
  return (
    <>
      <PageTitle sub={account.email}>Your account</PageTitle>
      <form
        class="card stack"
        onSubmit={act(async (e) => {
          e.preventDefault();
          setBusy(true);
          setError(null);
          try {
            me.value = await auth.update({ timeZone: zone });
            announce(`Saved: emails now write times in ${me.value.timeZone}.`);
          } catch (err) {
            setError(err);
          } finally {
            setBusy(false);
          }
        })}
      >
        <div class="field">
          <label class="field-label">
            <span>Time zone</span>
            <select
              name="timeZone"
              value={zone}
              aria-describedby="time-zone-help"
              onChange={(e) => setZone(e.currentTarget.value)}
            >
              {zones.map((z) => (
                <option key={z} value={z}>
                  {z.replaceAll("_", " ")}
                </option>
              ))}
            </select>
          </label>
          <span id="time-zone-help" class="muted small">
            Notification and digest emails write their times in this zone.
            {browserZone && browserZone !== zone && (
              <>
                {" "}
                <button type="button" class="link-button" onClick={() => setZone(browserZone)}>
                  Use this browser's ({browserZone.replaceAll("_", " ")})
                </button>
              </>
            )}
          </span>
        </div>
        {error !== null && <ErrorNote error={error} />}
        <div class="actions">
          <button type="submit" class="button button-primary" disabled={busy || zone === account.timeZone}>
            {busy ? "Saving…" : "Save"}
          </button>
        </div>
      </form>
      <TwoStepLogin />
    </>
  );
}

/**
 * TOTP: set up with a QR code, confirm with a code, then the recovery codes, shown this once.
 * `onDone`: a session held to enrolment (FORMSVC_REQUIRE_2FA) goes on to the dashboard from there.
 */
export function TwoStepLogin({ onDone }: { onDone?: () => void }) {
  const [enrolment, setEnrolment] = useState<TotpEnrolment | null>(null);
  const [codes, setCodes] = useState<string[] | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const run = (f: (form: FormData) => Promise<void>) =>
    act(async (e: SubmitEvent) => {
      e.preventDefault();
      setBusy(true);
      setError(null);
      try {
        await f(new FormData(e.currentTarget as HTMLFormElement));
      } catch (err) {
        setError(err);
      } finally {
        setBusy(false);
      }
    });
  return (
    <section class="card stack" aria-labelledby="two-step-title">
      <h2 id="two-step-title">Two-step login</h2>
      {codes ? (
        <>
          <p role="status">
            Two-step login is on. Keep these recovery codes somewhere safe: each logs in once without your phone, and
            they are not shown again.
          </p>
          <pre class="recovery-codes">{codes.join("\n")}</pre>
          <div class="actions">
            <CopyButton text={codes.join("\n")} label="Copy the recovery codes" />
            {onDone && (
              <button type="button" class="button button-primary" onClick={onDone}>
                Go on to the dashboard
              </button>
            )}
          </div>
        </>
      ) : enrolment ? (
        <form
          class="stack"
          onSubmit={run(async (form) => {
            setCodes((await auth.confirmTotp(String(form.get("code")))).recoveryCodes);
            setEnrolment(null);
          })}
        >
          <p>Scan this with your authenticator app, then enter the code it shows.</p>
          <img src={enrolment.qr} alt="QR code of the two-step login secret" width={200} height={200} />
          <p class="muted small">
            Cannot scan? Enter this key instead: <code>{enrolment.secret}</code>
          </p>
          <label class="field">
            <span>Code</span>
            <input name="code" inputMode="numeric" autocomplete="one-time-code" required />
          </label>
          {error !== null && <ErrorNote error={error} />}
          <div class="actions">
            <button type="submit" class="button button-primary" disabled={busy}>
              {busy ? "Checking…" : "Turn on"}
            </button>
          </div>
        </form>
      ) : (
        <form class="stack" onSubmit={run(async () => setEnrolment(await auth.startTotp()))}>
          {enrolmentRequired.value && (
            <p class="note" role="status">
              This server requires two-step login: set it up to go on.
            </p>
          )}
          <p class="muted">
            A code from an authenticator app on your phone, asked for after your password at each login.
          </p>
          {error !== null && <ErrorNote error={error} />}
          <div class="actions">
            <button type="submit" class="button" disabled={busy}>
              Set up two-step login
            </button>
          </div>
        </form>
      )}
    </section>
  );
}
