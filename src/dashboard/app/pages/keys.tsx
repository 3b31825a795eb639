import { useState } from "preact/hooks";
import { KEY_ROLES } from "../../../lib/rights";
import { forms, keys, type ApiKey, type CreatedKey, type FormListItem, type KeyRole } from "../calls";
import { formatDate } from "../format";
import { PageTitle } from "../shell";
import { currentTeam, may, myTeams, onlyWho } from "../team";
import { act, announce, Confirm, CopyButton, Dialog, ErrorNote, Show } from "../ui/bits";
import { useLoad } from "../ui/load";

/** What a key of each role may do in its team, in a line. */
const KEY_ROLE_HELP: Record<KeyRole, string> = {
  viewer: "Reads forms, submissions and analytics; changes nothing.",
  editor: "Also creates forms, changes their settings, and marks, moves and deletes submissions.",
  admin: "Also manages keys and webhooks, and deletes forms.",
};

/** The API keys of the team the dashboard works in: list, create (the secret shown once), revoke. */
export function KeysPage() {
  const team = currentTeam.value;
  if (!may(team?.id, "keys.manage"))
    return (
      <>
        <PageTitle sub={`The keys of ${team!.name}.`}>API keys</PageTitle>
        <p class="note">{onlyWho(team?.id, "keys.manage", "can see and make its keys")}</p>
      </>
    );
  return <TeamKeys teamId={team?.id} />;
}

function TeamKeys({ teamId }: { teamId: string | undefined }) {
  const [data, reload] = useLoad(async () => {
    const [list, formPage] = await Promise.all([keys.list(teamId), forms.list(undefined, teamId)]);
    // Revoked keys stay listed by the API (for the record); here only those that still work.
    return { list: list.filter((k) => k.active !== false), forms: formPage.forms };
  }, [teamId]);
  const [creating, setCreating] = useState(false);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const teams = myTeams.value.length;
  return (
    <>
      <div class="page-head">
        <PageTitle
          sub={`${teams > 1 ? `The keys of ${currentTeam.value!.name}. ` : ""}Secret keys act in the team with the role they were given: keep them on servers. Publishable keys may only submit to forms, so they can sit in a web page.`}
        >
          API keys
        </PageTitle>
        <button type="button" class="button button-primary" onClick={() => setCreating(true)}>
          New key
        </button>
      </div>
      <Show value={data} retry={reload} label="Loading your keys…">
        {({ list, forms: all }) =>
          list.length === 0 ? (
            <div class="empty">
              <h2>No keys yet</h2>
              <p>
                A secret key lets your scripts and servers use the API; a publishable key lets a web page post to your
                forms.
              </p>
            </div>
          ) : (
            <table class="table keys-table">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Kind</th>
                  <th scope="col">Role</th>
                  <th scope="col">Forms</th>
                  <th scope="col">Created</th>
                  <th scope="col">Last used</th>
                  <th scope="col">
                    <span class="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {list.map((k) => (
                  <tr key={k.id}>
                    <td data-label="Name">
                      {k.name || <span class="muted">unnamed</span>}
                      <code class="muted small block">{k.prefix ? `${k.prefix}…` : k.id}</code>
                    </td>
                    <td data-label="Kind">
                      <span class={`badge badge-${k.kind}`}>{k.kind}</span>
                    </td>
                    <td data-label="Role">
                      {/* A publishable key only submits, whatever its role. */}
                      {k.kind === "secret" ? (
                        <span class="badge badge-role">{k.role}</span>
                      ) : (
                        <span class="muted">submits only</span>
                      )}
                    </td>
                    <td data-label="Forms">
                      {k.forms === null
                        ? "All forms"
                        : k.forms.map((id) => all.find((f) => f.id === id)?.name ?? id).join(", ")}
                    </td>
                    <td data-label="Created">{formatDate(k.createdAt)}</td>
                    <td data-label="Last used">
                      {k.lastUsedAt ? formatDate(k.lastUsedAt) : <span class="muted">never</span>}
                    </td>
                    <td class="cell-actions">
                      <button
                        type="button"
                        class="button button-danger-quiet"
                        onClick={() => setRevoking(k)}
                        aria-label={`Revoke ${k.name || k.id}`}
                      >
                        Revoke
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </Show>
      {creating && data.state === "ready" && (
        <CreateKey forms={data.data.forms} teamId={teamId} onClose={() => setCreating(false)} onCreated={reload} />
      )}
      {revoking && (
        <Confirm
          title={`Revoke ${revoking.name || "this key"}?`}
          action="Revoke key"
          busyLabel="Revoking…"
          onClose={() => setRevoking(null)}
          onConfirm={async () => {
            await keys.revoke(revoking.id);
            setRevoking(null);
            announce("Key revoked");
            reload();
          }}
        >
          <p>
            Every request with this key is refused from now on
            {revoking.kind === "publishable" ? ", so pages that carry it can no longer post" : ""}. This cannot be
            undone.
          </p>
        </Confirm>
      )}
    </>
  );
}

/** Name, kind and forms of a new key; then its secret, this once, with a copy button. */
export function CreateKey({
  forms: all,
  teamId,
  onClose,
  onCreated,
  preset,
}: {
  forms: FormListItem[];
  /** The team it acts in (the session's personal team without one). */
  teamId?: string;
  onClose: () => void;
  onCreated: (key: CreatedKey) => void;
  preset?: { kind: "publishable"; formId: string; name: string };
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [created, setCreated] = useState<CreatedKey | null>(null);
  const [kind, setKind] = useState<"secret" | "publishable">(preset?.kind ?? "secret");
  const [scope, setScope] = useState<"all" | "some">(preset ? "some" : "all");
  const [role, setRole] = useState<KeyRole>("admin");
  if (created)
    return (
      <Dialog title="Your new key" onClose={onClose}>
        <p>
          Copy it now: <strong>this is the only time it is shown.</strong> formsvc keeps only a hash of it.
        </p>
        <p class="secret-row">
          <code class="secret" data-testid="new-key">
            {created.key}
          </code>
          <CopyButton text={created.key} />
        </p>
        <p class="muted small">
          {created.kind === "secret"
            ? "Keep it on servers, never in a web page."
            : "It may only submit to its forms, so it can sit in a web page."}
        </p>
        <div class="actions">
          <button type="button" class="button button-primary" onClick={onClose}>
            Done
          </button>
        </div>
      </Dialog>
    );
  return (
    <Dialog title="New API key" onClose={onClose}>
      <form
        class="stack"
        onSubmit={act(async (e) => {
          e.preventDefault();
          const data = new FormData(e.currentTarget);
          const bound = data.getAll("forms").map(String);
          if (scope === "some" && bound.length === 0)
            return setError(new Error("Pick at least one form, or let the key reach all forms."));
          setBusy(true);
          setError(null);
          try {
            const key = await keys.create({
              name: String(data.get("name")).trim(),
              kind,
              forms: scope === "all" ? null : bound,
              teamId,
              ...(kind === "secret" ? { role } : {}),
            });
            setCreated(key);
            onCreated(key);
          } catch (err) {
            setError(err);
            setBusy(false);
          }
        })}
      >
        <label class="field">
          <span>Name</span>
          <input
            name="name"
            required
            maxLength={100}
            defaultValue={preset?.name}
            placeholder="e.g. website, backend"
            autoFocus
          />
        </label>
        <fieldset class="choices">
          <legend>Kind</legend>
          <label class="check">
            <input
              type="radio"
              name="kind"
              value="secret"
              checked={kind === "secret"}
              onChange={() => setKind("secret")}
            />
            <span>
              Secret <span class="muted block small">What its role allows, for servers and scripts.</span>
            </span>
          </label>
          <label class="check">
            <input
              type="radio"
              name="kind"
              value="publishable"
              checked={kind === "publishable"}
              onChange={() => setKind("publishable")}
            />
            <span>
              Publishable <span class="muted block small">Only submits to forms: safe in a web page.</span>
            </span>
          </label>
        </fieldset>
        {kind === "secret" && (
          <div class="field">
            <label for="key-role">Role</label>
            <select
              id="key-role"
              name="role"
              value={role}
              aria-describedby="key-role-help"
              onChange={(e) => setRole(e.currentTarget.value as KeyRole)}
            >
              {KEY_ROLES.map((r) => (
                <option key={r} value={r}>
                  {r.charAt(0).toUpperCase() + r.slice(1)}
                </option>
              ))}
            </select>
            <span id="key-role-help" class="muted small">
              {KEY_ROLE_HELP[role]}
            </span>
          </div>
        )}
        <fieldset class="choices">
          <legend>Forms</legend>
          <label class="check">
            <input type="radio" name="scope" value="all" checked={scope === "all"} onChange={() => setScope("all")} />
            <span>All the team's forms, also those created later</span>
          </label>
          <label class="check">
            <input
              type="radio"
              name="scope"
              value="some"
              checked={scope === "some"}
              onChange={() => setScope("some")}
            />
            <span>Only these:</span>
          </label>
          {scope === "some" && (
            <div class="indent checklist">
              {all.length === 0 && <p class="muted small">You have no forms yet.</p>}
              {all.map((f) => (
                <label key={f.id} class="check">
                  <input type="checkbox" name="forms" value={f.id} defaultChecked={preset?.formId === f.id} />
                  <span>{f.name}</span>
                </label>
              ))}
            </div>
          )}
        </fieldset>
        {error !== null && <ErrorNote error={error} />}
        <div class="actions">
          <button type="button" class="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" class="button button-primary" disabled={busy}>
            {busy ? "Creating…" : "Create key"}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
