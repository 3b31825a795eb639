import { useState } from "preact/hooks";
import { keys, type FormDetails } from "../calls";
import { dropinSnippet, formSnippet } from "../snippet";
import { href } from "../router";
import { may, onlyWho } from "../team";
import { act, announce, CopyButton, ErrorNote, Loading } from "../ui/bits";
import { useLoad } from "../ui/load";

// A publishable key is made to be public (it can only submit), so the dashboard may keep the one it
// made for a form in this browser, to fill the snippet again later; the server keeps only its hash.
const stored = (formId: string) => `formsvc.publishable.${formId}`;
function remembered(formId: string): { id: string; key: string } | null {
  try {
    const v = JSON.parse(localStorage.getItem(stored(formId)) ?? "null") as { id?: unknown; key?: unknown } | null;
    return v && typeof v.id === "string" && typeof v.key === "string" && v.key.startsWith("fpk_")
      ? { id: v.id, key: v.key }
      : null;
  } catch {
    return null;
  }
}

/** The form's /f/ address, a preview of its hosted page, and a plain HTML form posting there (no key, no script). */
function DropinCard({ form }: { form: FormDetails }) {
  const address = `${location.origin}/f/${form.id}`;
  const snippet = dropinSnippet({
    server: location.origin,
    formId: form.id,
    formType: form.formType,
    fields: form.fields,
    honeypotField: form.spamSettings.honeypotField,
  });
  const settings = <a href={href(["forms", form.id, "settings"])}>Settings</a>;
  return (
    <div class="card stack">
      <h2 id="dropin-title" class="card-title">
        Its address: no key, no code
      </h2>
      {form.publicEndpoint ? (
        <>
          <p>
            A form on your site posts here: change the <code>action</code> of a form copied from Formspree, Basin or
            Getform to this address, or paste the snippet below. Without fields, it takes any fields.
          </p>
          <div class="card-head">
            <code data-testid="dropin-address">{address}</code>
            <CopyButton text={address} label="Copy address" />
          </div>
        </>
      ) : (
        <p class="note note-warning">
          This form does not take submissions at its /f/ address. Turn on "Take submissions at /f/" in {settings}.
        </p>
      )}
      {form.publicEndpoint && form.fields ? (
        <>
          <h3>Its hosted page</h3>
          <p>
            For people without a website: send them to <a href={address}>{address}</a>. As it looks now:
          </p>
          <iframe class="preview" src={`/f/${form.id}`} title={`Preview of the hosted page of ${form.name}`} />
        </>
      ) : (
        form.publicEndpoint && <p class="muted">List its fields in {settings} to get a hosted page at this address.</p>
      )}
      <div class="card-head">
        <h3>HTML, posting to this address</h3>
        <CopyButton text={snippet} label="Copy drop-in snippet" />
      </div>
      <pre class="code" tabIndex={0} aria-label="Drop-in HTML snippet">
        <code data-testid="dropin-snippet">{snippet}</code>
      </pre>
    </div>
  );
}

/** A ready HTML snippet for this form, with a publishable key bound to it. */
export function EmbedTab({ form }: { form: FormDetails }) {
  // The remembered key, if the server still has it (it may have been revoked since).
  const [key, , setKey] = useLoad(async () => {
    const mine = remembered(form.id);
    // Only admins may list keys: others keep the one this browser remembers, and the server still checks it.
    if (!mine || !may(form.teamId, "keys.manage")) return mine;
    const live = await keys.list(form.teamId);
    if (live.some((k) => k.id === mine.id)) return mine;
    localStorage.removeItem(stored(form.id));
    return null;
  }, [form.id]);
  const [redirect, setRedirect] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const apiKey = key.state === "ready" && key.data ? key.data.key : "fpk_…";
  const snippet = formSnippet({
    server: location.origin,
    formId: form.id,
    formType: form.formType,
    fields: form.fields,
    apiKey,
    honeypotField: form.spamSettings.honeypotField,
    redirectUrl: redirect.trim(),
  });
  const redirectOrigin = (() => {
    try {
      return redirect.trim() ? new URL(redirect.trim()).origin : null;
    } catch {
      return "invalid";
    }
  })();
  return (
    <section aria-labelledby="embed-title" class="stack-lg">
      <DropinCard form={form} />
      <div class="card">
        <h2 id="embed-title" class="card-title">
          Put this form on your website
        </h2>
        <p class="muted">Or with a publishable key, through the API's submit endpoint:</p>
        <p>
          Paste this into a page of your site. It works without JavaScript: the browser posts to formsvc, which stores
          the submission
          {redirect.trim()
            ? " and sends the visitor on to your thank-you page."
            : " and answers with a short JSON confirmation (add a thank-you page below to send visitors on instead)."}
        </p>
        <ol class="steps">
          <li>
            <strong>A publishable key for this form.</strong>{" "}
            {key.state === "loading" ? (
              <Loading label="Looking for this form's key…" />
            ) : key.state === "ready" && key.data ? (
              <>
                The snippet carries <code>{key.data.key}</code>, which can only submit to this form.
              </>
            ) : !may(form.teamId, "keys.manage") ? (
              <>
                A page may carry it openly: it can only submit to this form.{" "}
                {onlyWho(form.teamId, "keys.manage", "can create keys")}
              </>
            ) : (
              <>
                A page may carry it openly: it can only submit to this form.{" "}
                <button
                  type="button"
                  class="button button-primary"
                  disabled={busy}
                  onClick={act(async () => {
                    setBusy(true);
                    setError(null);
                    try {
                      const created = await keys.create({
                        name: `${form.name} (website)`,
                        kind: "publishable",
                        forms: [form.id],
                        teamId: form.teamId,
                      });
                      localStorage.setItem(stored(form.id), JSON.stringify({ id: created.id, key: created.key }));
                      setKey({ id: created.id, key: created.key });
                      announce("Publishable key created and put in the snippet");
                    } catch (err) {
                      setError(err);
                    } finally {
                      setBusy(false);
                    }
                  })}
                >
                  {busy ? "Creating…" : "Create a publishable key"}
                </button>
              </>
            )}
          </li>
          <li>
            <label class="field">
              <span>
                <strong>Thank-you page</strong> <span class="muted">(optional)</span>
              </span>
              <input
                type="url"
                value={redirect}
                onInput={(e) => setRedirect(e.currentTarget.value)}
                placeholder="https://www.example.com/thanks.html"
              />
            </label>
            {redirectOrigin === "invalid" && <p class="field-error">Write the whole address, starting with https://</p>}
            {redirectOrigin &&
              redirectOrigin !== "invalid" &&
              form.allowedOrigins.length > 0 &&
              !form.allowedOrigins.includes(redirectOrigin) && (
                <p class="field-error">
                  {redirectOrigin} is not among this form's allowed origins, so formsvc would refuse the redirect. Add
                  it in Settings.
                </p>
              )}
          </li>
          <li>
            <strong>Which sites may post.</strong>{" "}
            {form.allowedOrigins.length ? (
              <>Only pages on {form.allowedOrigins.join(", ")}.</>
            ) : (
              <>
                Any site, for now. Name your site's origin in{" "}
                <a href={href(["forms", form.id, "settings"])}>Settings</a> so other sites cannot post to this form.
              </>
            )}
          </li>
        </ol>
        {error !== null && <ErrorNote error={error} />}
        {form.spamSettings.challenge !== "none" && (
          <p class="note note-warning">
            This form asks for a {form.spamSettings.challenge === "pow" ? "proof of work" : "CAPTCHA"}, which a form
            without JavaScript cannot answer: its posts would be refused. Set the challenge to None in Settings, or use
            the fetch() version in the guide (docs/guide.md, "Put a form on your website").
          </p>
        )}
      </div>
      <div class="card">
        <div class="card-head">
          <h3>HTML</h3>
          <CopyButton text={snippet} label="Copy snippet" />
        </div>
        <pre class="code" tabIndex={0} aria-label="HTML snippet">
          <code data-testid="snippet">{snippet}</code>
        </pre>
      </div>
    </section>
  );
}
