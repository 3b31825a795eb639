import { AppError } from "./errors";
import { personalTeamId, type Right, type Role } from "./rights";

export type KeyKind = "secret" | "publishable";

/**
 * Who is calling: the key or session, the teams whose data it reaches with its role in each, and
 * what it may do there. A secret key belongs to one team with the role it was made with; a session
 * acts in every team its person is a member of. A publishable key (made to sit in a web page) may
 * only submit and fetch challenges. A key bound to forms reaches only those.
 */
export interface Principal {
  /** Who acts: an API key (`key_…`), a login session (`ses_…`), or the command line (`cli`). */
  keyId: string;
  /** The person behind it: a session's, or who made the key. */
  ownerId: string;
  kind: KeyKind;
  /** The forms the key is bound to; null = all its team's forms. */
  forms: string[] | null;
  /** Its role in each team it reaches: a key's one team, a session's memberships. */
  teams: ReadonlyMap<string, Role>;
  /** Where a call that names no team acts: a key's team, a session's personal team. */
  team: string;
  /** The right the route being served states (rights.ts); set by the route, checked by `authorize`. */
  right?: Right;
  /** A session whose person must enrol a second factor first (FORMSVC_REQUIRE_2FA): it reaches only enrolment, `auth/me` and logout. */
  enrolmentDue?: true;
}

/** The operator at the command line: every owner's data, with no key to scope it. */
export const OPERATOR = Object.freeze({ operator: true as const });
export type Operator = typeof OPERATOR;

/**
 * Who acts, the first argument of every service method: a key or a session (its owner's data,
 * within its key's scope), or the operator (everyone's).
 */
export type Actor = Principal | Operator;

export const isOperator = (actor: Actor): actor is Operator => actor === OPERATOR;

/** The command line acting as one owner of a team (by default their personal team). */
export function ownerPrincipal(ownerId: string, team = personalTeamId(ownerId)): Principal {
  return { keyId: "cli", ownerId, kind: "secret", forms: null, teams: new Map([[team, "owner"]]), team };
}

/** The refusal of a publishable key anywhere but submit and challenge. */
export const publishableScope = () =>
  new AppError(
    "KEY_SCOPE",
    "a publishable key (fpk_) may only submit and fetch challenges; use a secret key (fsk_) on the server for everything else",
  );

/**
 * For what reaches beyond single forms (creating forms, managing keys and teams): a secret key of
 * all its team's forms, or a session. A publishable key or a key bound to some forms is refused
 * with KEY_SCOPE: a bound key must not mint itself a key that is not.
 */
export function requireOwnerScope(caller: Actor): void {
  if (isOperator(caller)) return;
  if (caller.kind === "publishable") throw publishableScope();
  if (caller.forms)
    throw new AppError(
      "KEY_SCOPE",
      "this API key is bound to some forms; creating forms and managing keys and teams needs a secret key of all the team's forms",
    );
}
