import { useState } from "preact/hooks";
import type { FormUpdateRequest } from "../../../client/index";
import { forms, type FormDetails } from "../calls";
import { go } from "../router";
import { me } from "../session";
import { setAt, valueAt } from "../../../lib/dotted-path";
import { CONTROLS, SECTIONS, type Control, type Draft, type FilesDraft } from "../setting-controls";
import { act, announce, Confirm, ErrorNote, NoSmtpNote } from "../ui/bits";
import { cleanFields, draftFields, FieldEditor, type DraftField } from "./field-editor";
import { NotificationPreview } from "./notification-preview";
import { WebhooksSection } from "./webhooks";

type Key = keyof typeof CONTROLS;
const KEYS = Object.keys(CONTROLS) as Key[];

const draftOf = (form: FormDetails): Draft =>
  Object.fromEntries(
    KEYS.map((k) => {
      const c = CONTROLS[k];
      if (c.kind === "fields") return [k, draftFields(form.fields)];
      return [k, c.kind === "lines" && c.linesOf ? c.linesOf(valueAt(form, k)) : valueAt(form, k)];
    }),
  ) as Draft;

// A list is edited as text (one item a line, kept as typed until the save), and sent as a list.
// Phrases (blocked words) hold spaces: one a line, split on line ends only.
const lines = (v: unknown, phrases = false): string[] =>
  typeof v === "string"
    ? v
        .split(phrases ? /\r?\n/ : /[\s,]+/)
        .map((l) => l.trim())
        .filter(Boolean)
    : (v as string[]);
const valueOf = (draft: Draft, k: Key): unknown => {
  const c = CONTROLS[k];
  return c.kind === "lines"
    ? lines(draft[k], c.phrases)
    : c.kind === "fields"
      ? cleanFields(draft[k] as DraftField[])
      : draft[k];
};
// A time as <input type="datetime-local"> shows it (the browser's local time), and back as ISO 8601.
const localTime = (iso: unknown): string => {
  if (typeof iso !== "string") return "";
  const d = new Date(iso);
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};
const isoTime = (local: string): string | null => (local ? new Date(local).toISOString() : null);

/**
 * The form's settings as one form, a control per setting of the server's settings table
 * (setting-controls.ts), in sections. Only what changed is sent.
 */
export function SettingsTab({ form, onSaved }: { form: FormDetails; onSaved: (form: FormDetails) => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [problems, setProblems] = useState<Partial<Record<Key, string>>>({});
  const [deleting, setDeleting] = useState(false);
  const [draft, setDraft] = useState<Draft>(() => draftOf(form));
  const set = (k: Key, v: unknown) => setDraft((d) => ({ ...d, [k]: v }));

  const save = async (e: SubmitEvent) => {
    e.preventDefault();
    const found: Partial<Record<Key, string>> = {};
    for (const k of KEYS) {
      const c = CONTROLS[k];
      if (c.kind !== "lines" || !c.check) continue;
      const bad = lines(draft[k], c.phrases).filter((line) => !c.check!(line));
      if (bad.length) found[k] = c.problem ? c.problem(bad) : `Not valid: ${bad.join(", ")}`;
    }
    setProblems(found);
    const first = Object.keys(found)[0];
    if (first) return (e.currentTarget as HTMLFormElement).querySelector<HTMLElement>(`[name="${first}"]`)?.focus();
    const saved = draftOf(form);
    const body: Record<string, unknown> = {};
    for (const k of KEYS)
      if (JSON.stringify(valueOf(draft, k)) !== JSON.stringify(valueOf(saved, k))) setAt(body, k, valueOf(draft, k));
    if (Object.keys(body).length === 0) return announce("Nothing to save: no setting changed");
    setBusy(true);
    setError(null);
    try {
      const updated = await forms.update(form.id, body as FormUpdateRequest);
      setDraft(draftOf(updated));
      onSaved(updated);
      announce("Settings saved");
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <form class="settings" onSubmit={act(save)} aria-label="Form settings">
        {SECTIONS.map((section) => {
          const keys = KEYS.filter((k) => CONTROLS[k].section === section && (CONTROLS[k].shownWhen?.(draft) ?? true));
          return (
            keys.length > 0 && (
              <fieldset class="card" key={section}>
                <legend>{section}</legend>
                {section === "Email" && me.value?.smtpConfigured === false && (
                  <NoSmtpNote what="owner notifications, recipient confirmations and autoresponses" />
                )}
                {keys.map((k) => (
                  <SettingControl
                    key={k}
                    name={k}
                    control={CONTROLS[k]}
                    value={draft[k]}
                    disabled={!(CONTROLS[k].enabledWhen?.(draft) ?? true)}
                    problem={problems[k]}
                    onChange={(v) => set(k, v)}
                  />
                ))}
                {section === "Email" && CONTROLS.notificationTemplate.enabledWhen?.(draft) !== false && (
                  <NotificationPreview
                    formId={form.id}
                    template={draft.notificationTemplate as { subject: string; text: string } | null}
                  />
                )}
              </fieldset>
            )
          );
        })}
        {error !== null && <ErrorNote error={error} />}
        <div class="actions actions-save">
          <button type="submit" class="button button-primary" disabled={busy}>
            {busy ? "Saving…" : "Save settings"}
          </button>
        </div>
      </form>

      <WebhooksSection form={form} />

      <section class="card danger" aria-labelledby="danger-title">
        <h3 id="danger-title">Delete this form</h3>
        <p class="muted">
          The form and all its submissions are removed. Pages that post to it get an error from then on.
        </p>
        <button type="button" class="button button-danger" onClick={() => setDeleting(true)}>
          Delete form…
        </button>
      </section>
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

/** One setting's control, labelled, with its help text and the problem found with it. */
function SettingControl({
  name,
  control: c,
  value,
  disabled,
  problem,
  onChange,
}: {
  name: string;
  control: Control;
  value: unknown;
  disabled: boolean;
  problem?: string;
  onChange: (v: unknown) => void;
}) {
  const helpId = c.help ? `${name}-help` : undefined;
  const help = c.help && (
    <span id={helpId} class="muted block small">
      {c.help}
    </span>
  );
  const text = (e: Event) => (e.currentTarget as HTMLInputElement).value;
  const problemNote = problem && (
    <span class="field-error" role="alert">
      {problem}
    </span>
  );
  /** The labelled checkbox that turns a setting on (to what `toValue` makes of it) or off. */
  const onSwitch = (on: boolean, toValue: (checked: boolean) => unknown, switchName = `${name}.on`) => (
    <label class="check">
      <input
        type="checkbox"
        name={switchName}
        checked={on}
        disabled={disabled}
        aria-describedby={helpId}
        onChange={(e) => onChange(toValue(e.currentTarget.checked))}
      />
      <span>
        {c.label} {help}
      </span>
    </label>
  );
  switch (c.kind) {
    case "fields":
      return (
        <>
          {help}
          <FieldEditor value={value as DraftField[]} onChange={onChange} problem={problem} />
        </>
      );
    case "checkbox":
    case "optional-text": {
      const on = c.kind === "checkbox" ? value === true : value !== null;
      return (
        <>
          {c.kind === "checkbox"
            ? onSwitch(on, (checked) => checked, name)
            : onSwitch(on, (checked) => (checked ? c.fallback : null))}
          {c.kind === "optional-text" && on && (
            <label class="field indent">
              <span>Field name</span>
              <input
                name={name}
                value={String(value)}
                required
                pattern={c.pattern}
                onInput={(e) => onChange(text(e))}
              />
            </label>
          )}
        </>
      );
    }
    case "template": {
      const tpl = value as { subject: string; text: string } | null;
      return (
        <>
          {onSwitch(tpl !== null, (checked) => (checked ? c.fallback : null))}
          {tpl && (
            <>
              <label class="field indent">
                <span>Subject</span>
                <input
                  name={`${name}.subject`}
                  value={tpl.subject}
                  maxLength={10_000}
                  required
                  onInput={(e) => onChange({ ...tpl, subject: text(e) })}
                />
              </label>
              <label class="field indent">
                <span>Text</span>
                <textarea
                  name={`${name}.text`}
                  rows={5}
                  maxLength={10_000}
                  required
                  value={tpl.text}
                  onInput={(e) => onChange({ ...tpl, text: text(e) })}
                />
              </label>
            </>
          )}
          {problemNote}
        </>
      );
    }
    case "files": {
      const files = value as FilesDraft | null;
      const mb = (bytes: number) => String(Math.round((bytes / 1048576) * 100) / 100);
      const bytes = (e: Event) => Math.round(Number(text(e)) * 1048576);
      return (
        <>
          {onSwitch(files !== null, (checked) => (checked ? c.fallback : null))}
          {files && (
            <>
              <label class="field indent">
                <span>At most this many files per submission</span>
                <input
                  class="input-small"
                  name={`${name}.maxFiles`}
                  type="number"
                  min={1}
                  max={100}
                  required
                  value={String(files.maxFiles)}
                  onInput={(e) => onChange({ ...files, maxFiles: Number(text(e)) })}
                />
              </label>
              <label class="field indent">
                <span>Largest file (MB)</span>
                <input
                  class="input-small"
                  name={`${name}.maxFileBytes`}
                  type="number"
                  min={0.01}
                  step="any"
                  required
                  value={mb(files.maxFileBytes)}
                  onInput={(e) => onChange({ ...files, maxFileBytes: bytes(e) })}
                />
              </label>
              <label class="field indent">
                <span>All files of a submission together (MB)</span>
                <input
                  class="input-small"
                  name={`${name}.maxTotalBytes`}
                  type="number"
                  min={0.01}
                  step="any"
                  required
                  value={mb(files.maxTotalBytes)}
                  onInput={(e) => onChange({ ...files, maxTotalBytes: bytes(e) })}
                />
              </label>
              <label class="field indent">
                <span>Types allowed, one a line (image/* for any image)</span>
                <textarea
                  name={`${name}.types`}
                  rows={5}
                  required
                  value={files.types.join("\n")}
                  onInput={(e) =>
                    onChange({
                      ...files,
                      types: text(e)
                        .split("\n")
                        .map((l) => l.trim())
                        .filter(Boolean),
                    })
                  }
                />
              </label>
            </>
          )}
          {problemNote}
        </>
      );
    }
    case "days":
      return (
        <>
          <label class="check">
            <input
              type="radio"
              name={`${name}.mode`}
              value="forever"
              checked={value === null}
              onChange={() => onChange(null)}
            />
            <span>Keep them until I delete them</span>
          </label>
          <label class="check check-inline">
            <input
              type="radio"
              name={`${name}.mode`}
              value="days"
              checked={value !== null}
              onChange={() => onChange(365)}
            />
            <span>{c.label}</span>
            <input
              class="input-small"
              name={name}
              type="number"
              min={1}
              max={c.max}
              required={value !== null}
              disabled={value === null}
              value={value === null ? "" : String(value)}
              aria-label="Days to keep"
              onInput={(e) => onChange(Number(text(e)))}
            />
            <span>days</span>
          </label>
        </>
      );
    default:
      return (
        <label class={c.kind === "url" && c.shownWhen ? "field indent" : "field"}>
          <span>{c.label}</span>
          {c.kind === "select" ? (
            <select
              name={name}
              value={String(value)}
              disabled={disabled}
              onChange={(e) => onChange(e.currentTarget.value)}
            >
              {c.options.map((o) => (
                <option key={o.value} value={o.value}>
                  {o.label}
                </option>
              ))}
            </select>
          ) : c.kind === "textarea" ? (
            <textarea
              name={name}
              rows={name === "description" ? 2 : 5}
              maxLength={c.maxLength}
              required={c.required}
              value={String(value ?? "")}
              disabled={disabled}
              aria-describedby={helpId}
              onInput={(e) => onChange(text(e))}
            />
          ) : c.kind === "lines" ? (
            <textarea
              name={name}
              rows={3}
              value={typeof value === "string" ? value : (value as string[]).join("\n")}
              placeholder={c.placeholder}
              aria-describedby={helpId}
              aria-invalid={problem ? "true" : undefined}
              onInput={(e) => onChange(text(e))}
            />
          ) : c.kind === "time" ? (
            <input
              name={name}
              type="datetime-local"
              value={localTime(value)}
              aria-describedby={helpId}
              onInput={(e) => onChange(isoTime(text(e)))}
            />
          ) : c.kind === "limit" ? (
            <input
              class="input-small"
              name={name}
              type="number"
              min={1}
              step={1}
              value={value === null ? "" : String(value)}
              aria-describedby={helpId}
              onInput={(e) => onChange(text(e) === "" ? null : Number(text(e)))}
            />
          ) : c.kind === "number" ? (
            <input
              class="input-small"
              name={name}
              type="number"
              min={c.min}
              max={c.max}
              step={c.step}
              required={!c.optional}
              value={value === null ? "" : String(value)}
              aria-describedby={helpId}
              onInput={(e) => onChange(text(e) === "" ? (c.optional ? null : value) : Number(text(e)))}
            />
          ) : c.kind === "optional-name" ? (
            <input
              name={name}
              value={String(value ?? "")}
              maxLength={c.maxLength}
              placeholder={c.placeholder}
              aria-describedby={helpId}
              onInput={(e) => onChange(text(e).trim() || null)}
            />
          ) : c.kind === "url" ? (
            <input
              name={name}
              type="url"
              value={String(value ?? "")}
              placeholder={c.placeholder}
              aria-describedby={helpId}
              onInput={(e) => onChange(text(e).trim() || null)}
            />
          ) : (
            <input
              name={name}
              value={String(value ?? "")}
              maxLength={c.maxLength}
              required={c.required}
              disabled={disabled}
              onInput={(e) => onChange(text(e))}
            />
          )}
          {help}
          {problemNote}
        </label>
      );
  }
}
