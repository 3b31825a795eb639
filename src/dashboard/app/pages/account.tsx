import { useState } from "preact/hooks";
import type { Passkey, Session } from "../../../client/index";
import { auth } from "../calls";
import { formatDateTime, plural } from "../format";
import { enrolmentRequired, me } from "../session";
import { PageTitle } from "../shell";
import type { TotpEnrolment } from "../../../client/index";
import { act, announce, Confirm, CopyButton, ErrorNote, Show } from "../ui/bits";
import { useLoad } from "../ui/load";

// The zones this browser knows, UTC first; the owner's own is kept even where the browser lacks it.
const ZONES = ["UTC", ...Intl.supportedValuesOf("timeZone").filter((z) => z !== "UTC")];
const browserZone = Intl.DateTimeFormat().resolvedOptions().timeZone;

/** The owner's own settings: the time zone emails write their times in, and where they are logged in. */
export function AccountPage() {
  const account = me.value!;
  const [zone, setZone] = useState(account.timeZone);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const zones = ZONES.includes(account.timeZone) ? ZONES : [account.timeZone, ...ZONES];
  return (
    <div class="stack-lg">
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
      <Passkeys />
      <TwoStepLogin />
      <Sessions />
    </div>
  );
}

const BROWSERS: [RegExp, string][] = [
  [/Edg\//, "Edge"],
  [/Firefox\//, "Firefox"],
  [/Chrome\//, "Chrome"],
  [/Safari\//, "Safari"],
];
const SYSTEMS: [RegExp, string][] = [
  [/iPhone|iPad/, "iOS"],
  [/Android/, "Android"],
  [/Windows/, "Windows"],
  [/Mac OS X/, "macOS"],
  [/Linux/, "Linux"],
];

/** "Firefox on Linux" for a browser's User-Agent; the header itself (its title) for anything else. */
function deviceName(userAgent: string | null): string {
  if (!userAgent) return "Unknown browser";
  const browser = BROWSERS.find(([re]) => re.test(userAgent))?.[1];
  const system = SYSTEMS.find(([re]) => re.test(userAgent))?.[1];
  if (!browser && !system) return userAgent.length > 40 ? `${userAgent.slice(0, 40)}…` : userAgent;
  return [browser ?? "A browser", system].filter(Boolean).join(" on ");
}

/** Where the owner is logged in, this browser marked, with a way to end any other session or all of them. */
function Sessions() {
  const [data, reload] = useLoad(() => auth.sessions(), []);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const run = (work: () => Promise<string>) =>
    act(async () => {
      setBusy(true);
      setError(null);
      try {
        announce(await work());
        reload();
      } catch (err) {
        setError(err);
      } finally {
        setBusy(false);
      }
    });
  return (
    <section class="card stack" aria-labelledby="sessions-title">
      <h2 id="sessions-title" class="card-title">
        Where you are logged in
      </h2>
      <Show value={data} retry={reload} label="Loading your sessions…">
        {(sessions) => (
          <>
            <table class="table sessions-table">
              <thead>
                <tr>
                  <th scope="col">Device</th>
                  <th scope="col">Address</th>
                  <th scope="col">Logged in</th>
                  <th scope="col">Last active</th>
                  <th scope="col">
                    <span class="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {sessions.map((s: Session) => (
                  <tr key={s.id}>
                    <td data-label="Device" title={s.userAgent ?? undefined}>
                      {deviceName(s.userAgent)}
                      {s.current && (
                        <>
                          {" "}
                          <span class="badge">This device</span>
                        </>
                      )}
                    </td>
                    <td data-label="Address">{s.address ?? "unknown"}</td>
                    <td data-label="Logged in">{formatDateTime(s.createdAt)}</td>
                    <td data-label="Last active">{formatDateTime(s.lastSeenAt)}</td>
                    <td class="cell-actions">
                      {!s.current && (
                        <button
                          type="button"
                          class="button button-danger-quiet"
                          disabled={busy}
                          aria-label={`End the session of ${deviceName(s.userAgent)}, logged in ${formatDateTime(s.createdAt)}`}
                          onClick={run(async () => {
                            await auth.endSession(s.id);
                            return "Ended: that device is logged out.";
                          })}
                        >
                          End
                        </button>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            {error !== null && <ErrorNote error={error} />}
            {sessions.length > 1 && (
              <div class="actions">
                <button
                  type="button"
                  class="button button-danger"
                  disabled={busy}
                  onClick={run(async () => {
                    const ended = await auth.endOtherSessions();
                    return `Ended ${plural(ended, "other session")}: only this device is logged in.`;
                  })}
                >
                  End all other sessions
                </button>
              </div>
            )}
          </>
        )}
      </Show>
    </section>
  );
}

/**
 * TOTP: set up with a QR code, confirm with a code, then the recovery codes, shown this once. Once on:
 * how many recovery codes are left, new ones, or off (to move to a new phone), each for a code.
 * `onDone`: a session held to enrolment (FORMSVC_REQUIRE_2FA) goes on to the dashboard from there.
 */
export function TwoStepLogin({ onDone }: { onDone?: () => void }) {
  const [enrolment, setEnrolment] = useState<TotpEnrolment | null>(null);
  const [codes, setCodes] = useState<string[] | null>(null);
  // With TOTP on: the change a code is being asked for.
  const [asking, setAsking] = useState<"renew" | "disable" | null>(null);
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
  const on = me.value?.totpEnabled ?? false;
  let body;
  if (codes)
    body = (
      <>
        <p role="status">
          Two-step login is on. Keep these recovery codes somewhere safe: each logs in once without your phone, and they
          are not shown again.
        </p>
        <pre class="recovery-codes">{codes.join("\n")}</pre>
        <div class="actions">
          <CopyButton text={codes.join("\n")} label="Copy the recovery codes" />
          {onDone ? (
            <button type="button" class="button button-primary" onClick={onDone}>
              Go on to the dashboard
            </button>
          ) : (
            <button type="button" class="button" onClick={() => setCodes(null)}>
              Done
            </button>
          )}
        </div>
      </>
    );
  else if (enrolment)
    body = (
      <form
        class="stack"
        onSubmit={run(async (form) => {
          setCodes((await auth.confirmTotp(String(form.get("code")))).recoveryCodes);
          setEnrolment(null);
          me.value = await auth.me();
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
    );
  else if (on)
    body = (
      <>
        <p>
          Two-step login is on: a login asks for a code from your authenticator app after your password.{" "}
          {plural(me.value!.recoveryCodesLeft, "recovery code")} left.
        </p>
        {asking ? (
          <form
            class="stack"
            onSubmit={run(async (form) => {
              const code = String(form.get("code"));
              if (asking === "renew") setCodes((await auth.renewRecoveryCodes(code)).recoveryCodes);
              else {
                await auth.disableTotp(code);
                announce("Two-step login is off.");
              }
              setAsking(null);
              me.value = await auth.me();
            })}
          >
            <label class="field">
              <span>Code from your authenticator app, or a recovery code</span>
              <input name="code" autocomplete="one-time-code" required />
            </label>
            {error !== null && <ErrorNote error={error} />}
            <div class="actions">
              <button
                type="submit"
                class={`button ${asking === "disable" ? "button-danger" : "button-primary"}`}
                disabled={busy}
              >
                {asking === "renew" ? "Make new recovery codes" : "Turn two-step login off"}
              </button>
              <button type="button" class="button" onClick={() => (setAsking(null), setError(null))}>
                Cancel
              </button>
            </div>
          </form>
        ) : (
          <div class="actions">
            <button type="button" class="button" onClick={() => setAsking("renew")}>
              New recovery codes
            </button>
            <button type="button" class="button button-danger-quiet" onClick={() => setAsking("disable")}>
              Turn off (for a new phone)
            </button>
          </div>
        )}
      </>
    );
  else
    body = (
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
    );
  return (
    <section class="card stack" aria-labelledby="two-step-title">
      <h2 id="two-step-title">Two-step login</h2>
      {body}
    </section>
  );
}

/**
 * Passkeys: each named, added with the browser's own dialog (a fingerprint, face or device PIN),
 * renamed and removed; where the server offers none, why. `onDone`: a session held to enrolment
 * (FORMSVC_REQUIRE_2FA) goes on to the dashboard once one is added.
 */
export function Passkeys({ onDone }: { onDone?: () => void }) {
  const [data, reload] = useLoad(async () => {
    const [providers, list] = await Promise.all([auth.providers(), auth.passkeys()]);
    return { status: providers.passkeys, list };
  }, []);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [renaming, setRenaming] = useState<string | null>(null);
  const [removing, setRemoving] = useState<Passkey | null>(null);
  // Set once a passkey is added here: a session held to enrolment may go on.
  const [added, setAdded] = useState(false);
  const run = (work: (form: FormData, element: HTMLFormElement) => Promise<string>) =>
    act(async (e: SubmitEvent) => {
      e.preventDefault();
      const element = e.currentTarget as HTMLFormElement;
      setBusy(true);
      setError(null);
      try {
        announce(await work(new FormData(element), element));
        reload();
      } catch (err) {
        setError(err);
      } finally {
        setBusy(false);
      }
    });
  return (
    <section class="card stack" aria-labelledby="passkeys-title">
      <h2 id="passkeys-title">Passkeys</h2>
      <p class="muted">
        Sign in with your fingerprint, face or device PIN instead of your password. A passkey counts as two-step login
        too.
      </p>
      <Show value={data} retry={reload} label="Loading your passkeys…">
        {({ status, list }) => (
          <>
            {!status.available && (
              <p class="note" role="status">
                Passkeys are not offered on this server: {status.reason}.
              </p>
            )}
            {list.length > 0 && (
              <ul class="passkey-list stack" aria-label="Your passkeys">
                {list.map((p) =>
                  renaming === p.id ? (
                    <li key={p.id}>
                      <form
                        class="inline-form"
                        onSubmit={run(async (form) => {
                          const renamed = await auth.renamePasskey(p.id, String(form.get("name")));
                          setRenaming(null);
                          return `Renamed to ${renamed.name}.`;
                        })}
                      >
                        <label class="field">
                          <span>New name of {p.name}</span>
                          <input name="name" defaultValue={p.name} maxLength={100} required autoFocus />
                        </label>
                        <button type="submit" class="button button-primary" disabled={busy}>
                          Save
                        </button>
                        <button type="button" class="button" onClick={() => setRenaming(null)}>
                          Cancel
                        </button>
                      </form>
                    </li>
                  ) : (
                    <li key={p.id} class="passkey">
                      <span>
                        <strong>{p.name}</strong>
                        <span class="muted small">
                          {" "}
                          added {formatDateTime(p.createdAt)},{" "}
                          {p.lastUsedAt ? `last used ${formatDateTime(p.lastUsedAt)}` : "not used yet"}
                        </span>
                      </span>
                      <span class="actions">
                        <button
                          type="button"
                          class="button"
                          aria-label={`Rename ${p.name}`}
                          onClick={() => setRenaming(p.id)}
                        >
                          Rename
                        </button>
                        <button
                          type="button"
                          class="button button-danger-quiet"
                          aria-label={`Remove ${p.name}`}
                          onClick={() => setRemoving(p)}
                        >
                          Remove
                        </button>
                      </span>
                    </li>
                  ),
                )}
              </ul>
            )}
            {status.available && (
              <form
                class="stack"
                onSubmit={run(async (form, element) => {
                  const passkey = await auth.addPasskey(String(form.get("name")));
                  element.reset();
                  setAdded(true);
                  return `Added the passkey ${passkey.name}.`;
                })}
              >
                {enrolmentRequired.value && list.length === 0 && (
                  <p class="note" role="status">
                    This server requires two-step login: add a passkey, or set up an authenticator app, to go on.
                  </p>
                )}
                <label class="field">
                  <span>Name of a new passkey</span>
                  <input name="name" maxLength={100} required placeholder="Work laptop" />
                </label>
                <div class="actions">
                  <button type="submit" class="button" disabled={busy}>
                    {busy ? "Waiting for your browser…" : "Add a passkey"}
                  </button>
                  {onDone && added && (
                    <button type="button" class="button button-primary" onClick={onDone}>
                      Go on to the dashboard
                    </button>
                  )}
                </div>
              </form>
            )}
            {error !== null && <ErrorNote error={error} />}
          </>
        )}
      </Show>
      {removing && (
        <Confirm
          title={`Remove the passkey ${removing.name}?`}
          action="Remove"
          busyLabel="Removing…"
          onClose={() => setRemoving(null)}
          onConfirm={async () => {
            await auth.removePasskey(removing.id);
            announce(`Removed the passkey ${removing.name}.`);
            setRemoving(null);
            reload();
          }}
        >
          <p>It will no longer sign you in here. Your device keeps it until you delete it there.</p>
        </Confirm>
      )}
    </section>
  );
}
