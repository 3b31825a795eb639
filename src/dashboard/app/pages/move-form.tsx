import { useState } from "preact/hooks";
import { forms, type FormDetails, type Team } from "../calls";
import { go, href } from "../router";
import { chooseTeam, may, myTeams } from "../team";
import { act, announce, Dialog, ErrorNote } from "../ui/bits";

/**
 * "Move to team…": offered to whoever may move forms both in the form's team and in at least one
 * other (the server asks the same of both); afterwards the dashboard works in the destination,
 * where the form opens.
 */
export function MoveFormSection({ form, onMoved }: { form: FormDetails; onMoved: (form: FormDetails) => void }) {
  const [moving, setMoving] = useState(false);
  const from = myTeams.value.find((t) => t.id === form.teamId);
  const targets = myTeams.value.filter((t) => t.id !== form.teamId && may(t.id, "forms.move"));
  if (!from || !may(from.id, "forms.move") || targets.length === 0) return null;
  return (
    <section class="card danger" aria-labelledby="move-title">
      <h3 id="move-title">Move to another team</h3>
      <p class="muted">
        The form goes with its submissions, files, webhooks and settings. The keys of {from.name} stop reaching it.
      </p>
      <button type="button" class="button" onClick={() => setMoving(true)}>
        Move to team…
      </button>
      {moving && (
        <MoveDialog
          form={form}
          fromName={from.name}
          targets={targets}
          onClose={() => setMoving(false)}
          onMoved={onMoved}
        />
      )}
    </section>
  );
}

function MoveDialog({
  form,
  fromName,
  targets,
  onClose,
  onMoved,
}: {
  form: FormDetails;
  fromName: string;
  targets: Team[];
  onClose: () => void;
  onMoved: (form: FormDetails) => void;
}) {
  const [to, setTo] = useState(targets[0]!.id);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const toName = targets.find((t) => t.id === to)?.name ?? "";
  return (
    <Dialog title={`Move ${form.name}`} onClose={onClose}>
      <form
        class="stack"
        onSubmit={act(async (e) => {
          e.preventDefault();
          setBusy(true);
          setError(null);
          try {
            const moved = await forms.move(form.id, to);
            chooseTeam(to);
            onMoved(moved);
            announce(`${form.name} moved to ${toName}`);
            onClose();
            go(href(["forms", form.id]));
          } catch (err) {
            setError(err);
            setBusy(false);
          }
        })}
      >
        <fieldset class="choices">
          <legend>To the team</legend>
          {targets.map((t) => (
            <label key={t.id} class="check">
              <input type="radio" name="team" value={t.id} checked={to === t.id} onChange={() => setTo(t.id)} />
              <span>
                {t.name} <span class="badge badge-role">{t.role}</span>
              </span>
            </label>
          ))}
        </fieldset>
        <p class="note note-warning" role="note">
          The API keys of {fromName} stop reaching this form, publishable ones too: a page that posts to it with one
          needs a key of {toName} instead. The members of {fromName} lose access to it; those of {toName} gain it.
        </p>
        {error !== null && <ErrorNote error={error} />}
        <div class="actions">
          <button type="button" class="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" class="button button-primary" disabled={busy}>
            {busy ? "Moving…" : `Move to ${toName}`}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
