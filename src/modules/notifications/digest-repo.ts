import type { Sql } from "../../db/sql";

/** A submission as a digest lists it: no field values, so an erased address leaves nothing in the outbox. */
export interface DigestItem {
  id: string;
  created_at: string;
}

// Digests list at most this many submissions (and the day's count); the rest are a link away.
export const DIGEST_MAX_LISTED = 200;

export function createDigestRepo(sql: Sql) {
  return {
    /** A form's non-spam submissions in [from, to), oldest first (at most DIGEST_MAX_LISTED), and how many there were. */
    async submissionsBetween(
      formId: string,
      from: string,
      to: string,
    ): Promise<{ items: DigestItem[]; total: number }> {
      // submissions_by_form (form_id, status, created_at, id) serves both.
      const items = await sql.all<DigestItem>(
        `SELECT id, created_at FROM submissions WHERE form_id = ?1 AND status = 'inbox' AND created_at >= ?2 AND created_at < ?3
         ORDER BY created_at, id LIMIT ${DIGEST_MAX_LISTED}`,
        [formId, from, to],
      );
      if (items.length < DIGEST_MAX_LISTED) return { items, total: items.length };
      const count = await sql.get<{ n: number }>(
        "SELECT CAST(count(*) AS INTEGER) AS n FROM submissions WHERE form_id = ?1 AND status = 'inbox' AND created_at >= ?2 AND created_at < ?3",
        [formId, from, to],
      );
      return { items, total: Number(count?.n ?? items.length) };
    },

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
