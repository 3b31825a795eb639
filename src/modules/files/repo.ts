import type { Sql } from "../../db/sql";
import type { NewSubmission } from "../submissions/model";
import { uploadsOf } from "./model";

/** A row of `files`. */
export interface FileRow {
  id: string;
  submission_id: string | null;
  form_id: string | null;
  team_id: string;
  key: string;
  field: string;
  name: string;
  type: string;
  size: number;
  sha256: string;
  state: "pending" | "stored";
  created_at: string;
}

/** The files table: one module writes it (this one); the submit pipeline and the deletions call it. */
export function createFilesRepo(sql: Sql) {
  const numbered = (row: FileRow): FileRow => ({ ...row, size: Number(row.size) });
  return {
    /** Notes a file about to be written to the store, so that it is found and removed if its submission never commits. */
    insertPending: (row: Omit<FileRow, "submission_id" | "form_id" | "state">): Promise<number> =>
      sql.run(
        "INSERT INTO files (id, team_id, key, field, name, type, size, sha256, state, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?)",
        [row.id, row.team_id, row.key, row.field, row.name, row.type, row.size, row.sha256, row.created_at],
      ),
    /** Marks a pending file's upload as still coming (its time moved to `at`), so the orphan sweep leaves it be. */
    touchPending: (id: string, at: string): Promise<number> =>
      sql.run("UPDATE files SET created_at = ? WHERE id = ? AND state = 'pending'", [at, id]),
    /** Sets a pending file's size, type and hash once all of it is stored. */
    finishPending: (id: string, done: { size: number; type: string; sha256: string }): Promise<number> =>
      sql.run("UPDATE files SET size = ?, type = ?, sha256 = ? WHERE id = ? AND state = 'pending'", [
        done.size,
        done.type,
        done.sha256,
        id,
      ]),
    /** The submit pipeline's writer: a new submission's files become its, in its transaction (a batch without files costs a loop). */
    async attach(batch: NewSubmission[]): Promise<void> {
      for (const s of batch) {
        const uploads = uploadsOf.get(s);
        if (!uploads?.length) continue;
        await sql.run(
          "UPDATE files SET submission_id = ?, form_id = ?, state = 'stored' WHERE id IN (SELECT value FROM json_each(?)) AND state = 'pending'",
          [s.id, s.form.id, JSON.stringify(uploads.map((u) => u.file))],
        );
      }
    },
    /** These files' rows, whatever their state. */
    findByIds: async (ids: string[]): Promise<FileRow[]> =>
      (
        await sql.all<FileRow>("SELECT * FROM files WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id", [
          JSON.stringify(ids),
        ])
      ).map(numbered),
    /** A stored file of a submission, or null. */
    findOfSubmission: async (submissionId: string, id: string): Promise<FileRow | null> => {
      const row = await sql.get<FileRow>(
        "SELECT * FROM files WHERE id = ? AND submission_id = ? AND state = 'stored'",
        [id, submissionId],
      );
      return row && numbered(row);
    },
    /** The stored files of these submissions, in the order they came. */
    listForSubmissions: async (ids: string[]): Promise<FileRow[]> =>
      ids.length === 0
        ? []
        : (
            await sql.all<FileRow>(
              "SELECT * FROM files WHERE submission_id IN (SELECT value FROM json_each(?)) ORDER BY submission_id, id",
              [JSON.stringify(ids)],
            )
          ).map(numbered),
    /**
     * Files to remove from the store: those whose submission is gone (deleted, erased, expired, its
     * form deleted: the foreign key emptied `submission_id`), and pending ones older than `before`
     * (their submission never committed).
     */
    listUnattached: async (before: string, limit: number): Promise<FileRow[]> =>
      (
        await sql.all<FileRow>(
          "SELECT * FROM files WHERE submission_id IS NULL AND (state = 'stored' OR created_at < ?) ORDER BY created_at LIMIT ?",
          [before, limit],
        )
      ).map(numbered),
    /** Forgets these files' rows, once their bytes are gone from the store; a file attached meanwhile stays. */
    /** A form's files go with it to another team (their keys in the store stay where they are). */
    moveFormFiles: (formId: string, teamId: string): Promise<number> =>
      sql.run("UPDATE files SET team_id = ? WHERE form_id = ?", [teamId, formId]),
    deleteUnattached: (ids: string[]): Promise<number> =>
      sql.run("DELETE FROM files WHERE id IN (SELECT value FROM json_each(?)) AND submission_id IS NULL", [
        JSON.stringify(ids),
      ]),
    /** Forgets these pending files (an upload refused or abandoned), once their bytes are gone. */
    deletePending: (ids: string[]): Promise<number> =>
      sql.run("DELETE FROM files WHERE id IN (SELECT value FROM json_each(?)) AND state = 'pending'", [
        JSON.stringify(ids),
      ]),
  };
}

export type FilesRepo = ReturnType<typeof createFilesRepo>;
