import { useState } from "preact/hooks";
import { personalTeamId, ROLES } from "../../../lib/rights";
import { teams, type Invitation, type Role, type Team, type TeamMember } from "../calls";
import { formatDate } from "../format";
import { go } from "../router";
import { me } from "../session";
import { PageTitle } from "../shell";
import { aRole, chooseTeam, currentTeam, loadTeams, may, onlyWho } from "../team";
import { act, announce, Confirm, ErrorNote, NoSmtpNote, Show } from "../ui/bits";
import { useLoad } from "../ui/load";

const capital = (role: Role) => role.charAt(0).toUpperCase() + role.slice(1);

const ROLE_HELP: Record<Role, string> = {
  viewer: "reads forms, submissions and analytics; changes nothing",
  editor: "creates forms, changes their settings, and marks, moves and deletes submissions",
  admin: "all that, and members below owner, keys, webhooks and deleting forms",
  owner: "everything, the team itself included",
};

/** The team the dashboard works in: its members and their roles, pending invitations, a new invitation, its name. */
export function TeamPage() {
  const team = currentTeam.value;
  return team && <TeamView key={team.id} team={team} />;
}

function TeamView({ team }: { team: Team }) {
  const [data, reload, replace] = useLoad(
    () => Promise.all([teams.members(team.id), teams.invitations(team.id)]),
    [team.id],
  );
  const own = personalTeamId(me.value!.id) === team.id;
  return (
    <div class="stack-lg">
      <div class="page-head">
        <PageTitle sub={`${own ? "Your personal team" : "A team"} · you are ${aRole(team.role)}`}>
          {team.name}
        </PageTitle>
        {may(team.id, "audit.read") && (
          <a class="button" href="#/team/audit">
            Audit log
          </a>
        )}
      </div>
      <Show value={data} retry={reload} label="Loading the members…">
        {([members, invitations]) => (
          <>
            <Members team={team} members={members} onChange={(m) => replace([m, invitations])} />
            <Invitations team={team} invitations={invitations} onChange={reload} />
          </>
        )}
      </Show>
      {may(team.id, "team.edit") && <Rename team={team} />}
      {may(team.id, "team.delete") && !team.personal && <DeleteTeam team={team} />}
    </div>
  );
}

/** Each member with their role: a picker where the caller may change it, the reason where not. */
function Members({
  team,
  members,
  onChange,
}: {
  team: Team;
  members: TeamMember[];
  onChange: (members: TeamMember[]) => void;
}) {
  const [removing, setRemoving] = useState<TeamMember | null>(null);
  const [error, setError] = useState<unknown>(null);
  const manage = may(team.id, "members.manage");
  const owners = members.filter((m) => m.role === "owner").length;
  const self = me.value!.id;
  // Admins manage the members below owner; only an owner makes or unmakes one, and the last owner stays one.
  const lockedBecause = (m: TeamMember): string | null =>
    m.role === "owner" && owners === 1
      ? "The last owner keeps the role: make another member an owner first."
      : m.role === "owner" && team.role !== "owner"
        ? "Only owners change an owner's role."
        : null;
  const choices = team.role === "owner" ? ROLES : ROLES.filter((r) => r !== "owner");
  return (
    <section class="card" aria-labelledby="members-title">
      <h2 id="members-title" class="card-title">
        Members
      </h2>
      {!manage && (
        <p class="muted small">{onlyWho(team.id, "members.manage", "can change roles, invite or remove members")}</p>
      )}
      <table class="table members-table">
        <thead>
          <tr>
            <th scope="col">Email</th>
            <th scope="col">Role</th>
            <th scope="col">Joined</th>
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {members.map((m) => {
            const locked = lockedBecause(m);
            const mine = m.ownerId === self;
            return (
              <tr key={m.ownerId}>
                <td data-label="Email">
                  {m.email}
                  {mine && <span class="muted small"> (you)</span>}
                </td>
                <td data-label="Role">
                  {manage ? (
                    <RolePicker
                      team={team}
                      member={m}
                      choices={choices}
                      locked={locked}
                      onError={setError}
                      onChanged={(changed) =>
                        onChange(members.map((x) => (x.ownerId === changed.ownerId ? { ...x, ...changed } : x)))
                      }
                    />
                  ) : (
                    <span class="badge badge-role">{m.role}</span>
                  )}
                </td>
                <td data-label="Joined">{formatDate(m.joinedAt)}</td>
                <td class="cell-actions">
                  {mine
                    ? !(m.role === "owner" && owners === 1) && (
                        <button type="button" class="button button-danger-quiet" onClick={() => setRemoving(m)}>
                          Leave team
                        </button>
                      )
                    : manage &&
                      !(m.role === "owner" && team.role !== "owner") && (
                        <button
                          type="button"
                          class="button button-danger-quiet"
                          aria-label={`Remove ${m.email}`}
                          onClick={() => setRemoving(m)}
                        >
                          Remove
                        </button>
                      )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {error !== null && <ErrorNote error={error} />}
      {removing && (
        <Confirm
          title={removing.ownerId === self ? `Leave ${team.name}?` : `Remove ${removing.email}?`}
          action={removing.ownerId === self ? "Leave team" : "Remove member"}
          busyLabel={removing.ownerId === self ? "Leaving…" : "Removing…"}
          onClose={() => setRemoving(null)}
          onConfirm={async () => {
            await teams.removeMember(team.id, removing.ownerId);
            setRemoving(null);
            if (removing.ownerId !== self) {
              announce(`${removing.email} removed`);
              return onChange(members.filter((m) => m.ownerId !== removing.ownerId));
            }
            announce(`You left ${team.name}`);
            await loadTeams();
            chooseTeam(personalTeamId(self));
            go("#/forms", true);
          }}
        >
          <p>
            {removing.ownerId === self
              ? "You lose access to its forms, submissions and keys at once. A member who manages it can invite you back."
              : `${removing.email} loses access to this team's forms, submissions and keys at once. Their own account stays.`}
          </p>
        </Confirm>
      )}
    </section>
  );
}

function RolePicker({
  team,
  member: m,
  choices,
  locked,
  onError,
  onChanged,
}: {
  team: Team;
  member: TeamMember;
  choices: readonly Role[];
  locked: string | null;
  onError: (e: unknown) => void;
  onChanged: (m: TeamMember) => void;
}) {
  const [busy, setBusy] = useState(false);
  const reason = `role-reason-${m.ownerId}`;
  return (
    <>
      <select
        class="role-picker"
        aria-label={`Role of ${m.email}`}
        aria-describedby={locked ? reason : undefined}
        value={m.role}
        disabled={busy || locked !== null}
        onChange={act(async (e: Event) => {
          const select = e.currentTarget as HTMLSelectElement;
          const role = select.value as Role;
          setBusy(true);
          onError(null);
          try {
            const changed = await teams.setRole(team.id, m.ownerId, role);
            onChanged({ ...m, ...changed, role });
            announce(`${m.email} is now ${aRole(role)}`);
            // One's own role changed: what the dashboard offers changes with it.
            if (m.ownerId === me.value!.id) await loadTeams();
          } catch (err) {
            select.value = m.role;
            onError(err);
          } finally {
            setBusy(false);
          }
        })}
      >
        {(choices.includes(m.role) ? choices : [m.role, ...choices]).map((r) => (
          <option key={r} value={r} title={ROLE_HELP[r]}>
            {capital(r)}
          </option>
        ))}
      </select>
      {locked && (
        <span id={reason} class="muted small block">
          {locked}
        </span>
      )}
    </>
  );
}

/** Invitations not yet accepted, with Cancel, and the form for a new one. */
function Invitations({ team, invitations, onChange }: { team: Team; invitations: Invitation[]; onChange: () => void }) {
  const [cancelling, setCancelling] = useState<Invitation | null>(null);
  const manage = may(team.id, "members.manage");
  return (
    <section class="card" aria-labelledby="invitations-title">
      <h2 id="invitations-title" class="card-title">
        Invitations
      </h2>
      {invitations.length === 0 ? (
        <p class="muted">No invitation is waiting for an answer.</p>
      ) : (
        <ul class="list" aria-label="Pending invitations">
          {invitations.map((inv) => (
            <li key={inv.id} class="list-item">
              <div class="list-row">
                <div>
                  {inv.email} <span class="badge badge-role">{inv.role}</span>
                  <span class="muted small block">
                    Invited by {inv.invitedBy === "cli" ? "the command line" : inv.invitedBy} on{" "}
                    {formatDate(inv.createdAt)} · the link works until {formatDate(inv.expiresAt)}
                  </span>
                </div>
                {manage && (
                  <button
                    type="button"
                    class="button button-danger-quiet"
                    aria-label={`Cancel the invitation of ${inv.email}`}
                    onClick={() => setCancelling(inv)}
                  >
                    Cancel
                  </button>
                )}
              </div>
            </li>
          ))}
        </ul>
      )}
      {manage && <Invite team={team} onInvited={onChange} />}
      {cancelling && (
        <Confirm
          title={`Cancel the invitation of ${cancelling.email}?`}
          action="Cancel invitation"
          busyLabel="Cancelling…"
          onClose={() => setCancelling(null)}
          onConfirm={async () => {
            await teams.cancelInvitation(team.id, cancelling.id);
            setCancelling(null);
            announce(`Invitation of ${cancelling.email} cancelled`);
            onChange();
          }}
        >
          <p>The link sent to {cancelling.email} stops working. You can invite them again later.</p>
        </Confirm>
      )}
    </section>
  );
}

function Invite({ team, onInvited }: { team: Team; onInvited: () => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [role, setRole] = useState<Role>("viewer");
  const choices = team.role === "owner" ? ROLES : ROLES.filter((r) => r !== "owner");
  return (
    <form
      class="stack invite"
      aria-labelledby="invite-title"
      onSubmit={act(async (e) => {
        e.preventDefault();
        const el = e.currentTarget;
        const email = String(new FormData(el).get("email")).trim();
        setBusy(true);
        setError(null);
        try {
          await teams.invite(team.id, email, role);
          el.reset();
          setRole("viewer");
          announce(`Invitation sent to ${email}`);
          onInvited();
        } catch (err) {
          setError(err);
        } finally {
          setBusy(false);
        }
      })}
    >
      <h3 id="invite-title" class="subhead">
        Invite someone
      </h3>
      {me.value?.smtpConfigured === false && <NoSmtpNote what="invitations" />}
      <div class="inline-form">
        <label class="field grow">
          <span>Email</span>
          <input name="email" type="email" required maxLength={254} placeholder="colleague@example.com" />
        </label>
        <label class="field">
          <span>Role</span>
          <select name="role" value={role} onChange={(e) => setRole(e.currentTarget.value as Role)}>
            {choices.map((r) => (
              <option key={r} value={r}>
                {capital(r)}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" class="button button-primary" disabled={busy}>
          {busy ? "Sending…" : "Send invitation"}
        </button>
      </div>
      <p class="muted small">
        {aRole(role).replace(/^a/, "A")} {ROLE_HELP[role]}. The emailed link works once, for 7 days; a person without an
        account sets a password there.
      </p>
      {error !== null && <ErrorNote error={error} />}
    </form>
  );
}

function Rename({ team }: { team: Team }) {
  const [name, setName] = useState(team.name);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  return (
    <form
      class="card stack rename"
      aria-labelledby="rename-title"
      onSubmit={act(async (e) => {
        e.preventDefault();
        setBusy(true);
        setError(null);
        try {
          const renamed = await teams.rename(team.id, name.trim());
          await loadTeams();
          announce(`Renamed to ${renamed.name}`);
        } catch (err) {
          setError(err);
        } finally {
          setBusy(false);
        }
      })}
    >
      <h2 id="rename-title" class="card-title">
        Team name
      </h2>
      <div class="inline-form">
        <label class="field grow">
          <span>Name</span>
          <input name="name" required maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <button type="submit" class="button" disabled={busy || name.trim() === team.name || !name.trim()}>
          {busy ? "Saving…" : "Rename"}
        </button>
      </div>
      {error !== null && <ErrorNote error={error} />}
    </form>
  );
}

function DeleteTeam({ team }: { team: Team }) {
  const [deleting, setDeleting] = useState(false);
  return (
    <section class="card danger" aria-labelledby="delete-team-title">
      <h3 id="delete-team-title">Delete this team</h3>
      <p class="muted">Its members lose access to it and its keys stop working. Move or delete its forms first.</p>
      <button type="button" class="button button-danger" onClick={() => setDeleting(true)}>
        Delete team…
      </button>
      {deleting && (
        <Confirm
          title={`Delete ${team.name}?`}
          action="Delete team"
          busyLabel="Deleting…"
          onClose={() => setDeleting(false)}
          onConfirm={async () => {
            await teams.remove(team.id);
            announce(`${team.name} deleted`);
            await loadTeams();
            chooseTeam(personalTeamId(me.value!.id));
            go("#/forms", true);
          }}
        >
          <p>{team.name} is deleted for good, with its members' access and its keys. This cannot be undone.</p>
        </Confirm>
      )}
    </section>
  );
}
