import type { Database } from "bun:sqlite";

export interface Confirmation {
  formId: string;
  email: string;
  expiresAt: string;
  confirmedAt: string | null;
}

/** Waitlist confirmations (double opt-in): one per form and address, found by the hash of its token. */
export function createConfirmationsRepo(db: Database) {
  const settings = db.prepare<{ form_type: string; double_opt_in: number }, [string]>("SELECT form_type, double_opt_in FROM forms WHERE id = ?");
  const state = db.prepare<{ expires_at: string; confirmed_at: string | null }, [string, string]>(
    "SELECT expires_at, confirmed_at FROM waitlist_confirmations WHERE form_id = ? AND email = ?",
  );
  const issue = db.prepare(
    `INSERT INTO waitlist_confirmations (form_id, email, token_hash, created_at, expires_at) VALUES (?1, ?2, ?3, ?4, ?5)
     ON CONFLICT (form_id, email) DO UPDATE SET token_hash = ?3, created_at = ?4, expires_at = ?5, confirmed_at = NULL`,
  );
  const byHash = db.prepare<{ form_id: string; email: string; expires_at: string; confirmed_at: string | null }, [string]>(
    "SELECT form_id, email, expires_at, confirmed_at FROM waitlist_confirmations WHERE token_hash = ?",
  );
  const markConfirmed = db.prepare("UPDATE waitlist_confirmations SET confirmed_at = ? WHERE form_id = ? AND email = ? AND confirmed_at IS NULL");
  const isJoiner = db.prepare<{ one: number }, [string, string]>("SELECT 1 AS one FROM waitlist_joiners WHERE form_id = ? AND email = ?");
  const countIn = db.prepare("UPDATE forms SET users_joined_count = users_joined_count + 1 WHERE id = ?");

  return {
    /** Whether a form asks its joiners to confirm, as committed (not as cached). */
    wantsConfirmation(formId: string): boolean {
      const f = settings.get(formId);
      return f?.form_type === "waitlist" && f.double_opt_in === 1;
    },

    /** Whether this address needs a (new) confirmation: none yet, or one that expired unconfirmed. */
    needsConfirmation(formId: string, email: string, now: string): boolean {
      const s = state.get(formId, email);
      return !s || (s.confirmed_at === null && s.expires_at <= now);
    },

    /** Stores a new token's hash for this address (replacing an expired one); runs in the submission's transaction. */
    issue(formId: string, email: string, tokenHash: string, createdAt: string, expiresAt: string): void {
      issue.run(formId, email, tokenHash, createdAt, expiresAt);
    },

    findByTokenHash(hash: string): Confirmation | null {
      const r = byHash.get(hash);
      return r ? { formId: r.form_id, email: r.email, expiresAt: r.expires_at, confirmedAt: r.confirmed_at } : null;
    },

    /**
     * Confirms the address, once, in one transaction: a joiner who is in the inbox of a waitlist
     * that counts confirmed joiners is counted from now on (a joiner not in it is counted when
     * they come back, by the submissions' tally). Returns false when it was confirmed already.
     */
    confirm(formId: string, email: string, at: string): boolean {
      return db.transaction(() => {
        if (markConfirmed.run(at, formId, email).changes === 0) return false;
        const f = settings.get(formId);
        if (f?.form_type === "waitlist" && f.double_opt_in === 1 && isJoiner.get(formId, email)) countIn.run(formId);
        return true;
      }).immediate();
    },

    /** Deletes confirmations that expired unconfirmed (the address may sign up again and get a new one). */
    deleteExpired(now: string): number {
      return db.query("DELETE FROM waitlist_confirmations WHERE confirmed_at IS NULL AND expires_at <= ?").run(now).changes;
    },
  };
}

export type ConfirmationsRepo = ReturnType<typeof createConfirmationsRepo>;
