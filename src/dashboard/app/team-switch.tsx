import { useEffect, useRef, useState } from "preact/hooks";
import { teams } from "./calls";
import { go, route } from "./router";
import { chooseTeam, currentTeam, loadTeams, myTeams } from "./team";
import { act, announce, Dialog, ErrorNote } from "./ui/bits";

/**
 * The header's team: the one the dashboard works in, with the caller's role, and a menu of the
 * others, a link to its members and a "New team". A native disclosure, so keyboard and screen
 * readers get it for free; Escape and a click elsewhere close it.
 */
export function TeamSwitch() {
  const menu = useRef<HTMLDetailsElement>(null);
  // The menu's content exists only while it is open: closed, nothing in it is reachable, not even by a screen reader.
  const [open, setOpen] = useState(false);
  const [creating, setCreating] = useState(false);
  useEffect(() => {
    const outside = (e: Event) => {
      if (menu.current?.open && !menu.current.contains(e.target as Node)) menu.current.open = false;
    };
    const escape = (e: KeyboardEvent) => {
      if (e.key !== "Escape" || !menu.current?.open) return;
      menu.current.open = false;
      menu.current.querySelector("summary")?.focus();
    };
    document.addEventListener("click", outside);
    document.addEventListener("keydown", escape);
    return () => {
      document.removeEventListener("click", outside);
      document.removeEventListener("keydown", escape);
    };
  }, []);
  const team = currentTeam.value;
  const all = myTeams.value;
  if (!team) return null;
  const close = () => menu.current && (menu.current.open = false);
  const pick = (id: string) => {
    close();
    if (id === team.id) return;
    chooseTeam(id);
    announce(`Now in ${all.find((t) => t.id === id)?.name}`);
    // A form, a submission or a key list belong to the team left: its forms list is the place to start.
    if (route.value.parts[0] !== "team") go("#/forms");
  };
  return (
    <>
      <details class="team-switch" ref={menu} onToggle={(e) => setOpen(e.currentTarget.open)}>
        <summary aria-label={`Team: ${team.name} (your role: ${team.role}). Switch team`}>
          <span class="team-switch-name">{team.name}</span>
          <span class="badge badge-role">{team.role}</span>
        </summary>
        {open && (
          <div class="team-menu">
            <p class="team-menu-title" id="team-menu-title">
              Your teams
            </p>
            <ul class="team-options" aria-labelledby="team-menu-title">
              {all.map((t) => (
                <li key={t.id}>
                  <button
                    type="button"
                    class="team-option"
                    aria-current={t.id === team.id ? "true" : undefined}
                    onClick={() => pick(t.id)}
                  >
                    <span class="team-option-name">
                      {t.name}
                      {t.personal && <span class="muted small"> · personal</span>}
                    </span>
                    <span class="badge badge-role">{t.role}</span>
                  </button>
                </li>
              ))}
            </ul>
            <div class="team-menu-actions">
              <a href="#/team" onClick={close}>
                Members and settings
              </a>
              <button
                type="button"
                class="link-button"
                onClick={() => {
                  close();
                  setCreating(true);
                }}
              >
                New team…
              </button>
            </div>
          </div>
        )}
      </details>
      {creating && <CreateTeam onClose={() => setCreating(false)} />}
    </>
  );
}

/** A team's name; then the new team is the one the dashboard works in, on its members page. */
function CreateTeam({ onClose }: { onClose: () => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  return (
    <Dialog title="New team" onClose={onClose}>
      <form
        class="stack"
        onSubmit={act(async (e) => {
          e.preventDefault();
          const name = String(new FormData(e.currentTarget).get("name")).trim();
          setBusy(true);
          setError(null);
          try {
            const created = await teams.create(name);
            await loadTeams();
            chooseTeam(created.id);
            announce(`Team ${created.name} created`);
            onClose();
            go("#/team");
          } catch (err) {
            setError(err);
            setBusy(false);
          }
        })}
      >
        <p class="muted">
          A team owns its own forms, keys and webhooks. You are its owner; invite others to it by email.
        </p>
        <label class="field">
          <span>Name</span>
          <input name="name" required maxLength={100} placeholder="e.g. Marketing, Client sites" autoFocus />
        </label>
        {error !== null && <ErrorNote error={error} />}
        <div class="actions">
          <button type="button" class="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" class="button button-primary" disabled={busy}>
            {busy ? "Creating…" : "Create team"}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
