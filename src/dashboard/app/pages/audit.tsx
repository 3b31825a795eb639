import { teams, type AuditEvent, type Team } from "../calls";
import { formatDateTime } from "../format";
import { PageTitle } from "../shell";
import { currentTeam, may, myTeams, onlyWho } from "../team";
import { Show } from "../ui/bits";
import { useLoad } from "../ui/load";

const ACTIONS: Record<AuditEvent["action"], string> = {
  "key.created": "created a key",
  "key.revoked": "revoked a key",
  "key.role": "lowered a key's role",
  "form.created": "created a form",
  "form.updated": "changed a form's settings",
  "form.deleted": "deleted a form",
  "form.moved": "moved a form",
  "submission.deleted": "deleted a submission",
  "submission.moved": "moved a submission",
  "submission.updated": "changed a submission's state, assignee or tags",
  "note.added": "added a note",
  "note.deleted": "deleted a note",
  "submissions.erased": "erased submissions",
  "submissions.expired": "removed expired submissions",
  "owner.login": "logged in",
  "spam.reset": "reset the spam filter",
  "team.created": "created the team",
  "team.renamed": "renamed the team",
  "team.deleted": "deleted the team",
  "member.role": "changed a member's role",
  "member.removed": "removed a member",
  "member.invited": "invited someone",
  "member.joined": "joined the team",
  "invitation.cancelled": "cancelled an invitation",
  "mcp.list_forms": "listed forms (assistant)",
  "mcp.get_form": "read a form (assistant)",
  "mcp.form_analytics": "read a form's analytics (assistant)",
  "mcp.search_submissions": "searched submissions (assistant)",
  "mcp.get_submission": "read a submission (assistant)",
  "mcp.update_submission": "changed a submission (assistant)",
  "mcp.add_note": "added a note (assistant)",
  "mcp.mark_spam": "marked a submission spam (assistant)",
  "mcp.mark_not_spam": "marked a submission not spam (assistant)",
};

/** The team the dashboard works in: its newest 100 events, for its admins and owners. */
export function AuditPage() {
  const team = currentTeam.value;
  if (!team) return null;
  if (!may(team.id, "audit.read"))
    return (
      <>
        <PageTitle>Audit log</PageTitle>
        <p class="note">{onlyWho(team.id, "audit.read", "can read the team's audit log")}</p>
      </>
    );
  return <Trail key={team.id} team={team} />;
}

function Trail({ team }: { team: Team }) {
  const [events, reload] = useLoad(() => teams.audit(team.id), [team.id]);
  return (
    <>
      <p class="crumbs">
        <a href="#/team">{team.name}</a>
        <span aria-hidden="true"> / </span>
      </p>
      <PageTitle sub="Who changed what in the team, newest first: the last 100 events.">Audit log</PageTitle>
      <Show value={events} retry={reload} label="Loading the audit log…">
        {(list) =>
          list.length === 0 ? (
            <p class="muted">Nothing recorded yet.</p>
          ) : (
            <table class="table audit-table">
              <thead>
                <tr>
                  <th scope="col">Time</th>
                  <th scope="col">Actor</th>
                  <th scope="col">Role</th>
                  <th scope="col">Action</th>
                  <th scope="col">Object</th>
                </tr>
              </thead>
              <tbody>
                {list.map((e) => (
                  <tr key={e.id}>
                    <td data-label="Time">{formatDateTime(e.at)}</td>
                    <td data-label="Actor">
                      <Actor event={e} />
                    </td>
                    <td data-label="Role">
                      {e.actorRole ? <span class="badge badge-role">{e.actorRole}</span> : <span class="muted">—</span>}
                    </td>
                    <td data-label="Action">
                      {ACTIONS[e.action] ?? e.action}
                      <Detail event={e} />
                    </td>
                    <td data-label="Object">
                      {e.objectId ? <code class="small">{e.objectId}</code> : <span class="muted">—</span>}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </Show>
    </>
  );
}

function Actor({ event: e }: { event: AuditEvent }) {
  if (e.actorKind === "cli") return <>command line</>;
  if (e.actorKind === "system") return <>formsvc ({e.actorId})</>;
  if (e.actorKind === "session") return <span class="audit-email">{e.actorEmail ?? e.actorId}</span>;
  return (
    <>
      key <code class="small">{e.actorId}</code>
      {e.actorEmail && <span class="muted small block">made by {e.actorEmail}</span>}
    </>
  );
}

const teamName = (id: unknown) =>
  typeof id === "string" ? (myTeams.value.find((t) => t.id === id)?.name ?? id) : String(id);

/** The facts a line of the log is most often read for: where a form went, whose role became what. */
function Detail({ event: e }: { event: AuditEvent }) {
  const d = e.detail ?? {};
  const said =
    e.action === "form.moved"
      ? `from ${teamName(d.from)} to ${teamName(d.to)}`
      : e.action === "member.role"
        ? `${d.email}: ${d.from} → ${d.to}`
        : e.action === "key.created"
          ? `${d.name || "unnamed"} · ${d.kind === "publishable" ? "publishable" : d.role}`
          : e.action === "team.renamed"
            ? `${d.from} → ${d.to}`
            : typeof d.email === "string"
              ? d.email
              : typeof d.name === "string" && d.name
                ? d.name
                : null;
  return said ? <span class="muted small block">{said}</span> : null;
}
