import { Fragment } from "preact";
import { useEffect, useState } from "preact/hooks";
import type { FormUpdateRequest } from "../../../client/index";
import { FormsvcError } from "../api";
import { forms, type FormDetails } from "../calls";
import { SettingControl } from "../controls";
import { go, guardLeaving, href, route } from "../router";
import { me } from "../session";
import { may, onlyWho } from "../team";
import { setAt, valueAt } from "../../../lib/dotted-path";
import { CONTROLS, SECTIONS, type Draft } from "../setting-controls";
import { act, announce, Confirm, ErrorNote, NoSmtpNote } from "../ui/bits";
import { cleanFields, draftFields, type DraftField } from "./field-editor";
import { MemberNotificationCard } from "./member-notification";
import { MoveFormSection } from "./move-form";
import { NotificationPreview } from "./notification-preview";
import { WebhooksSection } from "./webhooks";

type Key = keyof typeof CONTROLS;
type Section = (typeof SECTIONS)[number];
const KEYS = Object.keys(CONTROLS) as Key[];
const KEYS_OF = (section: Section) => KEYS.filter((k) => CONTROLS[k].section === section);
/** A section's id in the page and in the address (`?section=spam-defences`). */
const slug = (section: Section) => section.toLowerCase().replaceAll(" ", "-");

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
const changed = (draft: Draft, saved: Draft, k: Key) =>
  JSON.stringify(valueOf(draft, k)) !== JSON.stringify(valueOf(saved, k));

type Problems = Partial<Record<Key, string>>;

/** The lines of list settings that are not what the list holds, said per setting; nothing is sent while any is. */
function linesProblems(draft: Draft, keys: Key[]): Problems {
  const found: Problems = {};
  for (const k of keys) {
    const c = CONTROLS[k];
    if (c.kind !== "lines" || !c.check) continue;
    const bad = lines(draft[k], c.phrases).filter((line) => !c.check!(line));
    if (bad.length) found[k] = c.problem ? c.problem(bad) : `Not valid: ${bad.join(", ")}`;
  }
  return found;
}

/**
 * A 400's problems, each put by the setting it starts with ("successUrl: …", "files.maxFileBytes: …"),
 * and the rest, which concern the section as a whole (a rule between two settings).
 */
function placed(message: string, keys: Key[]): { problems: Problems; rest: string[] } {
  const problems: Problems = {};
  const rest: string[] = [];
  for (const part of message.split("; ")) {
    const named = /^(?:body )?([\w.]+)/.exec(part)?.[1] ?? "";
    // A problem inside a setting ("files.maxFileBytes", "fields.0.name") is the setting's; the longest key wins.
    const k = keys.filter((key) => named === key || named.startsWith(`${key}.`)).sort((a, b) => b.length - a.length)[0];
    if (k) problems[k] = problems[k] ? `${problems[k]}; ${part}` : part;
    else rest.push(part);
  }
  return { problems, rest };
}

/**
 * The form's settings, a control per setting of the server's settings table (setting-controls.ts),
 * in sections, each saved on its own (only what changed in it is sent). A section with unsaved
 * edits says so, and leaving the page with any asks first.
 */
export function SettingsTab({ form, onSaved }: { form: FormDetails; onSaved: (form: FormDetails) => void }) {
  const [deleting, setDeleting] = useState(false);
  const [draft, setDraft] = useState<Draft>(() => draftOf(form));
  const saved = draftOf(form);
  const unsaved = SECTIONS.filter((s) => KEYS_OF(s).some((k) => changed(draft, saved, k)));
  const asked = route.value.query.get("section");
  const editable = may(form.teamId, "forms.edit");

  useEffect(() => {
    if (asked) document.getElementById(`settings-${asked}`)?.scrollIntoView();
  }, [asked]);

  useEffect(() => {
    if (unsaved.length === 0) return;
    const warning = `Unsaved changes in ${unsaved.join(", ")} will be lost. Leave this page?`;
    const stay = (e: BeforeUnloadEvent) => e.preventDefault();
    addEventListener("beforeunload", stay);
    // A section link keeps the page; another tab or page would drop the edits.
    const unguard = guardLeaving((next) => (next.parts.join("/") === `forms/${form.id}/settings` ? null : warning));
    return () => {
      removeEventListener("beforeunload", stay);
      unguard();
    };
  }, [unsaved.join(), form.id]);

  const sectionSaved = (section: Section, updated: FormDetails) => {
    // This section, and every setting not being edited, take the saved values; edits elsewhere stay.
    const fresh = draftOf(updated);
    setDraft(
      (d) =>
        Object.fromEntries(
          KEYS.map((k) => [k, CONTROLS[k].section === section || !changed(d, saved, k) ? fresh[k] : d[k]]),
        ) as Draft,
    );
    onSaved(updated);
  };

  return (
    <>
      <nav class="section-nav" aria-label="Settings sections">
        {SECTIONS.map((s) => (
          <a
            key={s}
            href={href(["forms", form.id, "settings"], { section: slug(s) })}
            onClick={() => document.getElementById(`settings-${slug(s)}`)?.scrollIntoView()}
          >
            {s}
            {unsaved.includes(s) && (
              <span class="unsaved-dot" role="img" aria-label="(unsaved changes)" title="Unsaved changes" />
            )}
          </a>
        ))}
      </nav>
      {!editable && (
        <p class="note" role="note">
          {onlyWho(form.teamId, "forms.edit", "can change a form's settings")}
        </p>
      )}
      <div class="settings">
        {SECTIONS.map((s) => (
          <Fragment key={s}>
            <SettingsSection
              section={s}
              form={form}
              draft={draft}
              saved={saved}
              unsaved={unsaved.includes(s)}
              editable={editable}
              set={(k, v) => setDraft((d) => ({ ...d, [k]: v }))}
              onSaved={(updated) => sectionSaved(s, updated)}
            />
            {s === "Email" && <MemberNotificationCard form={form} />}
          </Fragment>
        ))}
      </div>

      {may(form.teamId, "webhooks.manage") ? (
        <WebhooksSection form={form} />
      ) : (
        <section class="card" aria-labelledby="webhooks-title">
          <h3 id="webhooks-title">Webhooks</h3>
          <p class="muted small">{onlyWho(form.teamId, "webhooks.manage", "can see and change webhooks")}</p>
        </section>
      )}

      <MoveFormSection form={form} onMoved={onSaved} />
      {may(form.teamId, "forms.delete") && (
        <section class="card danger" aria-labelledby="danger-title">
          <h3 id="danger-title">Delete this form</h3>
          <p class="muted">
            The form and all its submissions are removed. Pages that post to it get an error from then on.
          </p>
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

const sentence = (parts: string[]) => {
  const text = parts.join("; ");
  return text.charAt(0).toUpperCase() + text.slice(1) + (/[.!?]$/.test(text) ? "" : ".");
};

/** One section: its controls, and a Save that sends only its settings that changed, with its own outcome. */
function SettingsSection({
  section,
  form,
  draft,
  saved,
  unsaved,
  editable,
  set,
  onSaved,
}: {
  section: Section;
  form: FormDetails;
  draft: Draft;
  saved: Draft;
  unsaved: boolean;
  /** False for a role that may read the settings but not change them: the controls show, disabled. */
  editable: boolean;
  set: (k: Key, v: unknown) => void;
  onSaved: (form: FormDetails) => void;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [problems, setProblems] = useState<Problems>({});
  const [done, setDone] = useState(false);
  const keys = KEYS_OF(section);
  const shown = keys.filter((k) => CONTROLS[k].shownWhen?.(draft) ?? true);
  const id = slug(section);

  const save = async (e: SubmitEvent) => {
    e.preventDefault();
    const formEl = e.currentTarget as HTMLFormElement;
    const focusFirst = (found: Problems) => {
      const first = Object.keys(found)[0];
      if (first) formEl.querySelector<HTMLElement>(`[name="${first}"], [name^="${first}."]`)?.focus();
    };
    const found = linesProblems(draft, keys);
    setProblems(found);
    setError(null);
    setDone(false);
    if (Object.keys(found).length) return focusFirst(found);
    const body: Record<string, unknown> = {};
    for (const k of keys) if (changed(draft, saved, k)) setAt(body, k, valueOf(draft, k));
    if (Object.keys(body).length === 0) return;
    setBusy(true);
    try {
      const updated = await forms.update(form.id, body as FormUpdateRequest);
      onSaved(updated);
      setDone(true);
    } catch (err) {
      // A refusal names the setting it concerns: said by that control, the rest by the Save button.
      if (err instanceof FormsvcError && err.status === 400) {
        // A hidden control cannot show its problem: that one is said by the section.
        const { problems: at, rest } = placed(err.message, shown);
        setProblems(at);
        if (rest.length) setError(new Error(sentence(rest)));
        focusFirst(at);
      } else setError(err);
    } finally {
      setBusy(false);
    }
  };

  if (shown.length === 0) return null;
  return (
    <form id={`settings-${id}`} class="settings-section" onSubmit={act(save)} aria-labelledby={`settings-${id}-title`}>
      <fieldset class="card" data-unsaved={unsaved || undefined} disabled={!editable}>
        <legend id={`settings-${id}-title`}>
          {section}
          {unsaved && <span class="badge badge-unsaved">Unsaved changes</span>}
        </legend>
        {section === "Email" && me.value?.smtpConfigured === false && (
          <NoSmtpNote what="owner notifications, recipient confirmations and autoresponses" />
        )}
        {shown.map((k) => (
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
        {error !== null && <ErrorNote error={error} />}
        {editable && (
          <div class="actions actions-save">
            <button type="submit" class="button button-primary" disabled={busy || !unsaved}>
              {busy ? "Saving…" : "Save"}
              <span class="visually-hidden"> {section} settings</span>
            </button>
            <span class="save-state" role="status">
              {done && !unsaved ? "Saved" : ""}
            </span>
          </div>
        )}
      </fieldset>
    </form>
  );
}
