import { AppError } from "./errors";

export type KeyKind = "secret" | "publishable";

/**
 * Who is calling: the key, the owner whose forms it sees, and what it may do there. A secret key
 * may do everything the API offers for its owner's forms; a publishable key (made to sit in a web
 * page) may only submit and fetch challenges. A key bound to forms reaches only those.
 */
export interface Principal {
  /** Who acts: an API key (`key_…`), a login session acting as its owner's secret key (`ses_…`), or the command line (`cli`). */
  keyId: string;
  ownerId: string;
  kind: KeyKind;
  /** The forms the key is bound to; null = all its owner's forms. */
  forms: string[] | null;
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

/** The command line acting on one owner's data, as the audit trail records it (`cli`, that owner). */
export const ownerPrincipal = (ownerId: string): Principal => ({ keyId: "cli", ownerId, kind: "secret", forms: null });

/** Who the audit trail names for what `actor` did to `ownerId`'s data: a principal as itself, the operator as the command line. */
export const auditedAs = (actor: Actor, ownerId: string): Principal =>
  isOperator(actor) ? ownerPrincipal(ownerId) : actor;

/** The refusal of a publishable key anywhere but submit and challenge. */
export const publishableScope = () =>
  new AppError(
    "KEY_SCOPE",
    "a publishable key (fpk_) may only submit and fetch challenges; use a secret key (fsk_) on the server for everything else",
  );

/**
 * For what reaches beyond single forms (creating forms, managing keys): a secret key of all its
 * owner's forms, or a session. A publishable key or a key bound to some forms is refused with
 * KEY_SCOPE: a bound key must not mint itself a key that is not.
 */
export function requireOwnerScope(caller: Actor): void {
  if (isOperator(caller)) return;
  if (caller.kind === "publishable") throw publishableScope();
  if (caller.forms)
    throw new AppError(
      "KEY_SCOPE",
      "this API key is bound to some forms; creating forms and managing keys needs a secret key of all the owner's forms",
    );
}
