// The teams of the logged-in person and the one the dashboard works in; what their role there allows
// is read from the server's own rights table, so a control is never offered that the API refuses.
import { computed, signal } from "@preact/signals";
import { atLeast, personalTeamId, RIGHTS, type Right } from "../../lib/rights";
import { teams as calls, type Role, type Team } from "./calls";
import { me } from "./session";

/** The caller's teams with their role in each (empty until loaded). */
export const myTeams = signal<Team[]>([]);
const chosen = signal<string | null>(null);

// Per person, so whoever logs in next on this browser starts in their own team.
const storageKey = () => `formsvc.team.${me.value?.id ?? ""}`;

/** Asks the server for the caller's teams, and which of them was chosen last on this browser. */
export async function loadTeams(): Promise<void> {
  myTeams.value = await calls.list();
  try {
    chosen.value = localStorage.getItem(storageKey());
  } catch {
    chosen.value = null; // storage refused (a private window's policy): the personal team
  }
}

/** The team the dashboard works in: the one chosen last on this browser, else the person's own. */
export const currentTeam = computed<Team | null>(() => {
  const all = myTeams.value;
  const own = me.value ? personalTeamId(me.value.id) : null;
  return all.find((t) => t.id === chosen.value) ?? all.find((t) => t.id === own) ?? all[0] ?? null;
});

/** Works in team `id` from now on, here and at the next visit. */
export function chooseTeam(id: string): void {
  chosen.value = id;
  try {
    localStorage.setItem(storageKey(), id);
  } catch {
    // Not kept for the next visit; this one still works in it.
  }
}

/** The caller's role in a team, if the server said. */
export const roleIn = (teamId: string | undefined): Role | undefined =>
  teamId === undefined ? undefined : myTeams.value.find((t) => t.id === teamId)?.role;

/** Whether the caller's role in `teamId` holds `right`; yes where the role is unknown (the server still decides). */
export function may(teamId: string | undefined, right: Right): boolean {
  const role = roleIn(teamId);
  return role === undefined || atLeast(role, RIGHTS[right]);
}

const WHO: Record<Role, string> = {
  viewer: "members",
  editor: "editors, admins and owners",
  admin: "admins and owners",
  owner: "owners",
};

/** A role with its article: "a viewer", "an admin". */
export const aRole = (role: Role) => `${role === "viewer" ? "a" : "an"} ${role}`;

/** Why a control is off, in a few words: "Only admins and owners can delete forms; you are an editor." */
export function onlyWho(teamId: string | undefined, right: Right, what: string): string {
  const role = roleIn(teamId);
  return `Only ${WHO[RIGHTS[right]]} ${what}${role ? `; you are ${aRole(role)}` : ""}.`;
}
