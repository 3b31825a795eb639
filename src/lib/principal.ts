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

/** The operator at the command line: the owner's own rights, as a secret key of theirs has them. */
export const ownerPrincipal = (ownerId: string): Principal => ({ keyId: "cli", ownerId, kind: "secret", forms: null });

/** The refusal of a publishable key anywhere but submit and challenge. */
export const publishableScope = () => new AppError("KEY_SCOPE", "a publishable key (fpk_) may only submit and fetch challenges; use a secret key (fsk_) on the server for everything else");

/**
 * For what reaches beyond single forms (creating forms, managing keys): a secret key of all its
 * owner's forms, or a session. A publishable key or a key bound to some forms is refused with
 * KEY_SCOPE: a bound key must not mint itself a key that is not.
 */
export function requireOwnerScope(caller: Principal): void {
  if (caller.kind === "publishable") throw publishableScope();
  if (caller.forms) throw new AppError("KEY_SCOPE", "this API key is bound to some forms; creating forms and managing keys needs a secret key of all the owner's forms");
}
