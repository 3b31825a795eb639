import type { Sql } from "../../db/sql";
import { createJoiners } from "../waitlist/joiners";

export interface Confirmation {
  formId: string;
  email: string;
  expiresAt: string;
  confirmedAt: string | null;
}

/** Waitlist confirmations (double opt-in): one per form and address, found by the hash of its token. */
export function createConfirmationsRepo(sql: Sql) {
  const joiners = createJoiners(sql);
  return {
    /** Whether this address needs a (new) confirmation: none yet, or one that expired unconfirmed. */
    async needsConfirmation(formId: string, email: string, now: string): Promise<boolean> {
      const s = await sql.get<{ expires_at: string; confirmed_at: string | null }>(
        "SELECT expires_at, confirmed_at FROM waitlist_confirmations WHERE form_id = ? AND email = ?",
        [formId, email],
      );
      return !s || (s.confirmed_at === null && s.expires_at <= now);
    },

    /** Stores a new token's hash for this address (replacing an expired one); runs in the submission's transaction. */
    async issue(formId: string, email: string, tokenHash: string, createdAt: string, expiresAt: string): Promise<void> {
      await sql.run(
        `INSERT INTO waitlist_confirmations (form_id, email, token_hash, created_at, expires_at) VALUES (?1, ?2, ?3, ?4, ?5)
         ON CONFLICT (form_id, email) DO UPDATE SET token_hash = ?3, created_at = ?4, expires_at = ?5, confirmed_at = NULL`,
        [formId, email, tokenHash, createdAt, expiresAt],
      );
    },

    async findByTokenHash(hash: string): Promise<Confirmation | null> {
      const r = await sql.get<{ form_id: string; email: string; expires_at: string; confirmed_at: string | null }>(
        "SELECT form_id, email, expires_at, confirmed_at FROM waitlist_confirmations WHERE token_hash = ?",
        [hash],
      );
      return r ? { formId: r.form_id, email: r.email, expiresAt: r.expires_at, confirmedAt: r.confirmed_at } : null;
    },

    /**
     * Confirms the address, once, in one transaction: a joiner who is in the inbox of a waitlist
     * that counts confirmed joiners is counted from now on (a joiner not in it is counted when
     * they come back, by the submissions' tally). Returns false when it was confirmed already.
     */
    confirm(formId: string, email: string, at: string): Promise<boolean> {
      return sql.transaction(async () => {
        if (
          (await sql.run(
            "UPDATE waitlist_confirmations SET confirmed_at = ? WHERE form_id = ? AND email = ? AND confirmed_at IS NULL",
            [at, formId, email],
          )) === 0
        )
          return false;
        if (await joiners.confirmedNow(formId, email))
          await sql.run("UPDATE forms SET users_joined_count = users_joined_count + 1 WHERE id = ?", [formId]);
        return true;
      });
    },

    /** Forgets an address's confirmation of a form, confirmed or pending (an erasure, inside its transaction); returns how many went. */
    async forgetAddress(formId: string, email: string): Promise<{ confirmations: number }> {
      return {
        confirmations: await sql.run("DELETE FROM waitlist_confirmations WHERE form_id = ? AND email = ?", [
          formId,
          email,
        ]),
      };
    },

    /** An address's confirmations in these forms (all when null), oldest first: a person's export. */
    async listAddressRecords(
      email: string,
      formIds: string[] | null,
    ): Promise<{ confirmations: Record<string, unknown>[] }> {
      return {
        confirmations: await sql.all<Record<string, unknown>>(
          `SELECT form_id AS "formId", created_at AS "createdAt", expires_at AS "expiresAt", confirmed_at AS "confirmedAt" FROM waitlist_confirmations
           WHERE email = ?1 AND (CAST(?2 AS TEXT) IS NULL OR form_id IN (SELECT value FROM json_each(?2))) ORDER BY created_at, form_id`,
          [email, formIds && JSON.stringify(formIds)],
        ),
      };
    },

    /**
     * Deletes confirmations that expired unconfirmed (the address may sign up again and get a new one),
     * recipients' links, and the record of recipients' emails older than `dayAgo` (no limit counts them).
     */
    deleteExpired: async (now: string, dayAgo: string): Promise<number> =>
      (await sql.run("DELETE FROM waitlist_confirmations WHERE confirmed_at IS NULL AND expires_at <= ?", [now])) +
      (await sql.run("DELETE FROM recipient_confirmations WHERE expires_at <= ?", [now])) +
      (await sql.run("DELETE FROM confirmation_emails WHERE due_at <= ?", [dayAgo])),

    /** Stores a recipient's link (replacing one it had); runs in the form's transaction. */
    async issueRecipient(formId: string, email: string, tokenHash: string, createdAt: string, expiresAt: string) {
      await sql.run(
        `INSERT INTO recipient_confirmations (form_id, email, token_hash, created_at, expires_at) VALUES (?1, ?2, ?3, ?4, ?5)
         ON CONFLICT (form_id, email) DO UPDATE SET token_hash = ?3, created_at = ?4, expires_at = ?5`,
        [formId, email, tokenHash, createdAt, expiresAt],
      );
    },

    /** Whether the address has a link to this form that has not expired, opened or not. */
    hasRecipientLink: async (formId: string, email: string, now: string): Promise<boolean> =>
      (await sql.get(
        "SELECT 1 AS one FROM recipient_confirmations WHERE form_id = ? AND email = ? AND expires_at > ?",
        [formId, email, now],
      )) !== null,

    /** The recipients' confirmation emails of this sender's forms falling due after `since`. */
    emailsSince: (senderId: string, since: string) =>
      sql.all<{ email: string; due_at: string }>(
        "SELECT email, due_at FROM confirmation_emails WHERE team_id = ? AND due_at > ?",
        [senderId, since],
      ),

    async recordEmail(senderId: string, email: string, dueAt: string): Promise<void> {
      await sql.run("INSERT INTO confirmation_emails (team_id, email, due_at) VALUES (?, ?, ?)", [
        senderId,
        email,
        dueAt,
      ]);
    },

    /** A recipient's link that has not expired, by its token's hash. */
    findRecipientByTokenHash: (hash: string, now: string) =>
      sql.get<{ form_id: string; email: string }>(
        "SELECT form_id, email FROM recipient_confirmations WHERE token_hash = ? AND expires_at > ?",
        [hash, now],
      ),
  };
}

export type ConfirmationsRepo = ReturnType<typeof createConfirmationsRepo>;
