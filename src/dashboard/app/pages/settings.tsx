import { useState } from "preact/hooks";
import { offers } from "../api";
import { forms, type FormDetails } from "../calls";
import { FORM_TYPES } from "../form-types";
import { go } from "../router";
import { announce, Confirm, ErrorNote } from "../ui/bits";
import { WebhooksSection } from "./webhooks";

const CHALLENGES = [
  { value: "none", label: "None" },
  { value: "pow", label: "Proof of work (ALTCHA widget, needs JavaScript)" },
  { value: "turnstile", label: "Cloudflare Turnstile" },
  { value: "hcaptcha", label: "hCaptcha" },
] as const;

/** An origin as the browser writes it in `Origin`, or null: what allowed origins must hold. */
function origin(text: string): string | null {
  try {
    const u = new URL(text);
    return (u.protocol === "http:" || u.protocol === "https:") && u.origin !== "null" ? u.origin : null;
  } catch {
    return null;
  }
}

/**
 * The form's settings as one form: general, notifications, who may post, spam defences, and the
 * settings newer servers have (autoresponse, double opt-in, retention) when this one has them. Only
 * what changed is sent.
 */
export function SettingsTab({ form, onSaved }: { form: FormDetails; onSaved: (form: FormDetails) => void }) {
  const canEdit = offers("PATCH /forms/{formId}");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [originError, setOriginError] = useState<string | null>(null);
  const [deleting, setDeleting] = useState(false);
  const [challenge, setChallenge] = useState(form.spamSettings.challenge);
  const [emailOn, setEmailOn] = useState(form.emailSettings.enabled);
  const [autoOn, setAutoOn] = useState(form.autoresponse?.enabled ?? false);
  const [keepForever, setKeepForever] = useState(form.retentionDays == null);
  const [honeypotOn, setHoneypotOn] = useState(form.spamSettings.honeypotField !== null);
  const [optIn, setOptIn] = useState(form.doubleOptIn ?? false);

  const save = async (e: SubmitEvent) => {
    e.preventDefault();
    const el = e.currentTarget as HTMLFormElement;
    const data = new FormData(el);
    // A field that is not on the page, or disabled (its switch is off), keeps the form's value.
    const field = (k: string) => {
      const input = el.elements.namedItem(k) as HTMLInputElement | null;
      return input && !input.disabled ? input : null;
    };
    const str = (k: string, kept = "") => (field(k) ? String(data.get(k) ?? "").trim() : kept);
    const on = (k: string, kept = false) => (field(k) ? field(k)!.checked : kept);
    const origins = str("allowedOrigins").split(/[\s,]+/).filter(Boolean);
    const bad = origins.filter((o) => origin(o) === null);
    if (bad.length) {
      setOriginError(`Not an origin: ${bad.join(", ")}. Write each as https://www.example.com (scheme, host and port, no path).`);
      (e.currentTarget as HTMLFormElement).querySelector<HTMLElement>("[name=allowedOrigins]")?.focus();
      return;
    }
    setOriginError(null);
    const next: Record<string, unknown> = {
      name: str("name"),
      description: str("description"),
      formType: str("formType"),
      emailSettings: { enabled: on("emailEnabled"), developerNotificationsEnabled: on("developerNotifications", form.emailSettings.developerNotificationsEnabled) },
      allowedOrigins: origins.map((o) => origin(o)!),
      spamSettings: { honeypotField: on("honeypotOn") ? str("honeypotField", form.spamSettings.honeypotField ?? "") || "_gotcha" : null, challenge: str("challenge") },
    };
    if (form.usersJoinedSettings && str("formType") === "waitlist") next.usersJoinedSettings = { enabled: on("usersJoined", form.usersJoinedSettings.enabled) };
    if (form.autoresponse) {
      const a = form.autoresponse;
      next.autoresponse = { enabled: on("autoresponse", a.enabled), subject: str("autoresponseSubject", a.subject), text: str("autoresponseText", a.text) };
    }
    if (form.doubleOptIn !== undefined) next.doubleOptIn = on("doubleOptIn", form.doubleOptIn);
    if (form.confirmRedirectUrl !== undefined) next.confirmRedirectUrl = str("confirmRedirectUrl", form.confirmRedirectUrl ?? "") || null;
    if (form.retentionDays !== undefined) next.retentionDays = data.get("retention") === "forever" ? null : Number(str("retentionDays", String(form.retentionDays ?? "")));
    const changed = Object.fromEntries(Object.entries(next).filter(([k, v]) => JSON.stringify(v) !== JSON.stringify(current(form, k))));
    if (Object.keys(changed).length === 0) return announce("Nothing to save: no setting changed");
    setBusy(true);
    setError(null);
    try {
      onSaved(await forms.update(form.id, changed));
      announce("Settings saved");
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      {!canEdit && (
        <p class="note">
          This server does not change forms over the API; change them on its command line: <code>formsvc forms update {form.id} …</code>
        </p>
      )}
      <form class="settings" onSubmit={save} aria-label="Form settings">
        <fieldset class="card" disabled={!canEdit}>
          <legend>General</legend>
          <label class="field">
            <span>Name</span>
            <input name="name" defaultValue={form.name} required maxLength={200} />
          </label>
          <label class="field">
            <span>Description</span>
            <textarea name="description" rows={2} defaultValue={form.description} />
          </label>
          <label class="field">
            <span>Type</span>
            <select name="formType" defaultValue={form.formType}>
              {FORM_TYPES.map((t) => (
                <option key={t.value} value={t.value}>
                  {t.label}
                </option>
              ))}
            </select>
          </label>
          {form.usersJoinedSettings && (
            <label class="check">
              <input type="checkbox" name="usersJoined" defaultChecked={form.usersJoinedSettings.enabled} />
              <span>
                Count who joined <span class="muted block small">The public counter of distinct joiners (GET …/users-joined).</span>
              </span>
            </label>
          )}
        </fieldset>

        <fieldset class="card" disabled={!canEdit}>
          <legend>Email</legend>
          <label class="check">
            <input type="checkbox" name="emailEnabled" checked={emailOn} onChange={(e) => setEmailOn(e.currentTarget.checked)} />
            <span>
              Email for this form <span class="muted block small">The master switch for every email this form sends.</span>
            </span>
          </label>
          <label class="check">
            <input type="checkbox" name="developerNotifications" defaultChecked={form.emailSettings.developerNotificationsEnabled} disabled={!emailOn} />
            <span>
              Email me each submission <span class="muted block small">One message per submission, with Reply-To set to the sender.</span>
            </span>
          </label>
          {form.autoresponse && (
            <>
              <label class="check">
                <input type="checkbox" name="autoresponse" checked={autoOn} onChange={(e) => setAutoOn(e.currentTarget.checked)} disabled={!emailOn} />
                <span>
                  Answer each sender <span class="muted block small">An automatic reply to the address in the submission, at most once an hour per address.</span>
                </span>
              </label>
              {autoOn && emailOn && (
                <div class="indent stack">
                  <label class="field">
                    <span>Subject</span>
                    <input name="autoresponseSubject" defaultValue={form.autoresponse.subject} required />
                  </label>
                  <label class="field">
                    <span>Text</span>
                    <textarea name="autoresponseText" rows={5} defaultValue={form.autoresponse.text} required aria-describedby="autoresponse-help" />
                    <span id="autoresponse-help" class="muted small">
                      {"{{name}}"} and the like are replaced by the submission's fields.
                    </span>
                  </label>
                </div>
              )}
            </>
          )}
          {form.doubleOptIn !== undefined && form.formType === "waitlist" && (
            <>
              <label class="check">
                <input type="checkbox" name="doubleOptIn" checked={optIn} onChange={(e) => setOptIn(e.currentTarget.checked)} />
                <span>
                  Double opt-in <span class="muted block small">Each new joiner confirms by a link in an email; only confirmed joiners count.</span>
                </span>
              </label>
              {optIn && form.confirmRedirectUrl !== undefined && (
                <label class="field indent">
                  <span>
                    After confirming, go to <span class="muted">(optional; else formsvc's own page)</span>
                  </span>
                  <input name="confirmRedirectUrl" type="url" defaultValue={form.confirmRedirectUrl ?? ""} placeholder="https://www.example.com/welcome" />
                </label>
              )}
            </>
          )}
        </fieldset>

        <fieldset class="card" disabled={!canEdit}>
          <legend>Who may post</legend>
          <label class="field">
            <span>Allowed origins</span>
            <textarea
              name="allowedOrigins"
              rows={3}
              defaultValue={form.allowedOrigins.join("\n")}
              placeholder="https://www.example.com"
              aria-describedby="origins-help"
              aria-invalid={originError ? "true" : undefined}
            />
            <span id="origins-help" class="muted small">
              One per line. With none, a page on any site may post with a publishable key.
            </span>
            {originError && (
              <span class="field-error" role="alert">
                {originError}
              </span>
            )}
          </label>
        </fieldset>

        <fieldset class="card" disabled={!canEdit}>
          <legend>Spam defences</legend>
          <label class="check">
            <input type="checkbox" name="honeypotOn" checked={honeypotOn} onChange={(e) => setHoneypotOn(e.currentTarget.checked)} />
            <span>
              Honeypot field <span class="muted block small">A field people never see; a submission that fills it goes to spam.</span>
            </span>
          </label>
          {honeypotOn && (
            <label class="field indent">
              <span>Field name</span>
              <input name="honeypotField" defaultValue={form.spamSettings.honeypotField ?? "_gotcha"} required pattern="[A-Za-z0-9_\-]+" />
            </label>
          )}
          <label class="field">
            <span>Challenge</span>
            <select name="challenge" value={challenge} onChange={(e) => setChallenge(e.currentTarget.value as typeof challenge)}>
              {CHALLENGES.map((c) => (
                <option key={c.value} value={c.value}>
                  {c.label}
                </option>
              ))}
            </select>
          </label>
          {challenge !== "none" && <p class="muted small">A form without JavaScript cannot answer a challenge: use the snippet with the widget (Embed).</p>}
        </fieldset>

        {form.retentionDays !== undefined && (
          <fieldset class="card" disabled={!canEdit}>
            <legend>Keeping submissions</legend>
            <label class="check">
              <input type="radio" name="retention" value="forever" checked={keepForever} onChange={() => setKeepForever(true)} />
              <span>Keep them until I delete them</span>
            </label>
            <label class="check check-inline">
              <input type="radio" name="retention" value="days" checked={!keepForever} onChange={() => setKeepForever(false)} />
              <span>Delete them after</span>
              <input class="input-small" name="retentionDays" type="number" min={1} max={36500} required={!keepForever} disabled={keepForever} defaultValue={String(form.retentionDays ?? 365)} aria-label="Days to keep" />
              <span>days</span>
            </label>
          </fieldset>
        )}

        {error !== null && <ErrorNote error={error} />}
        {canEdit && (
          <div class="actions actions-save">
            <button type="submit" class="button button-primary" disabled={busy}>
              {busy ? "Saving…" : "Save settings"}
            </button>
          </div>
        )}
      </form>

      {offers("GET /forms/{formId}/webhooks") && <WebhooksSection form={form} />}

      {offers("DELETE /forms/{formId}") && (
        <section class="card danger" aria-labelledby="danger-title">
          <h3 id="danger-title">Delete this form</h3>
          <p class="muted">The form and all its submissions are removed. Pages that post to it get an error from then on.</p>
          <button type="button" class="button button-danger" onClick={() => setDeleting(true)}>
            Delete form…
          </button>
        </section>
      )}
      {deleting && (
        <Confirm
          title={`Delete ${form.name}?`}
          action="Delete form and submissions"
          busyLabel="Deleting…"
          onClose={() => setDeleting(false)}
          onConfirm={async () => {
            await forms.remove(form.id);
            announce(`${form.name} deleted`);
            go("#/forms", true);
          }}
        >
          <p>
            {form.name} and its {form.submissionCount} submissions are deleted for good.
          </p>
        </Confirm>
      )}
    </>
  );
}

/** The form's current value of a setting, in the shape the save sends (for "did it change"). */
function current(form: FormDetails, key: string): unknown {
  if (key === "usersJoinedSettings") return { enabled: form.usersJoinedSettings?.enabled };
  const value = (form as unknown as Record<string, unknown>)[key];
  // Key order as the save writes it, so equal settings compare equal.
  if (key === "emailSettings") return { enabled: form.emailSettings.enabled, developerNotificationsEnabled: form.emailSettings.developerNotificationsEnabled };
  if (key === "spamSettings") return { honeypotField: form.spamSettings.honeypotField, challenge: form.spamSettings.challenge };
  if (key === "autoresponse" && form.autoresponse) return { enabled: form.autoresponse.enabled, subject: form.autoresponse.subject, text: form.autoresponse.text };
  return value;
}
