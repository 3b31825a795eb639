import type { Sql } from "../../db/sql";
import { AppError } from "../../lib/errors";
import { slot } from "../../lib/slots";
import type { NewSubmission } from "../submissions/model";

/** A proof-of-work solution accepted with a submission, remembered until its challenge expires. */
export interface UsedChallenge {
  signature: string;
  expiresAt: string;
}

/** The proof-of-work solution the challenge check accepted: recorded with the submission in its transaction, so it is used once. */
export const usedChallengeOf = slot<UsedChallenge>("usedChallenge");

/** The statements of the spam checks: the proof-of-work secret and the solutions already used. */
export function createSpamRepo(sql: Sql) {
  return {
    /** The HMAC key of proof-of-work challenges, made by migration 007. */
    async findChallengeSecret(): Promise<string> {
      const row = await sql.get<{ value: string }>("SELECT value FROM settings WHERE key = 'challenge_secret'");
      if (!row) throw new Error("the settings row challenge_secret is missing; the database was not migrated");
      return row.value;
    },

    /** Whether a challenge's solution was accepted before (and its row not yet expired). */
    isChallengeUsed: async (signature: string): Promise<boolean> =>
      (await sql.get("SELECT 1 AS one FROM used_challenges WHERE signature = ?", [signature])) !== null,

    /**
     * The submit pipeline's writer of used solutions, beside the rows: a solution already recorded
     * (by an earlier commit, another process, or another submission of this batch) fails its
     * submission with CHALLENGE_FAILED, and the batch's others are committed without it.
     */
    async recordUsedChallenges(batch: NewSubmission[]): Promise<void> {
      for (const s of batch) {
        const used = usedChallengeOf.get(s);
        if (!used) continue;
        // One statement both asks "is it used?" and marks it used: also between processes sharing the database.
        const marked = await sql.run(
          "INSERT INTO used_challenges (signature, expires_at) VALUES (?, ?) ON CONFLICT (signature) DO NOTHING",
          [used.signature, used.expiresAt],
        );
        if (marked === 0)
          throw new AppError(
            "CHALLENGE_FAILED",
            "this proof of work was already used: every submission needs a newly solved challenge; nothing was stored",
          );
      }
    },

    /** Forgets used challenges that expired at or before `now`: they are refused as expired anyway. */
    deleteExpiredChallenges: (now: string): Promise<number> =>
      sql.run("DELETE FROM used_challenges WHERE expires_at <= ?", [now]),
  };
}

export type SpamRepo = ReturnType<typeof createSpamRepo>;
