import { useState } from "preact/hooks";
import type { FormType } from "../../../client/index";
import { forms, type FormDetails, type FormListItem } from "../calls";
import { FORM_TYPES, typeLabel } from "../form-types";
import { formatDate, formatNumber, plural } from "../format";
import { go, href } from "../router";
import { PageTitle } from "../shell";
import { currentTeam, may, myTeams, onlyWho } from "../team";
import { Sparkline, type DayCount } from "../ui/charts";
import { act, Dialog, ErrorNote, Show } from "../ui/bits";
import { limiter } from "../ui/limit";
import { useLoad } from "../ui/load";

// A row's extras (type, 30 days) come one request each: a handful at a time.
const rowLoads = limiter(4);

/** Every form of the team the dashboard works in, newest first, with its type, count and last 30 days. */
export function FormsPage() {
  const team = currentTeam.value;
  const [list, reload] = useLoad(async () => {
    const all: FormListItem[] = [];
    let cursor: string | undefined;
    do {
      const page = await forms.list(cursor, team?.id);
      all.push(...page.forms);
      cursor = page.nextCursor ?? undefined;
    } while (cursor && all.length < 500);
    return all;
  }, [team?.id]);
  const [creating, setCreating] = useState(false);
  const createButton = may(team?.id, "forms.create") ? (
    <button type="button" class="button button-primary" onClick={() => setCreating(true)}>
      New form
    </button>
  ) : (
    <p class="muted small">{onlyWho(team?.id, "forms.create", "can create forms")}</p>
  );
  return (
    <>
      <div class="page-head">
        <PageTitle sub={myTeams.value.length > 1 && team ? `In ${team.name}` : undefined}>Forms</PageTitle>
        {list.state === "ready" && list.data.length > 0 && createButton}
      </div>
      <Show value={list} retry={reload} label="Loading your forms…">
        {(items) =>
          items.length === 0 ? (
            <div class="empty">
              <h2>No forms yet</h2>
              <p>A form collects what people send from your website. Create one, then paste its snippet into a page.</p>
              {createButton}
            </div>
          ) : (
            <table class="table forms-table">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Type</th>
                  <th scope="col" class="num">
                    Submissions
                  </th>
                  <th scope="col">Last 30 days</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {items.map((f) => (
                  <FormRow key={f.id} form={f} />
                ))}
              </tbody>
            </table>
          )
        }
      </Show>
      {creating && <CreateForm onClose={() => setCreating(false)} />}
    </>
  );
}

function FormRow({ form }: { form: FormListItem }) {
  const [extras] = useLoad(
    () =>
      rowLoads(async () => {
        const [details, month] = await Promise.all([forms.get(form.id), forms.analytics(form.id, { period: "month" })]);
        return { type: details.formType, days: month.submissionsOverTime as DayCount[], total: month.totalSubmissions };
      }),
    [form.id],
  );
  const link = href(["forms", form.id]);
  return (
    <tr>
      <td data-label="Name">
        <a class="row-link" href={link}>
          {form.name}
        </a>
        {form.unread > 0 && (
          <>
            {" "}
            <a class="badge badge-unread" href={href(["forms", form.id, "submissions"])} data-testid="unread">
              {formatNumber(form.unread)} unread
            </a>
          </>
        )}
        {form.description && <span class="muted small block">{form.description}</span>}
      </td>
      <td data-label="Type">
        {extras.state === "ready" ? (
          typeLabel(extras.data.type)
        ) : extras.state === "failed" ? (
          "—"
        ) : (
          <span class="placeholder" aria-label="Loading" />
        )}
      </td>
      <td data-label="Submissions" class="num">
        {formatNumber(form.submissionCount)}
      </td>
      <td data-label="Last 30 days">
        {extras.state === "ready" ? (
          <Sparkline days={extras.data.days} label={`${plural(extras.data.total, "submission")} in the last 30 days`} />
        ) : extras.state === "failed" ? (
          <span class="muted small">not available</span>
        ) : (
          <span class="placeholder placeholder-wide" aria-label="Loading" />
        )}
      </td>
      <td data-label="Created">{formatDate(form.createdAt)}</td>
    </tr>
  );
}

/** Name, type and description of a new form; then its embed panel, the next thing to do. */
function CreateForm({ onClose }: { onClose: () => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  return (
    <Dialog title="New form" onClose={onClose}>
      <form
        class="stack"
        onSubmit={act(async (e) => {
          e.preventDefault();
          const data = new FormData(e.currentTarget);
          setBusy(true);
          setError(null);
          try {
            const created: FormDetails = await forms.create({
              name: String(data.get("name")).trim(),
              formType: String(data.get("formType")) as FormType,
              description: String(data.get("description") ?? "").trim(),
              teamId: currentTeam.value?.id,
            });
            go(href(["forms", created.id, "embed"]));
          } catch (err) {
            setError(err);
            setBusy(false);
          }
        })}
      >
        {myTeams.value.length > 1 && currentTeam.value && (
          <p class="muted">It belongs to the team {currentTeam.value.name}.</p>
        )}
        <label class="field">
          <span>Name</span>
          <input name="name" required maxLength={200} autoFocus />
        </label>
        <label class="field">
          <span>Type</span>
          <select name="formType" defaultValue="contact">
            {FORM_TYPES.map((t) => (
              <option key={t.value} value={t.value}>
                {t.label}
              </option>
            ))}
          </select>
        </label>
        <label class="field">
          <span>
            Description <span class="muted">(optional)</span>
          </span>
          <textarea name="description" rows={2} />
        </label>
        {error !== null && <ErrorNote error={error} />}
        <div class="actions">
          <button type="button" class="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" class="button button-primary" disabled={busy}>
            {busy ? "Creating…" : "Create form"}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
