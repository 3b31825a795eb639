import type { Database } from "bun:sqlite";
import { batchTransaction } from "../../db/batch-transaction";

/** A solution being recorded as used; `inserted` says whether this row was new (false: already used). */
export interface UsedChallenge {
  signature: string;
  expiresAt: string;
  inserted: boolean;
}

/** The statements of the spam checks: the proof-of-work secret and the solutions already used. */
export function createSpamRepo(db: Database) {
  const secret = db.query<{ value: string }, []>("SELECT value FROM settings WHERE key = 'challenge_secret'");
  const used = db.query<{ one: number }, [string]>("SELECT 1 AS one FROM used_challenges WHERE signature = ?");
  // One statement both asks "is it used?" and marks it used: also between processes sharing the database.
  const markUsed = db.query<never, [string, string]>("INSERT INTO used_challenges (signature, expires_at) VALUES (?, ?) ON CONFLICT (signature) DO NOTHING");
  const insertUsed = (rows: UsedChallenge[]) => {
    for (const row of rows) row.inserted = markUsed.run(row.signature, row.expiresAt).changes === 1;
  };
  const deleteExpired = db.query<never, [string]>("DELETE FROM used_challenges WHERE expires_at <= ?");

  return {
    /** The HMAC key of proof-of-work challenges, made by migration 007. */
    findChallengeSecret(): string {
      const row = secret.get();
      if (!row) throw new Error("the settings row challenge_secret is missing; the database was not migrated");
      return row.value;
    },

    /** Whether a challenge's solution was accepted before (and its row not yet expired). */
    isChallengeUsed: (signature: string): boolean => used.get(signature) !== null,

    /** Records solutions as used until their challenges expire, in one transaction (for group commit); each row learns whether it was new. */
    commitUsedChallenges: batchTransaction(db, [insertUsed]),

    /** Forgets used challenges that expired at or before `now`: they are refused as expired anyway. */
    deleteExpiredChallenges: (now: string): number => deleteExpired.run(now).changes,
  };
}

export type SpamRepo = ReturnType<typeof createSpamRepo>;
