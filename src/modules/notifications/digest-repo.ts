import type { Sql } from "../../db/sql";

/** A listed submission as the digest's email shows it, read when the email is sent. */
export interface DigestSubmission {
  id: string;
  created_at: string;
  data: string;
}

// Digests list at most this many submissions (and the day's count); the rest are a link away.
export const DIGEST_MAX_LISTED = 100;

export function createDigestRepo(sql: Sql) {
  return {
    /** A form's non-spam submissions in [from, to): the ids of the newest (at most DIGEST_MAX_LISTED), newest first, and how many there were. */
    async submissionsBetween(formId: string, from: string, to: string): Promise<{ ids: string[]; total: number }> {
      // submissions_by_form (form_id, status, created_at, id) serves both.
      const rows = await sql.all<{ id: string }>(
        `SELECT id FROM submissions WHERE form_id = ?1 AND status = 'inbox' AND created_at >= ?2 AND created_at < ?3
         ORDER BY created_at DESC, id DESC LIMIT ${DIGEST_MAX_LISTED}`,
        [formId, from, to],
      );
      const ids = rows.map((r) => r.id);
      if (ids.length < DIGEST_MAX_LISTED) return { ids, total: ids.length };
      const count = await sql.get<{ n: number }>(
        "SELECT CAST(count(*) AS INTEGER) AS n FROM submissions WHERE form_id = ?1 AND status = 'inbox' AND created_at >= ?2 AND created_at < ?3",
        [formId, from, to],
      );
      return { ids, total: Number(count?.n ?? ids.length) };
    },

    /**
     * Those of `ids` still in the form's inbox, with their fields: a digest reads them when it is sent,
     * so the outbox never holds a copy, and one deleted, erased or marked spam since is left out.
     */
    listedSubmissions: (formId: string, ids: string[]): Promise<DigestSubmission[]> =>
      sql.all<DigestSubmission>(
        "SELECT id, created_at, data FROM submissions WHERE form_id = ?1 AND status = 'inbox' AND id IN (SELECT value FROM json_each(?2))",
        [formId, JSON.stringify(ids)],
      ),

    /**
     * Takes the form's digest of `day`; false when it was taken before (a second run, another
     * instance). Runs in the transaction that queues the digest, so a digest is queued once or not at all.
     */
    async take(formId: string, day: string, submissions: number, now: string): Promise<boolean> {
      return (
        (await sql.run(
          `INSERT INTO notification_digests (form_id, day, submissions, created_at) VALUES (?1, ?2, ?3, ?4)
           ON CONFLICT (form_id, day) DO NOTHING`,
          [formId, day, submissions, now],
        )) > 0
      );
    },
  };
}

export type DigestRepo = ReturnType<typeof createDigestRepo>;
