import { AppError } from "./errors";

/** A member's role in a team, lowest first: each may do what the ones before it may, and more. */
export const ROLES = ["viewer", "editor", "admin", "owner"] as const;
export type Role = (typeof ROLES)[number];

/** The roles an API key may carry: a key is never a team's owner. */
export const KEY_ROLES = ["viewer", "editor", "admin"] as const;
export type KeyRole = (typeof KEY_ROLES)[number];

/**
 * Which role may do what: each right and the least role that holds it. Every route that takes a key
 * or a session states one right (its `auth`, http/context.ts), and the access check of whatever it
 * reaches (a form, a key, a team) compares the caller's role in the team that owns it with this
 * table, in `authorize` below and nowhere else. The security matrix holds every route to it.
 */
export const RIGHTS = {
  /** Forms, their settings, analytics and the spam filter's state. */
  "forms.read": "viewer",
  /** Submissions and their files. */
  "submissions.read": "viewer",
  /** The team's members and its pending invitations. */
  "members.read": "viewer",
  "forms.create": "editor",
  "forms.edit": "editor",
  /** Everything on submissions: mark, move, delete, export, erase. */
  "submissions.edit": "editor",
  "forms.delete": "admin",
  /** Moving a form between two teams, in both of which the caller is an admin. */
  "forms.move": "admin",
  "webhooks.manage": "admin",
  "keys.manage": "admin",
  /** Inviting, changing roles below owner, removing members. */
  "members.manage": "admin",
  "audit.read": "admin",
  "team.edit": "admin",
  "spam.reset": "admin",
  "team.delete": "owner",
} as const satisfies Record<string, Role>;
export type Right = keyof typeof RIGHTS;

export const atLeast = (role: Role, least: Role): boolean => ROLES.indexOf(role) >= ROLES.indexOf(least);

/** What a caller is, as far as rights go: its role in each of its teams, and the right its route states. */
export interface Member {
  teams: ReadonlyMap<string, Role>;
  right?: Right;
}

/**
 * The caller's role in `teamId` if it holds `right` there (by default the right its route states):
 * 403 FORBIDDEN for one outside the team (what another owner's key gets), 403 ROLE_TOO_LOW for a
 * member whose role is below the right's.
 */
export function authorize(caller: Member, teamId: string, right: Right | undefined = caller.right): Role {
  if (!right) throw new Error("a caller reached a team's data through a route that states no right");
  const role = caller.teams.get(teamId);
  if (!role) throw new AppError("FORBIDDEN", "this API key has no access to that team's data");
  const least = RIGHTS[right];
  if (!atLeast(role, least))
    throw new AppError("ROLE_TOO_LOW", `this needs the role ${least} or above in the team; the caller is ${role}`);
  return role;
}

/** The teams among the caller's where it holds `right`. */
export const teamsWith = (caller: Member, right: Right): string[] =>
  [...caller.teams].filter(([, role]) => atLeast(role, RIGHTS[right])).map(([team]) => team);

/** An owner's personal team, made with the owner: its id is theirs with `tm_` for `own_` (migration 28 derives it alike). */
export const personalTeamId = (ownerId: string): string => `tm_${ownerId.slice(4)}`;
