import { isUniqueViolation } from "../../db/errors";
import type { Sql } from "../../db/sql";
import { EmailAlreadyAnswered } from "./repo";

/** One earlier version of a submission's values, as stored. */
export interface RevisionRow {
  revision: number;
  data: string;
  createdAt: string;
}

/** A submitter's changes to their own submission (editableDays): the values it had, kept as revisions. */
export function createRevisionsRepo(sql: Sql) {
  return {
    /**
     * Keeps the submission's values as its next revision and gives it `json` and `email`, in the
     * caller's transaction (its row locked). An address counted for one response per email moves
     * to the new one; EmailAlreadyAnswered when another answer holds that. Returns the revision.
     */
    async revise(
      id: string,
      earlier: { json: string; email: string | null },
      json: string,
      email: string | null,
      at: string,
    ): Promise<number> {
      const { next } = (await sql.get<{ next: number }>(
        "SELECT COALESCE(MAX(revision), 0) + 1 AS next FROM submission_revisions WHERE submission_id = ?",
        [id],
      ))!;
      await sql.run(
        "INSERT INTO submission_revisions (submission_id, revision, data, email, created_at) VALUES (?, ?, ?, ?, ?)",
        [id, Number(next), earlier.json, earlier.email, at],
      );
      try {
        await sql.run(
          `UPDATE submissions SET data = ?, email = ?,
             one_response_email = CASE WHEN one_response_email IS NULL THEN NULL ELSE CAST(? AS TEXT) END
           WHERE id = ?`,
          [json, email, email, id],
        );
      } catch (e) {
        if (isUniqueViolation(e)) throw new EmailAlreadyAnswered();
        throw e;
      }
      return Number(next);
    },

    /** The answer that holds an address for one response per email on this form, or null. */
    findAnswer: (formId: string, email: string): Promise<{ id: string; created_at: string } | null> =>
      sql.get("SELECT id, created_at FROM submissions WHERE form_id = ? AND one_response_email = ?", [formId, email]),

    /** These submissions' revisions (a person's export), by submission, newest first. */
    async listForSubmissions(ids: string[]): Promise<(RevisionRow & { submissionId: string })[]> {
      return (
        await sql.all<{ submission_id: string; revision: number; data: string; created_at: string }>(
          "SELECT submission_id, revision, data, created_at FROM submission_revisions WHERE submission_id IN (SELECT value FROM json_each(?)) ORDER BY submission_id, revision DESC",
          [JSON.stringify(ids)],
        )
      ).map((r) => ({
        submissionId: r.submission_id,
        revision: Number(r.revision),
        data: r.data,
        createdAt: r.created_at,
      }));
    },

    /** A submission's revisions, newest first. */
    async listRevisions(id: string): Promise<RevisionRow[]> {
      return (
        await sql.all<{ revision: number; data: string; created_at: string }>(
          "SELECT revision, data, created_at FROM submission_revisions WHERE submission_id = ? ORDER BY revision DESC",
          [id],
        )
      ).map((r) => ({ revision: Number(r.revision), data: r.data, createdAt: r.created_at }));
    },
  };
}

export type RevisionsRepo = ReturnType<typeof createRevisionsRepo>;
