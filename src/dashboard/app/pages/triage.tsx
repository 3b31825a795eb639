import { useState } from "preact/hooks";
import { submissions, teams, type ListedSubmission, type Note, type SubmissionState, type TeamMember } from "../calls";
import { formatDateTime } from "../format";
import { me } from "../session";
import { may, onlyWho } from "../team";
import { act, announce, ErrorNote, Show } from "../ui/bits";
import { useLoad } from "../ui/load";

export const STATES: { id: SubmissionState; label: string }[] = [
  { id: "new", label: "New" },
  { id: "open", label: "Open" },
  { id: "done", label: "Done" },
  { id: "archived", label: "Archived" },
];
export const stateLabel = (s: SubmissionState) => STATES.find((x) => x.id === s)!.label;

/** The members of a team, who may be assigned; none when they cannot be read (the filters keep "me" and "nobody"). */
export function useMembers(teamId: string | null): TeamMember[] {
  const [members] = useLoad(async () => (teamId ? teams.members(teamId).catch(() => []) : []), [teamId]);
  return members.state === "ready" ? members.data : [];
}

/** A state as a badge: new ones stand out, done and archived ones recede. */
export function StateBadge({ state }: { state: SubmissionState }) {
  return <span class={`badge badge-state-${state}`}>{stateLabel(state)}</span>;
}

/**
 * Where a submission is in the team's work: its state, assignee and tags (changed here by an editor,
 * shown to anyone), and its notes.
 */
export function Triage<S extends ListedSubmission>({
  submission,
  teamId,
  onChanged,
}: {
  submission: S;
  teamId: string;
  onChanged?: (s: S) => void;
}) {
  const [s, setS] = useState(submission);
  const [error, setError] = useState<unknown>(null);
  const [tag, setTag] = useState("");
  const members = useMembers(teamId);
  const editor = may(teamId, "submissions.edit");
  const change = async (body: Parameters<typeof submissions.update>[2], said: string) => {
    setError(null);
    try {
      const changed = { ...s, ...(await submissions.update(s.formId, s.id, body)) };
      setS(changed);
      onChanged?.(changed);
      announce(said);
    } catch (e) {
      setError(e);
    }
  };
  const addTag = act(async (e: Event) => {
    e.preventDefault();
    const t = tag.trim();
    if (!t) return;
    await change({ addTags: [t] }, `Tagged ${t}`);
    setTag("");
  });
  return (
    <section class="triage" aria-labelledby="triage-title">
      <h3 class="subhead" id="triage-title">
        Work on it
      </h3>
      {error !== null && <ErrorNote error={error} />}
      <div class="triage-controls">
        <label class="field">
          <span class="label">State</span>
          <select
            value={s.state}
            disabled={!editor}
            onChange={act(async (e) => {
              const state = (e.currentTarget as HTMLSelectElement).value as SubmissionState;
              await change({ state }, `Marked ${stateLabel(state).toLowerCase()}`);
            })}
          >
            {STATES.map((x) => (
              <option key={x.id} value={x.id}>
                {x.label}
              </option>
            ))}
          </select>
        </label>
        <label class="field">
          <span class="label">Assignee</span>
          <select
            value={s.assignee ?? ""}
            disabled={!editor}
            onChange={act(async (e) => {
              const to = (e.currentTarget as HTMLSelectElement).value || null;
              await change({ assignee: to }, to ? `Assigned to ${to}` : "Unassigned");
            })}
          >
            <option value="">Nobody</option>
            {/* Not among the members read (they could not be): still shown, as the server says. */}
            {s.assignee && !members.some((m) => m.email === s.assignee) && (
              <option value={s.assignee}>{s.assignee}</option>
            )}
            {members.map((m) => (
              <option key={m.ownerId} value={m.email}>
                {m.email === me.value?.email ? `${m.email} (me)` : m.email}
              </option>
            ))}
          </select>
        </label>
      </div>
      <div class="field">
        <span class="label" id="tags-label">
          Tags
        </span>
        <ul class="tags" aria-labelledby="tags-label">
          {s.tags.length === 0 && <li class="muted small">none</li>}
          {s.tags.map((t) => (
            <li key={t} class="tag">
              {t}
              {editor && (
                <button
                  type="button"
                  class="tag-remove"
                  aria-label={`Remove the tag ${t}`}
                  onClick={act(() => change({ removeTags: [t] }, `Took the tag ${t} off`))}
                >
                  ×
                </button>
              )}
            </li>
          ))}
        </ul>
        {editor && (
          <form class="inline-form" onSubmit={addTag}>
            <input
              aria-label="New tag"
              placeholder="Add a tag"
              maxLength={40}
              value={tag}
              onInput={(e) => setTag(e.currentTarget.value)}
            />
            <button type="submit" class="button" disabled={!tag.trim()}>
              Add tag
            </button>
          </form>
        )}
      </div>
      {!editor && <p class="muted small">{onlyWho(teamId, "submissions.edit", "can change submissions")}</p>}
      <Notes
        submission={s}
        editor={editor}
        onCount={(noteCount) => {
          const changed = { ...s, noteCount };
          setS(changed);
          onChanged?.(changed);
        }}
      />
    </section>
  );
}

/** A submission's notes, oldest first, each with its author and time; an author deletes their own. */
function Notes({
  submission: s,
  editor,
  onCount,
}: {
  submission: ListedSubmission;
  editor: boolean;
  onCount: (n: number) => void;
}) {
  const [notes, reload, replace] = useLoad(() => submissions.notes(s.formId, s.id), [s.formId, s.id]);
  const [text, setText] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const list = notes.state === "ready" ? notes.data : [];
  const update = (next: Note[]) => {
    replace(next);
    onCount(next.length);
  };
  return (
    <>
      <h3 class="subhead">Notes</h3>
      <Show value={notes} retry={reload} label="Loading the notes…">
        {(all) =>
          all.length === 0 ? (
            <p class="muted small">No notes yet: they are for the team, never sent to whoever wrote this.</p>
          ) : (
            <ol class="notes">
              {all.map((n) => (
                <li key={n.id} class="note-item">
                  <p class="muted small">
                    {n.author ?? "the command line"} · {formatDateTime(n.createdAt)}
                  </p>
                  <p class="pre">{n.text}</p>
                  {editor && n.author !== null && n.author === me.value?.email && (
                    <button
                      type="button"
                      class="button button-small button-danger-quiet"
                      onClick={act(async () => {
                        setError(null);
                        try {
                          await submissions.deleteNote(s.formId, s.id, n.id);
                          update(list.filter((x) => x.id !== n.id));
                          announce("Note deleted");
                        } catch (e) {
                          setError(e);
                        }
                      })}
                    >
                      Delete note
                    </button>
                  )}
                </li>
              ))}
            </ol>
          )
        }
      </Show>
      {error !== null && <ErrorNote error={error} />}
      {editor && (
        <form
          class="note-form"
          onSubmit={act(async (e: Event) => {
            e.preventDefault();
            if (!text.trim()) return;
            setBusy(true);
            setError(null);
            try {
              const note = await submissions.addNote(s.formId, s.id, text);
              update([...list, note]);
              setText("");
              announce("Note added");
            } catch (err) {
              setError(err);
            } finally {
              setBusy(false);
            }
          })}
        >
          <label class="field">
            <span class="label">Add a note</span>
            <textarea rows={3} maxLength={10_000} value={text} onInput={(e) => setText(e.currentTarget.value)} />
          </label>
          <div class="actions">
            <button type="submit" class="button" disabled={busy || !text.trim()}>
              {busy ? "Adding…" : "Add note"}
            </button>
          </div>
        </form>
      )}
    </>
  );
}
