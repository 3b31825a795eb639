import { useState } from "preact/hooks";
import { auth } from "../calls";
import { me } from "../session";
import { PageTitle } from "../shell";
import { act, announce, ErrorNote } from "../ui/bits";

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
    </>
  );
}
